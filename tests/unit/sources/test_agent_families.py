"""The second sample's families read as their agents save them (format facts 1-10 of issue 40): which reader reads
each, the calls and their failures (recorded or inferred from the output), the reasoning, the final answer and where
it came from; the generic fallback for a conversation no reader claims, and the refusal of a document with none."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from session_scoring.errors import SessionDataError
from session_scoring.models.session import Session
from session_scoring.sources.documents import Read, read_traces
from session_scoring.sources.formats import load_text
from tests.support.degraded_twins import FAMILIES
from tests.support.labelled_traces import TRACES

FACTS = TRACES / "facts"


def read(path: Path) -> list[Read]:
    return read_traces(load_text(path.read_text(encoding="utf-8"), path.name))


def family(name: str) -> Read:
    path = next(p for split in ("tuned", "held_out") for p in (FAMILIES / split).iterdir() if p.name == name)
    (found,) = read(path)
    return found


def outcomes(session: Session) -> list[str]:
    return ["ok" if c.success else ("inferred" if c.failure_inferred else "recorded") for c in session.tool_calls]


def reasoning_steps(session: Session) -> int:
    return sum(1 for stage in session.stages for step in stage.steps if step.kind == "reasoning")


def test_fact_1_a_swe_agent_trajectory_is_read_from_its_steps_with_the_submission_as_the_answer() -> None:
    found = family("swe-agent--payments-api-5xx.traj")

    assert found.trace_format == "swe-agent-trajectory"
    assert [c.name for c in found.session.tool_calls] == ["kubectl", "kubectl", "kubectl", "kubectl"]
    assert reasoning_steps(found.session) == 5
    assert found.session.final_answer_source == "info.submission"
    assert (found.session.final_analysis or "").startswith("Revision 42 (payments-api:2.15.0")
    assert [s.what for s in found.session.skipped_content] == ["demonstration message(s)"]


def test_fact_1_a_failure_written_in_a_swe_agent_observation_is_inferred() -> None:
    found = family("swe-agent--worker-oomkilled.traj")

    assert outcomes(found.session) == ["ok", "ok", "inferred", "ok"]


def test_fact_2_mini_swe_agent_results_carry_their_return_code_and_the_exit_message_is_the_answer() -> None:
    found = family("mini-swe-agent--node-disk-full.traj.json")

    assert found.trace_format == "mini-swe-agent-trajectory"
    assert outcomes(found.session) == ["ok", "ok", "inferred", "ok"]
    assert found.session.final_answer_source == "info.submission"
    assert (found.session.final_analysis or "").startswith("ledger-worker-6f8c writes DEBUG")


def test_fact_2_the_submit_command_is_recognised_by_its_marker_and_its_output_is_the_answer() -> None:
    found = family("mini-swe-agent--backup-cronjob.traj.json")

    assert len(found.session.tool_calls) == 3
    assert all("COMPLETE_TASK" not in str(c.arguments) for c in found.session.tool_calls)
    assert found.session.final_answer_source == "submit_command"
    assert (found.session.final_analysis or "").startswith("Since the pg-backup-credentials secret was rotated")


def test_fact_3_openhands_v0_exit_codes_and_the_finish_message() -> None:
    found = family("openhands-v0--redis-evictions.json")

    assert found.trace_format == "openhands-events"
    assert outcomes(found.session) == ["ok", "ok", "recorded", "ok"]
    assert found.session.final_answer_source == "finish action"
    assert (found.session.final_analysis or "").startswith("redis-cart-0 is at its maxmemory")


def test_fact_3_openhands_v0_editor_failures_written_as_text_are_failures() -> None:
    (found,) = read(FACTS / "openhands_v0_editor_errors.json")

    assert outcomes(found.session) == ["inferred", "inferred", "ok"]
    assert found.session.final_answer_source == "finish action"


def test_fact_4_openhands_sdk_events_with_an_agent_error_of_their_own() -> None:
    (found,) = read(FACTS / "openhands_v1_agent_error.jsonl")

    assert found.trace_format == "openhands-sdk-events"
    assert outcomes(found.session) == ["ok", "recorded", "inferred"]
    assert found.session.final_analysis is None


def test_fact_4_openhands_sdk_finish_action_is_the_answer() -> None:
    found = family("openhands-v1--ingress-cert-expired.jsonl")

    assert outcomes(found.session) == ["ok", "ok", "inferred", "ok"]
    assert found.session.final_answer_source == "finish action"


def test_fact_5_an_inspect_eval_log_is_one_session_per_sample_with_tool_errors_recorded() -> None:
    first, second = read(FACTS / "inspect_two_samples.json")

    assert (first.trace_format, second.trace_format) == ("inspect-ai-sample", "inspect-ai-sample")
    assert (first.session.session_id, second.session.session_id) == ("1", "2")
    assert (outcomes(first.session), outcomes(second.session)) == (["ok"], ["recorded"])
    assert first.session.final_answer_source == "output.choices"
    assert first.session.final_analysis == "api-1 is healthy, version 3.1.4."


def test_fact_6_a_litellm_log_prefers_raw_messages_and_takes_the_response_as_the_answer() -> None:
    (found,) = read(FACTS / "litellm_raw_messages.json")

    assert found.trace_format == "litellm-proxy-log"
    assert [c.arguments for c in found.session.tool_calls] == [{"command": "ssh db-7 df -h /data"}]
    assert found.session.final_answer_source == "response.choices"


def test_fact_6_calls_written_as_function_tags_answered_by_execution_results() -> None:
    found = family("litellm-text--pg-pool-exhausted.json")

    assert [c.name for c in found.session.tool_calls] == ["execute_bash"] * 3
    assert all(c.result for c in found.session.tool_calls)
    assert found.session.final_answer_source == "submit_tool:finish"


def test_fact_7_an_aiopslab_result_reads_exec_shell_calls_and_the_submission() -> None:
    found = family("aiopslab--hotel-geo-misconfig.json")

    assert found.trace_format == "aiopslab-result"
    assert found.session.tool_calls[0].arguments["command"] == "kubectl get pods -n test-hotel-reservation"
    assert found.session.final_answer_source == "submit_tool:submit"
    assert (found.session.final_analysis or "").startswith("geo\n\ngeo reads its database at mongodb-geo:27777")
    assert [s.what for s in found.session.skipped_content] == ["AIOpsLab result field(s)"]


def test_fact_9_a_codex_exec_command_exit_code_in_the_header_is_a_failure() -> None:
    (found,) = read(FACTS / "codex_exec_command_exit_codes.jsonl")

    assert outcomes(found.session) == ["inferred", "ok", "inferred", "ok", "inferred"]


def test_fact_9_a_codex_end_event_recording_a_failure_fails_its_call_once() -> None:
    (found,) = read(FACTS / "codex_end_events_record_failures.jsonl")

    # The patch that did not apply and the MCP error are recorded by their end events; the port-forward's exit code
    # belongs to the poll that saw the process exit, not to the call it outlived.
    assert outcomes(found.session) == ["ok", "ok", "inferred", "recorded", "recorded", "ok", "ok"]
    assert [c.name for c in found.session.tool_calls if not c.success] == [
        "write_stdin",
        "apply_patch",
        "kubernetes__configmaps_get",
    ]
    assert (found.session.tool_calls[3].error or "").startswith("the patch did not apply\napply_patch verification")


def test_fact_10_narration_announcing_the_next_action_is_never_the_conclusion() -> None:
    (found,) = read(FACTS / "openhands_v1_agent_error.jsonl")

    texts = [step.text for stage in found.session.stages for step in stage.steps]
    assert found.session.final_answer_source is None
    assert "Now let's list the pods:" in texts


def test_a_conversation_one_key_away_is_read_generically_and_says_where() -> None:
    (found,) = read(FACTS / "generic_history.json")

    assert (found.trace_format, found.location) == ("generic", "$.run.history")
    assert [c.name for c in found.session.tool_calls] == ["get_consumer_status"]
    assert (found.session.final_analysis or "").startswith("orders-dlq has 0 consumers")


def test_a_langgraph_agent_log_of_one_message_a_line_is_read_as_one_stream() -> None:
    (found,) = read(FAMILIES / "held_out" / "stratus--mongodb-auth.jsonl")

    assert found.trace_format == "generic"
    assert found.location == "$[*].messages (each line's messages, one JSON Lines stream)"
    assert len(found.session.tool_calls) == 4


STRATUS = FAMILIES / "held_out" / "stratus--cartservice-redis-noauth.jsonl"
"""Stratus's combined trajectory as its driver saves it: a metadata line, then for each stage a ``stage_start`` line
and one ``event`` line per graph step holding the whole conversation so far (LangChain class names, tool messages
with and without ``tool_call_id``, an event the driver could not serialise)."""


def stratus_lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in STRATUS.read_text(encoding="utf-8").splitlines()]


def read_lines(lines: list[dict[str, Any]], name: str = "stratus_agent_trajectory.jsonl") -> Read:
    (found,) = read_traces(load_text("\n".join(json.dumps(line) for line in lines), name))
    return found


def test_a_stratus_trajectory_reads_each_message_once_with_its_stages_failures_and_submitted_answers() -> None:
    found = read_lines(stratus_lines())

    assert found.trace_format == "generic"
    assert found.location == (
        "$[*].messages (each line's messages, one JSON Lines stream; lines repeat the conversation so far, each "
        "message read once; 2 stages by each line's stage)"
    )
    assert [stage.name for stage in found.session.stages] == ["diagnosis", "mitigation_attempt_0"]
    assert outcomes(found.session) == ["ok", "ok", "inferred", "ok", "ok", "ok", "inferred", "ok", "ok", "ok"]
    assert found.session.final_answer_source == "submit_tool:f_submit_tool"
    assert (found.session.final_analysis or "").startswith("Removed --requirepass from the redis-cart deployment")
    assert (found.session.stages[0].output or "").startswith("cartservice-7d9c6b5f4-q2xkz crash-loops because")
    assert found.session.stages[1].output is None
    assert found.session.agent_models == ["claude-sonnet-4-5-20250929"]
    assert {s.what: s.count for s in found.session.skipped_content} == {
        "'event' line(s) holding no messages": 1,
        "'metadata' line(s) holding no messages": 1,
        "'stage_start' line(s) holding no messages": 2,
        "message(s) a later line repeated (the whole conversation so far, a state snapshot)": 154,
        "system message(s)": 2,
    }


def test_a_stratus_trajectory_keeping_only_each_stage_last_event_reads_the_same_calls() -> None:
    lines = stratus_lines()
    last = {line["stage"]: index for index, line in enumerate(lines) if line.get("messages")}
    trimmed = [line for index, line in enumerate(lines) if "messages" not in line or index in last.values()]

    found = read_lines(trimmed)

    assert [c.arguments for c in found.session.tool_calls] == [
        c.arguments for c in read_lines(lines).session.tool_calls
    ]
    assert outcomes(found.session) == ["ok", "ok", "inferred", "ok", "ok", "ok", "inferred", "ok", "ok", "ok"]
    assert found.session.final_answer_source == "submit_tool:f_submit_tool"


def test_one_stratus_agent_trajectory_without_stages_is_one_conversation_answered_by_its_submit() -> None:
    lines = stratus_lines()
    events = [{k: v for k, v in line.items() if k != "stage"} for line in lines if line.get("stage") == "diagnosis"]
    header = {"type": "metadata", "agent_name": "diagnosis", "timestamp": "20261201_094107", "total_events": 11}

    found = read_lines([header, *[e for e in events if e["type"] == "event"]], "diagnosis_trajectory.jsonl")

    assert [stage.name for stage in found.session.stages] == ["conversation"]
    assert outcomes(found.session) == ["ok", "ok", "inferred", "ok", "ok"]
    assert found.session.final_answer_source == "submit_tool:submit_tool"
    assert (found.session.final_analysis or "").startswith("cartservice-7d9c6b5f4-q2xkz crash-loops because")


def test_a_tool_named_submit_whose_answer_acknowledges_nothing_is_evidence_not_the_answer() -> None:
    document = {
        "messages": [
            {"role": "user", "content": "Why did the nightly export not run?"},
            {"role": "assistant", "tool_calls": [{"id": "c1", "function": {"name": "submit_job", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "job.batch/export-manual-7k2 created"},
            {
                "role": "assistant",
                "content": "The export CronJob is suspended (spec.suspend: true); a manual run works.",
            },
        ]
    }
    (found,) = read_traces(load_text(json.dumps(document), "chat.json"))

    assert [c.name for c in found.session.tool_calls] == ["submit_job"]
    assert found.session.final_answer_source == "last_assistant_text"


def test_a_document_holding_no_conversation_is_refused_saying_what_was_looked_for_and_the_nearest() -> None:
    with pytest.raises(SessionDataError) as raised:
        read(FACTS / "no_conversation.json")

    assert "message-like objects" in raised.value.message
    assert (
        "the nearest thing found was $.run.metrics, an array of 2 objects with keys name, value" in raised.value.message
    )


def test_earlier_submits_are_attempts_not_evidence_and_the_last_is_the_answer() -> None:
    document = {
        "trajectory": [
            {"thought": "Read the flag file.", "action": "cat flag.txt\n", "observation": "ZmxhZ3t4fQ=="},
            {"thought": "Decode it.", "action": "submit flag{wrong}\n", "observation": "Wrong flag!"},
            {"thought": "Decode it properly.", "action": "submit flag{x}\n", "observation": "flag{x}"},
        ],
        "history": [{"role": "user", "content": "Find the flag.", "agent": "main"}],
        "info": {"exit_status": "submitted", "submission": "flag{x}"},
    }
    (found,) = read_traces(load_text(json.dumps(document), "ctf.traj"))

    assert [c.arguments["command"] for c in found.session.tool_calls] == ["cat flag.txt"]
    assert found.session.final_analysis == "flag{x}"


@pytest.mark.parametrize(
    "document",
    [
        {"trace": [{"role": "assistant", "content": "exec_shell(" + "(" * 5000 + ")" * 5000 + ")"}], "results": {}},
        {"trace": [{"role": "assistant", "content": 'exec_shell("a\\x00b")'}], "results": {}},
        {"messages": [{"role": "assistant", "content": "<function=x>" * 2000}], "response": {"choices": [{}]}},
        {"messages": [{"role": "user", "content": "[{'type': 'text'" + "[" * 3000}], "response": {"choices": []}},
        [{"kind": "ActionEvent", "action": 3, "thought": {"x": 1}, "tool_call_id": 7}, {"kind": "ObservationEvent"}],
        [{"action": "run", "source": "agent", "args": "text"}, {"observation": "run", "cause": [1], "extras": 2}],
        {"deep": {"er": [{"role": "user", "content": {"not": "text"}}, {"role": "assistant", "tool_calls": "x"}]}},
        {"eval": {}, "samples": [{"messages": [{"role": "tool", "error": "boom"}], "epoch": 1, "input": 2}]},
    ],
)
def test_a_hostile_document_is_read_or_refused_never_a_crash(document: object) -> None:
    try:
        sessions = read_traces(load_text(json.dumps(document), "hostile.json"))
    except SessionDataError:
        return
    assert sessions


def test_fact_7_aiopslab_react_actions_in_code_blocks_of_any_api_name() -> None:
    (found,) = read(FACTS / "aiopslab_react_actions.json")

    assert [c.name for c in found.session.tool_calls] == ["get_metrics", "get_metric_summary", "get_logs"]
    assert outcomes(found.session) == ["ok", "ok", "inferred"]
    assert reasoning_steps(found.session) == 4
    assert (found.session.final_analysis or "").startswith("user-timeline-service\n\nuser-timeline-service holds")


def test_fact_7_an_action_right_after_its_header_and_an_empty_action_are_read_as_written() -> None:
    document = {
        "trace": [
            {"role": "assistant", "content": "Action:```\n\n```"},
            {"role": "env", "content": "Error parsing response: No API call found!"},
            {"role": "assistant", "content": "Action:```\nsubmit('yes')\n```"},
            {"role": "env", "content": "1"},
        ],
        "results": {"Detection Accuracy": "Correct"},
    }
    (found,) = read_traces(load_text(json.dumps(document), "detection.json"))

    assert found.session.tool_calls == []
    assert (found.session.final_answer_source, found.session.final_analysis) == ("submit_tool:submit", "yes")


def test_fact_7_aiopslab_shell_and_parser_errors_written_as_text_are_failures() -> None:
    """AIOpsLab answers a command its container could not run with ``[ERROR] Docker command execution failed`` and
    an action it could not parse with ``Error parsing response``: neither call returned evidence."""
    (found,) = read(FACTS / "aiopslab_shell_errors.json")

    assert outcomes(found.session) == ["ok", "inferred", "inferred", "ok"]
    assert found.session.final_answer_source == "submit_tool:submit"


def test_fact_3_openhands_v0_state_changes_are_not_calls_and_an_unsuccessful_command_fails() -> None:
    """The environment's ``change_agent_state`` actions are OpenHands' bookkeeping; a foreground server that held the
    terminal (exit code -1, ``success: false``) and the interrupt that stopped it are failed calls."""
    (found,) = read(FACTS / "openhands_v0_foreground_server.json")

    assert found.session.tool_calls[0].arguments.get("command") == "ls /srv/status"
    assert outcomes(found.session) == ["ok", "recorded", "recorded", "ok"]
    assert found.session.final_answer_source == "finish action"


def test_fact_9_a_traceback_after_return_code_0_is_a_failure_and_a_run_that_crashed_has_no_answer() -> None:
    """``python3 -c ... | tail`` exits 0 with the traceback of the command that died: a failure. A traceback among
    a service's log lines is evidence. A run that stopped on an API error is failed with that error, and the
    error's text is not its conclusion."""
    (found,) = read(FACTS / "mini_swe_agent_crashed.traj.json")

    assert outcomes(found.session) == ["ok", "inferred", "ok"]
    assert "ImportError: cannot import name 'Settings'" in (found.session.tool_calls[1].error or "")
    assert found.session.final_analysis is None
    assert found.session.status == "failed"
    assert found.session.error == (
        "the agent stopped on InternalServerError: litellm.InternalServerError: the model is overloaded, "
        "try again later"
    )


