"""Real agents' recordings, imported unchanged through POST .../sessions:import: the shapes they are saved in (line
types the importer does not read, LangChain class names, answers before a simulated user's stop or given through a
submit tool, failures written as text, narration, duplicated reasoning, timestamps, many trajectories in one file),
what the import answer says, what is stored, and what the judges are shown. Also the documents the import refuses
before they can exhaust the parser or the database: nesting too deep, a NUL character in a string."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from session_scoring.models.session import Session
from tests.conftest import Stack
from tests.integration.test_trace_imports import IMPORT, _prompt_text, _score
from tests.support.labelled_traces import TRACES

FACTS = TRACES / "facts"


@dataclass(frozen=True)
class Fact:
    fixture: str
    trace_format: str
    outcomes: list[str]
    reasoning_steps: int
    final_answer_source: str
    final_answer_starts: str
    durations: list[int | None] | None = None
    duration_ms: int | None = None
    skipped: tuple[str, ...] = ()


FACT_CASES = [
    Fact(
        "claude_code_current_lines.jsonl",
        "claude-code-jsonl",
        ["ok", "ok", "recorded", "inferred", "ok"],
        4,
        "last_assistant_text",
        "ledger-api cannot start",
        [1250, 800, 700, 1500, 800],
        16_000,
        ("Claude Code 'queue-operation' line(s)", "Claude Code 'attachment' line(s)", "Claude Code 'ai-title' line(s)",
         "Claude Code 'last-prompt' line(s)"),
    ),
    Fact(
        "codex_rollout_narrated.jsonl",
        "codex-jsonl",
        ["ok", "inferred", "ok", "ok"],
        4,
        "last_assistant_text",
        "invoice-export failed at 02:00:04",
        [1200, 250, 800, 800],
        14_100,
        ("Codex 'x_telemetry' line(s)", "'ghost_snapshot' item(s)", "Codex 'event_msg' line(s) (agent_message)"),
    ),
    Fact("langchain_class_names.json", "openai-chat", ["ok", "recorded", "inferred"], 2, "last_assistant_text",
         "memcached on cache-2"),
    Fact("tau_bench_stop.json", "openai-chat", ["ok", "ok"], 0, "last_assistant_text", "Your return for the Water"),
    Fact("submit_tool_answer.json", "openai-chat", ["ok", "ok", "ok"], 3, "submit_tool:submit",
         "checkout-web (gunicorn, PID 4412)"),
    Fact("failures_as_text.json", "openai-chat", ["inferred"] * 5 + ["ok", "ok", "recorded"], 0,
         "last_assistant_text", "The gateway answers 503"),
    Fact("holmes_duplicated_reasoning.json", "openai-chat", ["ok", "ok"], 2, "last_assistant_text",
         "pg_wal holds 41G"),
]  # fmt: skip


def outcomes(session: Session) -> list[str]:
    return [
        "ok" if call.success else ("inferred" if call.failure_inferred else "recorded") for call in session.tool_calls
    ]


def upload(stack: Stack, name: str, body: bytes | None = None) -> Any:
    content = (FACTS / name).read_bytes() if body is None else body
    return stack.client.post(IMPORT, params={"file_name": name}, content=content)


def uploads_stored(stack: Stack) -> int:
    return int(stack.container.uploads.count())


@pytest.mark.parametrize("fact", FACT_CASES, ids=[f.fixture for f in FACT_CASES])
def test_a_recording_imported_as_saved_keeps_calls_failures_reasoning_answer_and_durations(
    stack: Stack, fact: Fact
) -> None:
    response = upload(stack, fact.fixture)

    assert response.status_code == 201, response.text
    answer = response.json()
    stored = stack.container.uploads.get_session(answer["session_id"])
    assert answer["trace_format"] == fact.trace_format
    assert outcomes(stored) == fact.outcomes
    assert (answer["tool_calls"], answer["failed_tool_calls"], answer["inferred_failures"]) == (
        len(fact.outcomes),
        sum(o != "ok" for o in fact.outcomes),
        fact.outcomes.count("inferred"),
    )
    assert all(call.error for call in stored.tool_calls if not call.success)
    assert all(call.result is not None for call in stored.tool_calls if call.failure_inferred)
    assert answer["reasoning_steps"] == fact.reasoning_steps
    assert answer["final_answer_source"] == stored.final_answer_source == fact.final_answer_source
    assert stored.final_analysis is not None
    assert stored.final_analysis.startswith(fact.final_answer_starts)
    if fact.durations is not None:
        assert [call.duration_ms for call in stored.tool_calls] == fact.durations
    assert answer["duration_ms"] == fact.duration_ms
    skipped = {item["what"]: item for item in answer["skipped"]}
    for what in fact.skipped:
        assert skipped[what]["count"] >= 1, what
        assert skipped[what]["reason"], what
    assert answer["sessions"] == [
        {key: answer[key] for key in answer["sessions"][0]}
    ]  # one session, described the same way at the top


def test_the_judges_are_shown_which_failures_were_inferred_and_where_the_answer_came_from(
    claude_stack: Stack, fake_claude: Any
) -> None:
    failures = upload(claude_stack, "failures_as_text.json").json()["session_id"]
    submitted = upload(claude_stack, "submit_tool_answer.json").json()["session_id"]

    _score(claude_stack, failures)
    failures_prompt = _prompt_text(fake_claude.requests[-1])
    _score(claude_stack, submitted)
    submitted_prompt = _prompt_text(fake_claude.requests[-1])

    inferred = "ERROR (inferred from the output; the agent's framework recorded success): "
    assert failures_prompt.count(inferred) == 5
    assert inferred + "bash: stern: command not found" in failures_prompt
    assert "    ERROR: connection reset by peer" in failures_prompt  # recorded by the framework: said plainly
    assert "(the agent submitted this answer through the tool submit)" in submitted_prompt


def test_the_offline_judge_counts_inferred_failures_as_no_evidence(stack: Stack) -> None:
    session_id = upload(stack, "failures_as_text.json").json()["session_id"]

    score = _score(stack, session_id)

    reasoning = score["score_reasoning"]
    assert "8 tool call(s), 2 of them successful" in reasoning
    assert "kubectl failed (error: You must be logged in to the server (Unauthorized)) and no later call" in reasoning
    assert "http_get failed and the agent turned to get_logs" in reasoning


def test_a_results_file_of_many_trajectories_is_stored_as_one_session_each(stack: Stack) -> None:
    response = upload(stack, "benchmark_results.json")

    assert response.status_code == 201, response.text
    answer = response.json()
    sessions = answer["sessions"]
    assert [s["original_session_id"] for s in sessions] == ["100", "101", "102"]
    assert [s["inferred_failures"] for s in sessions] == [0, 1, 0]
    assert answer["session_id"] == sessions[0]["session_id"]
    assert response.headers["location"].endswith(sessions[0]["session_id"])
    assert {item["what"]: item["count"] for item in answer["skipped"]} == {"system message(s)": 3}
    listed = {item["session_id"] for item in stack.client.get("/api/v1/scoring/sessions").json()["items"]}
    assert {s["session_id"] for s in sessions} <= listed
    second = stack.container.uploads.get_session(sessions[1]["session_id"])
    assert second.final_analysis == "Reservation 8JX2WO is not cancellable under the policy."
    assert _score(stack, sessions[1]["session_id"])["status"] == "completed"


@pytest.mark.parametrize("depth", [300, 500, 900, 100_000])
@pytest.mark.parametrize("lines", [False, True], ids=["json", "jsonl"])
def test_a_document_nested_too_deep_gets_400_naming_the_limit_and_stores_nothing(
    stack: Stack, depth: int, lines: bool
) -> None:
    # Inside a tool call's arguments, which the session keeps as structure (not flattened to text).
    arguments = '{"filter": ' + "[" * depth + "]" * depth + "}"
    if lines:
        call = '{"type": "tool_use", "id": "t1", "name": "query", "input": ' + arguments + "}"
        body = (
            '{"type": "user", "message": {"role": "user", "content": "why?"}}\n'
            '{"type": "assistant", "message": {"role": "assistant", "content": [' + call + "]}}\n"
        )
    else:
        call = '{"id": "c1", "type": "function", "function": {"name": "query", "arguments": ' + arguments + "}}"
        body = (
            '{"messages": [{"role": "user", "content": "why?"}, '
            '{"role": "assistant", "content": "", "tool_calls": [' + call + "]}]}"
        )

    response = stack.client.post(
        IMPORT, params={"file_name": "deep.jsonl" if lines else "deep.json"}, content=body.encode()
    )

    assert response.status_code == 400, response.text[:300]
    detail = response.json()["detail"]
    assert "the limit is 100 levels" in detail
    assert ("(line 2)" in detail) == lines
    assert uploads_stored(stack) == 0


def test_a_document_nested_just_within_the_limit_is_stored_and_read_back(stack: Stack) -> None:
    result = "[" * 90 + '"deep"' + "]" * 90
    body = json.dumps(
        {
            "messages": [
                {"role": "user", "content": "read it"},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": {"name": "t"}}]},
                {"role": "tool", "tool_call_id": "c", "content": "placeholder"},
                {"role": "assistant", "content": "done"},
            ]
        }
    ).replace('"placeholder"', json.dumps(result))

    response = stack.client.post(IMPORT, params={"file_name": "within.json"}, content=body.encode())

    assert response.status_code == 201, response.text[:300]
    stored = stack.container.uploads.get_session(response.json()["session_id"])
    assert stored.tool_calls[0].result is not None
    assert _score(stack, response.json()["session_id"])["status"] == "completed"


@pytest.mark.parametrize(
    ("name", "body", "where"),
    [
        (
            "chat.json",
            json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a\u0000b"}]}),
            "$.messages[1].content",
        ),
        (
            "log.jsonl",
            '{"type": "user", "message": {"role": "user", "content": "x"}}\n'
            '{"type": "assistant", "message": {"role": "assistant", '
            '"content": [{"type": "text", "text": "\\u0000"}]}}\n',
            "line 2: $.message.content[0].text",
        ),
    ],
)
def test_a_nul_character_in_a_string_gets_400_naming_where_it_is_and_stores_nothing(
    stack: Stack, name: str, body: str, where: str
) -> None:
    response = stack.client.post(IMPORT, params={"file_name": name}, content=body.encode())

    assert response.status_code == 400, response.text[:300]
    assert f"{name}: {where}: a string holds a NUL character" in response.json()["detail"]
    assert uploads_stored(stack) == 0


def test_a_lone_surrogate_in_a_string_gets_400_naming_where_it_is_and_stores_nothing(stack: Stack) -> None:
    body = '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x\\ud800"}]}'

    response = stack.client.post(IMPORT, params={"file_name": "chat.json"}, content=body.encode())

    assert response.status_code == 400, response.text[:300]
    assert "chat.json: $.messages[1].content: a string holds a lone surrogate" in response.json()["detail"]
    assert uploads_stored(stack) == 0


@pytest.mark.parametrize("field", ["alert_type", "agent_type", "session_id"])
def test_a_name_longer_than_its_column_gets_400_naming_the_field_and_stores_nothing(stack: Stack, field: str) -> None:
    """An alert type, agent type or session id is stored in a 255-character column: a longer one is refused with the
    field and the limit, not failed by the database (500)."""
    document: dict[str, Any] = {
        "format": "session-scoring/v1",
        "session_id": "long-names",
        "status": "completed",
        "alert_type": "PodCrashLooping",
        "agent_type": "KubernetesAgent",
        "final_analysis": "The pod crashed.",
        "stages": [],
    }
    document[field] = "o" * 100_000

    response = stack.client.post(IMPORT, params={"file_name": "long.json"}, content=json.dumps(document).encode())

    assert response.status_code == 400, response.text[:300]
    assert f"the session's {field} is 100000 characters long; the limit is 255" in response.json()["detail"]
    assert uploads_stored(stack) == 0
