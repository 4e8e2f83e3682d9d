"""Contract: the adapters parse TARSy's own published response shapes (../shared/reference/tarsy).

The reference files are not part of this repository; a user's checkout has no ``../shared`` and these tests skip.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from session_scoring.judge.rendering import render_conversation
from session_scoring.sources.documents import parse_session_document
from session_scoring.sources.tarsy_go import parse_go_session

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference" / "tarsy"

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"no TARSy reference shapes at {REFERENCE}")


def _golden(name: str) -> Any:
    """The Go goldens hold placeholders: quoted timestamps and unquoted numbers."""
    text = (REFERENCE / name).read_text(encoding="utf-8").replace('"{TIMESTAMP}"', '"2026-01-01T00:00:00Z"')
    return json.loads(re.sub(r"(?<=: )\{[A-Z_0-9]+\}(?=[,\n])", "0", text))


@pytest.mark.parametrize("key", ["final_analysis_response_llm_only", "final_analysis_response_with_chat"])
def test_tarsy_bot_final_analysis_responses(key: str) -> None:
    document = json.loads((REFERENCE / "tarsy-bot_history_e2e.json").read_text(encoding="utf-8"))[key]

    session = parse_session_document(document, key, include_chat=True)

    assert session.status == "completed"
    assert [s.name for s in session.stages[:3]] == ["data-collection", "verification", "analysis"]
    assert session.final_analysis == document["final_analysis"]
    if document.get("chat_conversation"):
        assert session.stages[-1].is_chat
        assert [c.qualified_name for c in session.tool_calls] == ["kubernetes-server.kubectl_get"]


def test_tarsy_bot_stage_conversation_in_react_style() -> None:
    conversations = json.loads((REFERENCE / "tarsy-bot_history_e2e.json").read_text(encoding="utf-8"))[
        "stage_conversations"
    ]
    data_collection = next(v for k, v in conversations.items() if k.startswith("data-collection"))
    document = {
        "session_id": "reference",
        "status": "completed",
        "llm_conversation": {"model_name": "m", "messages": data_collection["messages"]},
        "alert_data": {},
    }

    session = parse_session_document(document, "reference")

    calls = session.tool_calls
    assert [c.name for c in calls] == ["kubectl_get", "kubectl_describe", "collect_system_info", "kubectl_get"]
    assert not calls[1].success
    assert "not found" in (calls[1].error or "")
    assert calls[2].result_summarized
    assert session.stages[-1].steps[-1].kind == "answer"


def test_tarsy_go_session_and_timeline() -> None:
    session = parse_go_session(_golden("tarsy-go_session.golden"), _golden("tarsy-go_timeline.golden"), "golden")

    assert session.final_analysis
    assert "HPA" in session.final_analysis
    assert {s.agent for s in session.stages} >= {"DataCollector", "Remediator", "ConfigValidator", "MetricsValidator"}
    assert {c.name for c in session.tool_calls} >= {"get_nodes", "get_pods", "get_pod_logs", "get_resource_config"}
    transcript = render_conversation(session)
    assert all(f"TOOL CALL {c.qualified_name}" in transcript for c in session.tool_calls)