@pytest.mark.parametrize(
    ("exit_status", "answered"), [("Submitted", True), ("submitted", True), ("LimitsExceeded", False)]
)
def test_fact_2_the_exit_message_is_the_answer_only_when_the_run_submitted(exit_status: str, answered: bool) -> None:
    document = {
        "info": {"exit_status": exit_status, "submission": ""},
        "messages": [
            {"role": "user", "content": "Why is checkout slow?"},
            {"role": "assistant", "content": "THOUGHT: Check the pods.\n\n```bash\nkubectl get pods -n shop\n```"},
            {"role": "user", "content": "<returncode>0</returncode>\n<output>\ncheckout-1 1/1 Running\n</output>"},
            {"role": "exit", "content": "checkout is throttled by its CPU limit" if answered else exit_status},
        ],
    }
    (found,) = read_traces(load_text(json.dumps(document), "run.traj.json"))

    assert found.session.status == "completed"
    if answered:
        assert found.session.final_analysis == "checkout is throttled by its CPU limit"
    else:
        assert found.session.final_analysis != exit_status


def test_fact_3_an_openhands_evaluation_output_is_one_session_per_record_read_as_its_event_list() -> None:
    """``output.jsonl`` of an OpenHands evaluation: a record per line, its events under ``history``; a call OpenHands
    refused before it ran (an error observation without a cause) is a failed call of its own."""
    first, second = read(FACTS / "openhands_eval_output.jsonl")

    assert (first.trace_format, second.trace_format) == ("openhands-events", "openhands-events")
    assert (first.session.session_id, second.session.session_id) == ("ops__ledger-replica-lag", "ops__dns-timeouts")
    assert [c.name for c in first.session.tool_calls] == ["run", "str_replace_editor", "run"]
    assert outcomes(first.session) == ["ok", "recorded", "ok"]
    assert (first.session.final_analysis or "").startswith("The replica's WAL receiver times out")
    assert outcomes(second.session) == ["recorded"]


def test_tool_results_written_as_user_text_pair_with_their_calls_and_attempt_completion_is_the_answer() -> None:
    """Cline sends each result as the next user turn's text (``[execute_command for '...'] Result:``) and answers
    through ``attempt_completion``."""
    (found,) = read(FACTS / "cline_text_results.json")

    assert [c.name for c in found.session.tool_calls] == ["read_file", "execute_command", "execute_command"]
    assert (found.session.tool_calls[0].result or "").startswith("2026-12-01 02:00:01 backup start")
    assert outcomes(found.session) == ["ok", "inferred", "ok"]
    assert found.session.final_answer_source == "submit_tool:attempt_completion"
    assert (found.session.final_analysis or "").startswith("The backup job fails at login")
