"""`python -m devstack seed` on real PostgreSQL: what the analytics then answer, and the comparison's points."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from devstack.seed import candidate_criteria, seed
from tests.conftest import Stack
from tests.integration.test_analytics_api import seed_score

ANALYTICS = "/api/v1/scoring/analytics"
NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def test_seeded_scores_give_the_analytics_weeks_agents_two_criteria_and_missing_tools(stack: Stack) -> None:
    summary = seed(stack.container, 60, weeks=4, now=NOW)

    current = stack.container.config.criteria_hash
    candidate, _ = candidate_criteria(stack.container.config.criteria_content)
    assert (summary.scores, summary.sessions) == (60, 40)
    assert summary.by_criteria == {current: 40, candidate: 20}
    criteria = {c["criteria_hash"]: c["completed_sessions"] for c in stack.client.get(f"{ANALYTICS}/criteria").json()}
    assert criteria == {current: 40, candidate: 20}

    weekly = stack.client.get(f"{ANALYTICS}/trends", params={"bucket": "week", "criteria_hash": current}).json()
    starts = {p["bucket_start"] for p in weekly["points"]}
    assert len(starts) >= 4  # four weeks back from a Monday noon touch five calendar weeks
    assert sum(p["count"] for p in weekly["points"]) == 40
    assert all(p["bucket_start"] <= NOW.isoformat().replace("+00:00", "Z") for p in weekly["points"])
    by_agent = stack.client.get(f"{ANALYTICS}/trends", params={"group_by": "agent", "criteria_hash": current}).json()
    assert len({p["group"] for p in by_agent["points"]}) >= 3

    comparison = stack.client.get(
        f"{ANALYTICS}/criteria-comparison", params={"base": current, "candidate": candidate}
    ).json()
    assert comparison["n"] == 20
    assert comparison["total"]["mean_delta"] < 0  # the seeded candidate is stricter
    assert len(comparison["points"]) == 20
    tools = stack.client.get(f"{ANALYTICS}/missing-tools", params={"criteria_hash": current}).json()
    assert tools["items"], "seeded verdicts name missing tools"


def test_comparison_points_are_a_fixed_sample_of_the_common_sessions(make_stack: Any, monkeypatch: Any) -> None:
    stack: Stack = make_stack()
    base, candidate = "b" * 64, "c" * 64
    for session, before, after in [("p3", 90, 95), ("p1", 40, 50), ("p2", 80, None), ("p4", 60, 75)]:
        seed_score(stack, session, before, criteria_hash=base)
        if after is not None:
            seed_score(stack, session, after, criteria_hash=candidate)
    monkeypatch.setattr("session_scoring.services.trends.COMPARISON_POINTS", 2)

    body = stack.client.get(f"{ANALYTICS}/criteria-comparison", params={"base": base, "candidate": candidate}).json()

    assert body["n"] == 3  # the statistics keep every common session
    assert body["points"] == [
        {"session_id": "p1", "base": 40, "candidate": 50},
        {"session_id": "p3", "base": 90, "candidate": 95},
    ]


def test_seeded_scores_under_another_rubric_have_its_dimensions_in_trends_and_comparison(make_stack: Any) -> None:
    """`SCORING_RUBRIC=triage make run` seeds scores of triage's three dimensions (each within its own maximum), and
    the trends and the criteria comparison, read from the read models, list exactly those."""
    stack: Stack = make_stack(SCORING_RUBRIC="triage")
    maxima = stack.container.config.rubric.maxima
    seed(stack.container, 30, weeks=2, now=NOW)
    current = stack.container.config.criteria_hash
    candidate, _ = candidate_criteria(stack.container.config.criteria_content)

    trends = stack.client.get(f"{ANALYTICS}/trends", params={"criteria_hash": current}).json()
    assert trends["points"]
    for point in trends["points"]:
        assert list(point["dimension_means"]) == list(maxima)
        assert all(0 <= mean <= maxima[key] for key, mean in point["dimension_means"].items())
    comparison = stack.client.get(
        f"{ANALYTICS}/criteria-comparison", params={"base": current, "candidate": candidate}
    ).json()
    assert comparison["shared_dimensions"] == list(maxima)
    assert {key: summary["n"] for key, summary in comparison["dimensions"].items()} == dict.fromkeys(maxima, 10)
