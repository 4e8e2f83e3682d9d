"""Trends and the criteria comparison on real PostgreSQL, against figures computed by hand on a small fixed set."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import text

from session_scoring.repositories.trends import TrendsRepository
from tests.conftest import Stack
from tests.integration.test_analytics_api import seed_score

ANALYTICS = "/api/v1/scoring/analytics"
BASE, CANDIDATE = "b" * 64, "c" * 64


def _place(stack: Stack, score_id: uuid.UUID, scored_at: str, agent: str | None = None) -> None:
    """Move a stored score to ``scored_at`` (its attempt and its latest_scores rows) and give it an agent fact."""
    with stack.container.engine.begin() as conn:
        conn.execute(
            text("UPDATE session_scores SET scored_at = :at, session_agent = :agent WHERE score_id = :id"),
            {"at": datetime.fromisoformat(scored_at), "agent": agent, "id": score_id},
        )
        conn.execute(
            text("UPDATE latest_scores SET scored_at = :at WHERE score_id = :id"),
            {"at": datetime.fromisoformat(scored_at), "id": score_id},
        )


@pytest.fixture
def trend_stack(stack: Stack) -> Stack:
    """Week of Mon 2026-01-05: 40 (agent x; a re-score of an earlier 100), 80 (x), 90 (y); next week: 70 (y)."""
    _place(stack, seed_score(stack, "s-a", 100), "2026-01-04T12:00:00+00:00", "x")
    for session, total, at, agent in [
        ("s-a", 40, "2026-01-05T00:30:00+00:00", "x"),
        ("s-b", 80, "2026-01-06T10:00:00+00:00", "x"),
        ("s-c", 90, "2026-01-11T23:59:00+00:00", "y"),
        ("s-d", 70, "2026-01-13T08:00:00+00:00", "y"),
    ]:
        _place(stack, seed_score(stack, session, total), at, agent)
    # The scores were moved by hand: the trend tables are rebuilt from latest_scores as after a facts backfill.
    TrendsRepository(stack.container.query_engine).rebuild()
    return stack


def test_weekly_trend_counts_each_sessions_latest_score(trend_stack: Stack) -> None:
    response = trend_stack.client.get(f"{ANALYTICS}/trends", params={"bucket": "week"})

    assert response.status_code == 200, response.text
    first, second = response.json()["points"]
    assert first["bucket_start"].startswith("2026-01-05T00:00:00")
    assert (first["group"], first["count"], first["mean"]) == (None, 3, pytest.approx(70.0))
    # percentile_cont over [40, 80, 90]: p10 = 40 + 0.2 * 40, p90 = 80 + 0.8 * 10
    assert (first["p10"], first["p50"], first["p90"]) == (pytest.approx(48.0), 80.0, pytest.approx(88.0))
    # breakdowns: 40 = 25/15/0/0, 80 = 25/25/25/5, 90 = 25/25/25/15
    assert first["dimension_means"] == pytest.approx(
        {"logical_flow": 25.0, "consistency": 65 / 3, "tool_relevance": 50 / 3, "synthesis_quality": 20 / 3}
    )
    assert first["band_shares"] == pytest.approx(
        {"failed": 1 / 3, "weak": 0.0, "adequate": 0.0, "good": 1 / 3, "near_perfect": 1 / 3}
    )
    assert second["bucket_start"].startswith("2026-01-12")
    assert (second["count"], second["p50"]) == (1, 70.0)


def test_trend_by_agent_per_day_and_scored_window(trend_stack: Stack) -> None:
    by_agent = trend_stack.client.get(f"{ANALYTICS}/trends", params={"bucket": "week", "group_by": "agent"}).json()
    assert [(p["bucket_start"][:10], p["group"], p["count"], p["mean"]) for p in by_agent["points"]] == [
        ("2026-01-05", "x", 2, 60.0),
        ("2026-01-05", "y", 1, 90.0),
        ("2026-01-12", "y", 1, 70.0),
    ]

    daily = trend_stack.client.get(
        f"{ANALYTICS}/trends",
        params={"bucket": "day", "scored_after": "2026-01-06T00:00:00Z", "scored_before": "2026-01-13T00:00:00Z"},
    ).json()
    assert [(p["bucket_start"][:10], p["count"]) for p in daily["points"]] == [("2026-01-06", 1), ("2026-01-11", 1)]


def test_trend_rejects_an_unknown_bucket(stack: Stack) -> None:
    response = stack.client.get(f"{ANALYTICS}/trends", params={"bucket": "month"})
    assert response.status_code == 422
    assert "bucket" in response.text


def test_criteria_comparison_on_hand_computed_set(make_stack: Any) -> None:
    stack: Stack = make_stack(SCORING_TRUST_FORWARDED_USER="true")
    for session, before, after, human in [
        ("p1", 40, 50, 45),
        ("p2", 80, 70, 75),
        ("p3", 90, 95, 92),
        ("p4", 60, 75, 70),
        ("p5", 50, None, 50),
    ]:
        seed_score(stack, session, before, criteria_hash=BASE)
        if after is not None:
            seed_score(stack, session, after, criteria_hash=CANDIDATE)
        label = stack.client.put(
            f"/api/v1/scoring/sessions/{session}/labels",
            json={"total_score": human},
            headers={"X-Forwarded-User": "al"},
        )
        assert label.status_code in (200, 201), label.text

    response = stack.client.get(f"{ANALYTICS}/criteria-comparison", params={"base": BASE, "candidate": CANDIDATE})

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["n"] == 4  # p5 has no candidate score
    assert body["total"] == {"n": 4, "mean_delta": 5.0, "median_delta": 7.5}  # deltas +10 -10 +5 +15
    assert body["dimensions"]["consistency"] == {"n": 4, "mean_delta": 2.5, "median_delta": 0.0}
    assert body["dimensions"]["tool_relevance"] == {"n": 4, "mean_delta": 2.5, "median_delta": 0.0}
    # ranks base 1,3,4,2 vs candidate 1,2,4,3: sum d^2 = 2, rho = 1 - 12/60; 5 concordant, 1 discordant pair
    assert body["spearman_rho"] == pytest.approx(0.8)
    assert body["kendall_tau_b"] == pytest.approx(4 / 6)
    assert body["bands"] == ["failed", "weak", "adequate", "good", "near_perfect"]
    assert body["band_transitions"] == [
        [0, 1, 0, 0, 0],
        [0, 0, 0, 0, 0],
        [0, 0, 0, 1, 0],
        [0, 0, 1, 0, 0],
        [0, 0, 0, 0, 1],
    ]
    assert [(m["session_id"], m["delta"]) for m in body["movers_up"]] == [("p4", 15), ("p1", 10), ("p3", 5)]
    assert body["movers_down"] == [{"session_id": "p2", "base": 80, "candidate": 70, "delta": -10}]
    # humans 45 75 92 70 (50): the base ranks them alike, |errors| 5 5 2 10 0; the candidate swaps p2/p4, 5 5 3 5
    base_humans, candidate_humans = body["base_human_agreement"], body["candidate_human_agreement"]
    assert (base_humans["n"], base_humans["mean_absolute_error"]) == (5, pytest.approx(4.4))
    assert base_humans["spearman_rho"] == pytest.approx(1.0)
    assert (candidate_humans["n"], candidate_humans["mean_absolute_error"]) == (4, pytest.approx(4.5))
    assert candidate_humans["spearman_rho"] == pytest.approx(0.8)


def test_criteria_comparison_without_common_sessions_and_bad_hash(stack: Stack) -> None:
    seed_score(stack, "only-base", 70, criteria_hash=BASE)
    body = stack.client.get(f"{ANALYTICS}/criteria-comparison", params={"base": BASE, "candidate": CANDIDATE}).json()
    assert (body["n"], body["total"]["mean_delta"], body["spearman_rho"], body["movers_up"]) == (0, None, None, [])

    bad = stack.client.get(f"{ANALYTICS}/criteria-comparison", params={"base": "nothex", "candidate": CANDIDATE})
    assert bad.status_code == 422
    assert "base" in bad.text
