"""The score's domain constants: bands that cover 0-100 exactly once; the default rubric's dimensions add up to 100."""

from __future__ import annotations

import pytest

from session_scoring.configuration.criteria import default_rubric
from session_scoring.db.schema import session_scores
from session_scoring.models.scores import (
    ACTIVE_STATUSES,
    MAX_SCORE,
    MIN_SCORE,
    SCORE_BANDS,
    ScoreStatus,
    band_for,
)


def test_every_score_from_0_to_100_is_in_exactly_one_band() -> None:
    for score in range(MIN_SCORE, MAX_SCORE + 1):
        holders = [b.band for b in SCORE_BANDS if b.min_score <= score <= b.max_score]
        assert len(holders) == 1, f"score {score} is in {holders}"


def test_bands_are_in_ascending_order() -> None:
    assert [b.min_score for b in SCORE_BANDS] == sorted(b.min_score for b in SCORE_BANDS)


@pytest.mark.parametrize(
    ("score", "band"),
    [
        (0, "failed"),
        (44, "failed"),
        (45, "weak"),
        (59, "weak"),
        (60, "adequate"),
        (74, "adequate"),
        (75, "good"),
        (89, "good"),
        (90, "near_perfect"),
        (100, "near_perfect"),
    ],
)
def test_band_for_the_design_boundaries(score: int, band: str) -> None:
    assert band_for(score).band == band


@pytest.mark.parametrize("score", [-1, 101])
def test_band_for_a_score_outside_the_range_says_so(score: int) -> None:
    with pytest.raises(ValueError, match=f"score {score} is outside 0-100"):
        band_for(score)


def test_the_default_rubrics_four_dimensions_add_up_to_the_maximum_score() -> None:
    rubric = default_rubric()
    assert rubric.keys == ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")
    assert set(rubric.maxima.values()) == {25}
    assert sum(rubric.maxima.values()) == MAX_SCORE
    breakdown = {"logical_flow": 25, "consistency": 20, "tool_relevance": 10, "synthesis_quality": 5}
    assert rubric.scaled_total(breakdown) == 60


def test_the_database_accepts_exactly_the_statuses_and_one_active_attempt_among_the_active_ones() -> None:
    table = session_scores
    status_check = next(c for c in table.constraints if c.name == "ck_session_scores_status")
    assert str(status_check.sqltext) == "status IN ('pending', 'in_progress', 'completed', 'failed', 'cancelled')"
    active_index = next(i for i in table.indexes if i.name == "uq_session_scores_one_active_attempt")
    assert str(active_index.dialect_options["postgresql"]["where"]) == "status IN ('pending', 'in_progress')"
    assert set(ACTIVE_STATUSES) < set(ScoreStatus)
