"""Parsing agent conversations: ReAct text, native function calling, OpenAI-style tool calls."""

from __future__ import annotations

from session_scoring.models.session import ToolCall
from session_scoring.sources.conversation import (
    SUMMARY_NOTE,
    Message,
    ThinkingAnchor,
    merge_tool_calls,
    parse_action_input,
    parse_conversation,
)

SYSTEM = Message("system", "You are an SRE. Use Thought/Action/Action Input.")
TASK = Message("user", "Investigate the alert. Begin!")


def test_react_turns_become_reasoning_tool_calls_with_results_and_an_answer() -> None:
    steps = parse_conversation(
        [
            SYSTEM,
            TASK,
            Message(
                "assistant",
                'Thought: check the namespace\nAction: kubernetes-server.kubectl_get\nAction Input: {"name": "ns1"}',
            ),
            Message("user", 'Observation: kubernetes-server.kubectl_get: {\n  "result": "ns1   Terminating   45m"\n}'),
            Message(
                "assistant", "Action: kubernetes-server.kubectl_describe\nAction Input: resource: namespace\nname: ns1"
            ),
            Message("user", "Observation: kubernetes-server.kubectl_describe error: tool 'kubectl_describe' not found"),
            Message("assistant", "Final Answer: finalizers block the deletion"),
        ]
    )

    assert [s.kind for s in steps] == ["reasoning", "tool_call", "tool_call", "answer"]
    first, second = steps[1].tool_call, steps[2].tool_call
    assert first is not None
    assert second is not None
    assert (first.server, first.name, first.arguments) == ("kubernetes-server", "kubectl_get", {"name": "ns1"})
    assert first.result == "ns1   Terminating   45m"
    assert first.success
    assert second.arguments == {"resource": "namespace", "name": "ns1"}
    assert not second.success
    assert second.error == "tool 'kubectl_describe' not found"
    assert steps[3].text == "finalizers block the deletion"


def test_an_observation_that_reports_a_failure_is_a_failure_inferred() -> None:
    steps = parse_conversation(
        [
            TASK,
            Message("assistant", 'Action: kubernetes-server.pods_get\nAction Input: {"name": "web-9"}'),
            Message(
                "user",
                'Observation: kubernetes-server.pods_get: Error from server (NotFound): pods "web-9" not found',
            ),
            Message("assistant", "Final Answer: web-9 does not exist"),
        ]
    )

    call = steps[0].tool_call
    assert call is not None
    assert (call.success, call.failure_inferred) == (False, True)
    assert call.error == 'Error from server (NotFound): pods "web-9" not found'


def test_summarised_observation_is_flagged() -> None:
    steps = parse_conversation(
        [
            TASK,
            Message("assistant", "Action: test-data-server.collect_system_info\nAction Input: {}"),
            Message("user", f"Observation: test-data-server.collect_system_info: {SUMMARY_NOTE}\n\nCPU 45%"),
        ]
    )

    call = steps[0].tool_call
    assert call is not None
    assert call.result_summarized


def test_native_thinking_places_reasoning_between_tool_results() -> None:
    steps = parse_conversation(
        [
            TASK,
            Message("user", 'Tool Result: kubernetes-server.pods_get:\n{"result": "exitCode: 1"}'),
            Message("user", "Tool Error: kubernetes-server.resources_get: secret not found"),
            Message("assistant", "The secret is missing."),
        ],
        [ThinkingAnchor(1, "read the pod first"), ThinkingAnchor(2, "exit 1: check the secret")],
    )

    assert [s.kind for s in steps] == ["reasoning", "tool_call", "reasoning", "tool_call", "answer"]
    result, error = steps[1].tool_call, steps[3].tool_call
    assert result is not None
    assert error is not None
    assert (result.qualified_name, result.result) == ("kubernetes-server.pods_get", "exitCode: 1")
    assert (error.qualified_name, error.success, error.error) == (
        "kubernetes-server.resources_get",
        False,
        "secret not found",
    )


def test_openai_tool_calls_are_matched_to_their_results_by_id() -> None:
    steps = parse_conversation(
        [
            Message("user", "Disk full on db-3"),
            Message(
                "assistant",
                "",
                tool_calls=(
                    {"id": "a", "type": "function", "function": {"name": "ssh.df", "arguments": '{"host": "db-3"}'}},
                    {"id": "b", "type": "function", "function": {"name": "ssh.du", "arguments": '{"path": "/"}'}},
                ),
            ),
            Message("tool", "410G pg_wal", tool_call_id="b"),
            Message("tool", "97% used", tool_call_id="a"),
            Message("assistant", "WAL is not archived."),
        ]
    )

    calls = [s.tool_call for s in steps if s.tool_call]
    assert [(c.qualified_name, c.arguments, c.result) for c in calls] == [
        ("ssh.df", {"host": "db-3"}, "97% used"),
        ("ssh.du", {"path": "/"}, "410G pg_wal"),
    ]
    assert steps[-1].kind == "answer"


def test_chat_prompt_keeps_only_the_question() -> None:
    steps = parse_conversation(
        [Message("user", "HISTORY...\n**Question:** Does the namespace still exist?\n\n**Your Task:** answer")],
        chat=True,
    )

    assert [s.text for s in steps] == ["User question: Does the namespace still exist?"]


def test_recorded_calls_replace_the_conversation_calls_and_none_is_lost() -> None:
    seen = parse_conversation(
        [
            TASK,
            Message("assistant", "Action: k8s.pods_get\nAction Input: {}"),
            Message("user", f"Observation: k8s.pods_get: {SUMMARY_NOTE} short"),
            Message("assistant", "Final Answer: done"),
        ]
    )
    recorded = [
        ToolCall(name="pods_get", server="k8s", arguments={"name": "p"}, result={"full": "output"}),
        ToolCall(name="events_list", server="k8s", arguments={"namespace": "n"}, result="events"),
    ]

    merged = merge_tool_calls(seen, recorded)

    calls = [s.tool_call for s in merged if s.tool_call]
    assert [c.arguments for c in calls] == [{"name": "p"}, {"namespace": "n"}]
    assert calls[0].result_summarized
    assert merged[-1].kind == "answer"


def test_action_input_forms() -> None:
    assert parse_action_input('{"a": 1}') == {"a": 1}
    assert parse_action_input("namespace: default\nkind: Pod") == {"namespace": "default", "kind": "Pod"}
    assert parse_action_input("free text here") == {"input": "free text here"}
    assert parse_action_input("") == {}


def test_records_in_a_different_order_are_matched_without_duplicates() -> None:
    seen = parse_conversation(
        [
            TASK,
            Message("assistant", "Action: k8s.a\nAction Input: {}"),
            Message("user", "Observation: k8s.a: one"),
            Message("assistant", "Action: k8s.b\nAction Input: {}"),
            Message("user", "Observation: k8s.b: two"),
        ]
    )
    recorded = [ToolCall(name="b", server="k8s", result="B"), ToolCall(name="a", server="k8s", result="A")]

    merged = merge_tool_calls(seen, recorded)

    assert [(s.tool_call.name, s.tool_call.result) for s in merged if s.tool_call] == [("a", "A"), ("b", "B")]
