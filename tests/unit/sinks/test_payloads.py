"""What a completed score becomes in each store: a Phoenix span annotation, an MLflow assessment (no network)."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from session_scoring.configuration.criteria import SessionSourceSection
from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError, SessionDataError
from session_scoring.models.records import ScoreRecord
from session_scoring.models.scores import ScoreStatus
from session_scoring.services.writeback import verdict_to_write
from session_scoring.sinks.factory import build_sink
from session_scoring.sinks.mlflow import MlflowVerdictSink, mlflow_assessments
from session_scoring.sinks.phoenix import phoenix_annotations

SCORE_ID = uuid.UUID("7d6c1f5e-2b7a-4c0e-9a51-3f2e1d0c9b8a")
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
BREAKDOWN = {"logical_flow": 17, "consistency": 16, "tool_relevance": 14, "synthesis_quality": 15}
DIMENSION_NAMES = [f"session_score.{d}" for d in BREAKDOWN]


def _record(**changes: object) -> ScoreRecord:
    record = ScoreRecord(
        score_id=SCORE_ID,
        session_id="3f1c" * 8,
        criteria_hash="c" * 64,
        status=ScoreStatus.COMPLETED,
        scored_triggered_by="run:1",
        requested_at=NOW,
        total_score=62,
        score_breakdown=BREAKDOWN,
        score_reasoning="The agent read the events but never the limits.",
        judge_model="claude-sonnet-4-6",
    )
    return replace(record, **changes)  # type: ignore[arg-type]


def test_phoenix_gets_the_total_with_its_band_and_reasoning_and_one_annotation_per_dimension() -> None:
    annotations = phoenix_annotations(verdict_to_write(_record(), "session_score"), "a4f0ef2f3989e0a5")

    total, *dimensions = annotations
    assert total["name"] == "session_score"
    assert total["result"] == {
        "label": "adequate",
        "score": 62,
        "explanation": "The agent read the events but never the limits.",
    }
    assert [d["name"] for d in dimensions] == DIMENSION_NAMES
    assert [d["result"] for d in dimensions] == [{"score": points} for points in BREAKDOWN.values()]
    for annotation in annotations:
        assert annotation["span_id"] == "a4f0ef2f3989e0a5"
        assert annotation["annotator_kind"] == "LLM"
        assert annotation["identifier"] == f"session-scoring:{SCORE_ID}"  # Phoenix upserts on it: written once
        assert annotation["metadata"]["score_id"] == str(SCORE_ID)
        assert annotation["metadata"]["criteria_hash"] == "c" * 64


def test_mlflow_gets_feedback_with_the_same_values_and_the_criteria_hash_as_metadata() -> None:
    assessments = mlflow_assessments(verdict_to_write(_record(), "session_score"))

    total, *dimensions = assessments
    assert (total["assessment_name"], total["feedback"], total["rationale"]) == (
        "session_score",
        {"value": 62},
        "The agent read the events but never the limits.",
    )
    assert [(d["assessment_name"], d["feedback"]["value"]) for d in dimensions] == list(
        zip(DIMENSION_NAMES, BREAKDOWN.values(), strict=True)
    )
    for assessment in assessments:
        assert assessment["trace_id"] == "3f1c" * 8
        assert assessment["source"] == {"source_type": "LLM_JUDGE", "source_id": "claude-sonnet-4-6"}
        assert assessment["metadata"]["criteria_hash"] == "c" * 64
        assert assessment["metadata"]["band"] == "adequate"
        assert all(isinstance(v, str) for v in assessment["metadata"].values())  # MLflow's metadata: strings


def test_the_name_is_configurable_and_only_a_completed_score_is_written() -> None:
    assert [a["name"] for a in phoenix_annotations(verdict_to_write(_record(), "judge"), "s")][:2] == [
        "judge",
        "judge.logical_flow",
    ]
    with pytest.raises(SessionDataError, match="failed, not completed"):
        verdict_to_write(_record(status=ScoreStatus.FAILED, total_score=None), "session_score")


def test_every_dimension_of_the_scores_rubric_is_written_whatever_its_keys() -> None:
    triage = {"evidence": 7, "diagnosis": 12, "next_steps": 21}  # config/rubrics/triage.yaml's three

    verdict = verdict_to_write(_record(total_score=67, score_breakdown=triage), "session_score")

    annotations = phoenix_annotations(verdict, "s")
    assert [(a["name"], a["result"]["score"]) for a in annotations[1:]] == [
        ("session_score.evidence", 7),
        ("session_score.diagnosis", 12),
        ("session_score.next_steps", 21),
    ]
    assert [a["assessment_name"] for a in mlflow_assessments(verdict)][1:] == [f"session_score.{key}" for key in triage]


def test_write_back_needs_sessions_from_a_trace_store() -> None:
    with pytest.raises(ConfigurationError, match="SCORING_WRITEBACK"):
        build_sink(SessionSourceSection(type="tarsy", base_url="http://127.0.0.1:9"), Settings())
    section = SessionSourceSection(type="mlflow", base_url="http://127.0.0.1:9")
    assert isinstance(build_sink(section, Settings()), MlflowVerdictSink)
