"""Fact 8: tool calls written as text, read by the one parser every reader shares."""

from __future__ import annotations

from session_scoring.sources.formats.text_protocol import TextAction, parse_result, parse_turn


def test_react_action_and_input_are_a_call_and_the_thought_its_reasoning() -> None:
    turn = parse_turn('Thought: the pod may be OOMKilled\nAction: kubectl_describe\nAction Input: {"pod": "web-1"}')

    assert turn.actions == [TextAction("kubectl_describe", {"pod": "web-1"})]
    assert turn.reasoning == "the pod may be OOMKilled"


def test_a_fenced_bash_block_is_a_shell_call_and_other_code_is_text() -> None:
    turn = parse_turn("Check the disk.\n\n```bash\ndf -h /var\n```\n\nAn example config:\n```yaml\na: 1\n```")

    assert turn.actions == [TextAction("bash", {"command": "df -h /var"})]
    assert "An example config" in turn.reasoning


def test_function_tags_with_parameters_are_calls() -> None:
    turn = parse_turn("Look.\n<function=execute_bash>\n<parameter=command>\nls /srv\n</parameter>\n</function>")

    assert turn.actions == [TextAction("execute_bash", {"command": "ls /srv"})]
    assert turn.reasoning == "Look."


def test_python_style_calls_of_known_actions_are_calls() -> None:
    turn = parse_turn('Pods first.\n```\nexec_shell("kubectl get pods -n hotel")\n```')
    submitted = parse_turn('submit(["geo", "search"])')

    assert turn.actions == [TextAction("exec_shell", {"command": "kubectl get pods -n hotel"})]
    assert submitted.actions == [TextAction("submit", {"answer": ["geo", "search"]})]


def test_text_without_an_action_is_all_reasoning() -> None:
    turn = parse_turn("The root cause is the expired certificate; print(x) is not an action.")

    assert turn.actions == []


def test_results_written_as_text_name_their_tool_and_keep_their_return_code_first() -> None:
    assert parse_result("EXECUTION RESULT of [execute_bash]:\nok").name == "execute_bash"
    assert (
        parse_result("<returncode>2</returncode>\n<output>\nno\n</output>").output == "<returncode>2</returncode>\nno"
    )


def test_think_and_answer_tags_around_a_fenced_action_are_layout() -> None:
    turn = parse_turn('<think>The pods first.</think><answer>```\nexec_shell("kubectl get pods")\n```</answer>')

    assert turn.actions == [TextAction("exec_shell", {"command": "kubectl get pods"})]
    assert turn.reasoning == "The pods first."
