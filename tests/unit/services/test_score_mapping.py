"""The explicit mapping from stored attempts (domain records) to the API model (no database needed)."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import UTC, datetime

from session_scoring.models.records import ApproachRecord, LatestScoreRecord, MissingToolRecord, ScoreRecord
from session_scoring.models.scores import ScoreStatus
from session_scoring.services.scoring import to_session_score
from session_scoring.services.session_list import to_latest_score

NOW = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)


def completed(criteria_hash: str = "a" * 64) -> ScoreRecord:
    return ScoreRecord(
        score_id=uuid.uuid4(),
        session_id="s-1",
        criteria_hash=criteria_hash,
        status=ScoreStatus.COMPLETED,
        total_score=61,
        score_breakdown={"logical_flow": 15, "consistency": 16, "tool_relevance": 14, "synthesis_quality": 16},
        score_reasoning="However, the agent never read the logs.",
        scored_triggered_by="alice@example.com",
        requested_at=NOW,
        started_at=NOW,
        scored_at=NOW,
        judge_provider="anthropic",
        judge_model="claude-sonnet-4-6",
        input_tokens=1000,
        output_tokens=200,
        cache_read_tokens=0,
        cache_write_tokens=0,
        judge_latency_ms=900,
        prompt_compacted=True,
        prompt_tokens_before=300_000,
        prompt_tokens_after=150_000,
        missing_tools=(MissingToolRecord("pods_log", "logs"), MissingToolRecord("events_list", "events")),
        alternative_approaches=(
            ApproachRecord("Logs first", "Read logs before concluding.", ("read logs", "check events")),
        ),
    )


def test_maps_every_field_and_nests_children_in_order() -> None:
    record = completed()
    score = to_session_score(record, current_criteria_hash="a" * 64)

    assert score.score_id == record.score_id
    assert score.status is ScoreStatus.COMPLETED
    assert score.total_score == 61
    assert score.score_breakdown == record.score_breakdown
    assert [t.tool_name for t in score.missing_tools] == ["pods_log", "events_list"]
    assert score.alternative_approaches[0].steps == ["read logs", "check events"]
    assert score.scored_triggered_by == "alice@example.com"
    assert score.judge.model == "claude-sonnet-4-6"
    assert score.judge.input_tokens == 1000
    assert score.judge.prompt_compacted is True
    assert score.judge.prompt_tokens_before == 300_000


def test_is_current_criteria_compares_the_hash() -> None:
    assert to_session_score(completed("a" * 64), "a" * 64).is_current_criteria is True
    assert to_session_score(completed("a" * 64), "b" * 64).is_current_criteria is False


def test_pending_attempt_has_null_score_fields() -> None:
    record = ScoreRecord(
        score_id=uuid.uuid4(),
        session_id="s-2",
        criteria_hash="a" * 64,
        status=ScoreStatus.PENDING,
        scored_triggered_by="api-client",
        requested_at=NOW,
    )
    score = to_session_score(record, "a" * 64)
    assert score.status is ScoreStatus.PENDING
    assert score.total_score is None
    assert score.score_breakdown is None
    assert score.missing_tools == []
    assert score.judge.provider is None


def test_latest_score_of_the_session_list_says_whether_its_criteria_are_current() -> None:
    record = LatestScoreRecord("s-3", uuid.uuid4(), ScoreStatus.FAILED, None, "b" * 64)
    latest = to_latest_score(record, "a" * 64)
    assert (latest.status, latest.total_score, latest.is_current_criteria) == (ScoreStatus.FAILED, None, False)


def test_a_jurys_spread_is_mapped_to_its_jurors_and_an_ensembles_is_not() -> None:
    spread = {
        "samples": 2,
        "totals": [40, 80],
        "total": {"min": 40, "max": 80, "stdev": 28.284},
        "quorum": 2,
        "jurors": [
            {
                "provider": "anthropic",
                "model": "claude-sonnet-4-6",
                "name": "anthropic",
                "total": 40,
                "failed": None,
                "excluded": None,
                "same_family_as_agent": False,
            },
            {
                "provider": "google",
                "model": "gemini-2.5-pro",
                "name": "google-default",
                "total": 80,
                "failed": None,
                "excluded": None,
                "same_family_as_agent": True,
            },
            # stored before jurors were marked with their family: not of it
            {
                "provider": "openai",
                "model": "gpt-5",
                "name": "openai-default",
                "total": None,
                "failed": "the judge answered 500",
                "excluded": None,
            },
        ],
    }
    jury = to_session_score(dataclasses.replace(completed(), score_spread=spread), "a" * 64).jury

    assert jury is not None
    assert [(j.provider, j.total, j.failed, j.same_family_as_agent) for j in jury.jurors] == [
        ("anthropic", 40, None, False),
        ("google", 80, None, True),
        ("openai", None, "the judge answered 500", False),
    ]
    assert (jury.quorum, jury.verdicts) == (2, 2)
    assert (jury.total_spread.min, jury.total_spread.max, jury.total_spread.stdev) == (40, 80, 28.284)
    ensemble = {"samples": 3, "totals": [60, 62, 61], "total": {"min": 60, "max": 62, "stdev": 1.0}}
    assert to_session_score(dataclasses.replace(completed(), score_spread=ensemble), "a" * 64).jury is None
    assert to_session_score(completed(), "a" * 64).jury is None
