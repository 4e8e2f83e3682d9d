"""The offline heuristic judge: its documented rules, and that it is deterministic."""

from __future__ import annotations

import json
from typing import Any

from session_scoring.judge.heuristic import assess
from session_scoring.models.session import Session
from tests.conftest import FAILING_TOOLS_ID, SAMPLES, SHALLOW_ID, THOROUGH_ID


def sample(session_id: str) -> Session:
    return Session.model_validate_json((SAMPLES / f"{session_id}.json").read_text())


def session_with(steps: list[dict[str, Any]], final: str | None, tools: list[str] | None = None) -> Session:
    return Session.model_validate(
        {
            "session_id": "h-1",
            "status": "completed",
            "available_tools": [{"server": "k8s", "name": n} for n in (tools or [])],
            "stages": [{"name": "s", "steps": steps}],
            "final_analysis": final,
        }
    )


def call(name: str, args: dict[str, Any] | None = None, result: Any = "ok", error: str | None = None) -> dict[str, Any]:
    return {
        "kind": "tool_call",
        "tool_call": {
            "server": "k8s",
            "name": name,
            "arguments": args or {},
            "result": result,
            "success": error is None,
            "error": error,
        },
    }


def test_same_session_always_gets_the_same_verdict() -> None:
    assert assess(sample(SHALLOW_ID)) == assess(sample(SHALLOW_ID))


def test_thorough_investigation_outscores_shallow_and_failing_ones() -> None:
    thorough = assess(sample(THOROUGH_ID)).total_score
    assert thorough > assess(sample(SHALLOW_ID)).total_score
    assert thorough > assess(sample(FAILING_TOOLS_ID)).total_score


def test_every_field_is_filled_and_consistent() -> None:
    verdict = assess(sample(SHALLOW_ID))
    assert verdict.total_score == verdict.score_breakdown.total()
    assert "heuristic judge" in verdict.score_reasoning
    assert verdict.missing_tools
    assert verdict.alternative_approaches
    assert all(a.steps for a in verdict.alternative_approaches)


def test_unused_forensic_tools_become_missing_tools() -> None:
    verdict = assess(session_with([call("pods_get")], "pod ok", tools=["pods_get", "pods_log", "files_list"]))
    assert {t.tool_name for t in verdict.missing_tools} == {"k8s.pods_log", "k8s.files_list"}


def test_failure_never_worked_around_costs_logical_flow() -> None:
    recovered = assess(session_with([call("a", error="boom"), call("b", result="value-123")], "value-123"))
    abandoned = assess(session_with([call("b", result="value-123"), call("a", error="boom")], "value-123"))
    assert abandoned.score_breakdown.logical_flow < recovered.score_breakdown.logical_flow
    assert "never attempted an alternative" in abandoned.score_reasoning


def test_repeated_identical_calls_are_penalised() -> None:
    once = assess(session_with([call("a", {"x": 1}, "alpha-1")], "alpha-1"))
    thrice = assess(session_with([call("a", {"x": 1}, "alpha-1")] * 3, "alpha-1"))
    assert thrice.score_breakdown.logical_flow == once.score_breakdown.logical_flow - 4


def test_high_confidence_on_little_evidence_costs_consistency() -> None:
    modest = assess(session_with([call("a", result="pod-x42")], "Likely pod-x42, medium confidence."))
    certain = assess(session_with([call("a", result="pod-x42")], "pod-x42 is DEFINITELY malicious, high confidence."))
    assert certain.score_breakdown.consistency == modest.score_breakdown.consistency - 8


def test_analysis_that_cites_no_evidence_costs_synthesis() -> None:
    cited = assess(session_with([call("a", result={"node": "worker-17"})], "Root cause on worker-17."))
    uncited = assess(session_with([call("a", result={"node": "worker-17"})], "Something went wrong somewhere."))
    assert uncited.score_breakdown.synthesis_quality == cited.score_breakdown.synthesis_quality - 10


def test_no_tool_calls_and_no_analysis_scores_very_low() -> None:
    verdict = assess(session_with([], None, tools=["pods_log"]))
    assert verdict.total_score < 40
    assert json.dumps(verdict.model_dump())
