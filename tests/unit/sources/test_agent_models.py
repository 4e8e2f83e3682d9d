"""The agent's model(s), where the recording says: a judge of the same family may favour the agent
(self-preference, docs/judges.md)."""

from __future__ import annotations

import json
from pathlib import Path

from session_scoring.sources.documents import parse_trace
from session_scoring.sources.formats import TraceDocument
from session_scoring.sources.tarsy import parse_detailed_session
from session_scoring.sources.tarsy_go import parse_go_session
from tests.support.tarsy_fixtures import REACT_ID, detailed

TRACES = Path(__file__).resolve().parents[2] / "fixtures" / "traces"


def test_tarsy_bot_sessions_name_the_models_of_their_llm_interactions() -> None:
    assert parse_detailed_session(detailed(REACT_ID), "t").agent_models == ["gemini-2.5-pro"]


def test_tarsy_go_sessions_name_each_executions_model() -> None:
    session = {
        "id": "go-1",
        "status": "completed",
        "stages": [
            {
                "id": "st-1",
                "stage_name": "investigate",
                "executions": [
                    {"execution_id": "e1", "agent_name": "A", "model_name": "gemini-3-flash"},
                    {"execution_id": "e2", "agent_name": "B", "model_name": "claude-sonnet-4-6"},
                ],
            }
        ],
    }
    assert parse_go_session(session, {"events": []}, "t").agent_models == ["gemini-3-flash", "claude-sonnet-4-6"]


def test_openai_chat_documents_name_their_model() -> None:
    document = {"model": "gpt-5", "messages": [{"role": "user", "content": "why is the pod crashing?"}]}
    _format, session = parse_trace(TraceDocument(document, "chat.json"))
    assert session.agent_models == ["gpt-5"]


def test_opentelemetry_traces_name_gen_ai_request_model() -> None:
    content = json.loads((TRACES / "otel_genai_oom.json").read_text())
    _format, session = parse_trace(TraceDocument(content, "otel.json"))
    assert session.agent_models == ["gpt-4.1"]


def test_codex_and_claude_code_sessions_name_their_models() -> None:
    for name, model in (
        ("codex_cert_expiry.jsonl", "gpt-5-codex"),
        ("claude_code_node_notready.jsonl", "claude-sonnet-4-5"),
    ):
        text = (TRACES / name).read_text()
        content = [json.loads(line) for line in text.splitlines() if line.strip()]
        _format, session = parse_trace(TraceDocument(content, name))
        assert session.agent_models == [model], name
