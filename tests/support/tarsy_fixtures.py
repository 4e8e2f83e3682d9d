"""Our own TARSy-shaped fixtures (tests/fixtures/tarsy), written in the real response shapes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tarsy"

REACT_ID = "0b9e2f4c-3a1d-4c5e-8f70-1a2b3c4d5e01"
REACT_CHAT_ID = "0b9e2f4c-3a1d-4c5e-8f70-1a2b3c4d5e02"
NATIVE_ID = "0b9e2f4c-3a1d-4c5e-8f70-1a2b3c4d5e03"
PARALLEL_ID = "0b9e2f4c-3a1d-4c5e-8f70-1a2b3c4d5e04"
FAILED_ID = "0b9e2f4c-3a1d-4c5e-8f70-1a2b3c4d5e05"
FINAL_ANALYSIS_ID = "0b9e2f4c-3a1d-4c5e-8f70-1a2b3c4d5e06"
TRANSCRIPT_ID = "0b9e2f4c-3a1d-4c5e-8f70-1a2b3c4d5e07"
GO_ID = "0b9e2f4c-3a1d-4c5e-8f70-1a2b3c4d5e08"

DETAILED = {
    REACT_ID: "react_multistage.json",
    REACT_CHAT_ID: "react_with_chat.json",
    NATIVE_ID: "native_thinking.json",
    PARALLEL_ID: "parallel_agents.json",
    FAILED_ID: "failed_stage.json",
}


def load(name: str) -> Any:
    """A fresh copy of a fixture (tests may change it)."""
    return copy.deepcopy(json.loads((FIXTURES / name).read_text(encoding="utf-8")))


def detailed(session_id: str) -> dict[str, Any]:
    document: dict[str, Any] = load(DETAILED[session_id])
    return document


def recorded_tool_calls(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Every ``tool_call`` MCP communication of a DetailedSession, parallel children included."""
    calls: list[dict[str, Any]] = []

    def visit(stage: dict[str, Any]) -> None:
        calls.extend(
            event["details"]
            for event in stage["mcp_communications"]
            if event["details"]["communication_type"] == "tool_call"
        )
        for child in stage.get("parallel_executions") or []:
            visit(child)

    for stage in document["stages"]:
        visit(stage)
    return calls
