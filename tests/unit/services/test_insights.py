"""The fleet query's cursor and the training export's conversation, without a database."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import pytest

from session_scoring.errors import InvalidRequestError
from session_scoring.models.insights import FleetFilter, FleetOrder, FleetScoreRecord
from session_scoring.models.scores import ScoreStatus
from session_scoring.models.session import Session, Stage, Step, ToolCall
from session_scoring.services.exports import to_openai_chat
from session_scoring.services.insights import decode_cursor, encode_cursor
from session_scoring.sources.documents import parse_trace
from session_scoring.sources.formats import TraceDocument

WHERE = FleetFilter(criteria_hash="a" * 64, min_score=50)


def _row(scored_at: datetime) -> FleetScoreRecord:
    return FleetScoreRecord(
        score_id=uuid.uuid4(),
        session_id="s",
        criteria_hash="a" * 64,
        status=ScoreStatus.COMPLETED,
        total_score=70,
        score_breakdown={"consistency": 20},
        requested_at=scored_at,
        scored_at=scored_at,
        judge_provider="test",
        judge_model="m",
        facts=None,
        missing_tools=(),
    )


@pytest.mark.parametrize(("key", "value"), [("scored_at", datetime(2026, 11, 2, tzinfo=UTC)), ("consistency", 20)])
def test_a_cursor_returns_the_last_rows_position(key: str, value: object) -> None:
    row = _row(datetime(2026, 11, 2, tzinfo=UTC))
    cursor = encode_cursor(WHERE, FleetOrder(key), row)
    position = decode_cursor(cursor, WHERE, key, descending=True)
    assert (position.value, position.score_id) == (value, row.score_id)


def test_a_cursor_is_refused_with_other_filters_another_sort_or_tampered() -> None:
    cursor = encode_cursor(WHERE, FleetOrder("scored_at"), _row(datetime(2026, 11, 2, tzinfo=UTC)))
    with pytest.raises(InvalidRequestError, match="other filters or another sort"):
        decode_cursor(cursor, FleetFilter(criteria_hash=None), "scored_at", descending=True)
    with pytest.raises(InvalidRequestError, match="other filters or another sort"):
        decode_cursor(cursor, WHERE, "scored_at", descending=False)
    with pytest.raises(InvalidRequestError, match="invalid cursor"):
        decode_cursor(cursor[:-4], WHERE, "scored_at", descending=True)


def test_the_conversation_keeps_each_call_with_its_result_and_the_chat_turns() -> None:
    session = Session(
        session_id="s",
        status="completed",
        agent_type="KubernetesAgent",
        alert={"pod": "api-1"},
        stages=[
            Stage(
                name="investigate",
                steps=[
                    Step(kind="reasoning", text="Check the pod."),
                    Step(kind="tool_call", tool_call=ToolCall(name="get_pod", server="k8s.io", arguments={"n": 1})),
                    Step(kind="tool_call", tool_call=ToolCall(name="logs", success=False, error="timeout")),
                    Step(kind="answer", text="OOM."),
                ],
            ),
            Stage(name="chat", is_chat=True, steps=[Step(kind="message", text="User: why?")], output="Memory."),
        ],
        final_analysis="The pod ran out of memory.",
    )
    messages, tools = to_openai_chat(session)
    rows = [m.model_dump(exclude_none=True) for m in messages]
    assert [m["role"] for m in rows] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "assistant",
    ]
    assert rows[0]["content"] == json.dumps({"pod": "api-1"})
    assert rows[1]["content"] == "Check the pod."
    assert rows[1]["tool_calls"][0]["function"] == {"name": "k8s_io__get_pod", "arguments": '{"n": 1}'}
    assert rows[2] == {"role": "tool", "tool_call_id": rows[1]["tool_calls"][0]["id"], "content": "null"}
    assert rows[4]["content"] == "error: timeout"
    assert rows[6] == {"role": "user", "content": "why?"}
    assert rows[7]["content"] == "Memory."
    assert rows[-1]["content"] == "The pod ran out of memory."
    assert [t.function.name for t in tools] == ["k8s_io__get_pod", "logs"]


def test_an_imported_conversation_exports_its_own_turns_only() -> None:
    """An uploaded chat with a system prompt (the importer drops it, with a note) and the alert in the envelope and in
    the user's first turn: the export invents no system prompt, keeps no importer note and says the task once."""
    task = "Alert CertificateExpiring on ingress-web: the certificate expires in 2 days."
    _, session = parse_trace(
        TraceDocument(
            {
                "alert_type": "CertificateExpiring",
                "agent_type": "KubernetesAgent",
                "alert": {"message": task},
                "messages": [
                    {"role": "system", "content": "You are a careful SRE. Never guess."},
                    {"role": "user", "content": task},
                    {
                        "role": "assistant",
                        "content": "Let me read the certificate.",
                        "tool_calls": [
                            {"id": "c1", "function": {"name": "get_certificate", "arguments": '{"name": "web"}'}}
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": "notAfter: 2026-12-03"},
                    {"role": "assistant", "content": "The certificate expires on 2026-12-03: renew it now."},
                ],
            },
            "upload.json",
        )
    )
    assert session.skipped_content  # the importer did drop the system prompt (and said so in a step)

    messages, _ = to_openai_chat(session)
    rows = [m.model_dump(exclude_none=True) for m in messages]
    text = json.dumps(rows)

    assert [m["role"] for m in rows] == ["user", "assistant", "tool", "assistant"]
    assert rows[0]["content"] == task
    assert text.count("CertificateExpiring on ingress-web") == 1
    assert "not shown" not in text
    assert "You are" not in text
    assert rows[-1]["content"] == "The certificate expires on 2026-12-03: renew it now."


def test_a_stage_output_that_is_the_final_analysis_is_said_once() -> None:
    session = Session(
        session_id="s",
        status="completed",
        alert={"pod": "api-1"},
        stages=[Stage(name="analysis", steps=[Step(kind="reasoning", text="Looking.")], output="OOM killed.")],
        final_analysis="OOM killed.",
    )
    messages, _ = to_openai_chat(session)

    assert [(m.role, m.content) for m in messages] == [
        ("user", json.dumps({"pod": "api-1"})),
        ("assistant", "Looking."),
        ("assistant", "OOM killed."),
    ]
