"""The second sample's families uploaded as saved through POST .../sessions:import: the answer names the reader, the
calls and their failures (recorded and inferred), the reasoning, the final answer's source, what was skipped, and,
for a conversation no reader claims, that it was read generically and where it was found; a document holding no
conversation is a 400 saying what was looked for and the nearest thing found."""

from __future__ import annotations

from typing import Any

from tests.conftest import Stack
from tests.integration.test_trace_imports import IMPORT
from tests.support.degraded_twins import FAMILIES
from tests.support.labelled_traces import TRACES

FACTS = TRACES / "facts"


def upload(stack: Stack, path: Any) -> Any:
    return stack.client.post(IMPORT, params={"file_name": path.name}, content=path.read_bytes())


def test_a_mini_swe_agent_trajectory_says_its_reader_failures_and_answer_source(stack: Stack) -> None:
    response = upload(stack, FAMILIES / "tuned" / "mini-swe-agent--node-disk-full.traj.json")

    assert response.status_code == 201, response.text
    answer = response.json()
    assert (answer["trace_format"], answer["read_generically"], answer["conversation_at"]) == (
        "mini-swe-agent-trajectory",
        False,
        None,
    )
    assert (answer["tool_calls"], answer["failed_tool_calls"]) == (4, 1)
    assert (answer["recorded_failures"], answer["inferred_failures"]) == (0, 1)
    assert answer["reasoning_steps"] == 5
    assert answer["final_answer_source"] == "info.submission"
    assert [item["what"] for item in answer["skipped"]] == ["system message(s)"]


def test_an_inspect_log_stores_one_session_per_sample_with_its_recorded_failure(stack: Stack) -> None:
    response = upload(stack, FACTS / "inspect_two_samples.json")

    assert response.status_code == 201, response.text
    sessions = response.json()["sessions"]
    assert [s["original_session_id"] for s in sessions] == ["1", "2"]
    assert [s["trace_format"] for s in sessions] == ["inspect-ai-sample"] * 2
    assert [s["recorded_failures"] for s in sessions] == [0, 1]
    assert [s["final_answer_source"] for s in sessions] == ["output.choices"] * 2


def test_a_conversation_no_reader_claims_is_read_generically_and_the_answer_says_where(stack: Stack) -> None:
    response = upload(stack, FACTS / "generic_history.json")

    assert response.status_code == 201, response.text
    answer = response.json()
    assert (answer["trace_format"], answer["read_generically"], answer["conversation_at"]) == (
        "generic",
        True,
        "$.run.history",
    )
    assert answer["tool_calls"] == 1
    assert answer["final_answer_source"] == "last_assistant_text"


def test_a_stratus_trajectory_uploads_as_saved_with_its_stages_failures_and_submitted_answer(stack: Stack) -> None:
    response = upload(stack, FAMILIES / "held_out" / "stratus--cartservice-redis-noauth.jsonl")

    assert response.status_code == 201, response.text
    answer = response.json()
    assert (answer["trace_format"], answer["read_generically"]) == ("generic", True)
    assert answer["conversation_at"].startswith("$[*].messages (each line's messages, one JSON Lines stream")
    assert (answer["tool_calls"], answer["failed_tool_calls"]) == (10, 2)
    assert (answer["recorded_failures"], answer["inferred_failures"]) == (0, 2)
    assert answer["final_answer_source"] == "submit_tool:f_submit_tool"
    assert "'stage_start' line(s) holding no messages" in [item["what"] for item in answer["skipped"]]


def test_a_document_holding_no_conversation_is_a_400_naming_the_nearest_thing_found(stack: Stack) -> None:
    response = upload(stack, FACTS / "no_conversation.json")

    assert response.status_code == 400, response.text
    detail = response.json()["detail"]
    assert "message-like objects" in detail
    assert "the nearest thing found was $.run.metrics, an array of 2 objects with keys name, value" in detail
    assert stack.container.uploads.count() == 0
