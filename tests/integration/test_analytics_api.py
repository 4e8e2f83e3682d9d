"""Analytics endpoints and the session view on real PostgreSQL: band edges, latest-score counting, filters."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict
from session_scoring.models.records import PromptStats
from tests.conftest import THOROUGH_ID, Stack

ANALYTICS = "/api/v1/scoring/analytics"
OTHER_HASH = "b" * 64


def _breakdown(total: int) -> dict[str, int]:
    """Four dimensions (each 0-25) that add up to ``total``."""
    parts = [min(25, max(0, total - 25 * i)) for i in range(4)]
    return dict(zip(["logical_flow", "consistency", "tool_relevance", "synthesis_quality"], parts, strict=True))


def seed_score(
    stack: Stack,
    session_id: str,
    total: int | None,
    missing: tuple[str, ...] = (),
    criteria_hash: str | None = None,
    fail: bool = False,
    outcome: str = "no_reference",
) -> uuid.UUID:
    """Store one attempt through the repository: completed with ``total`` (and ``outcome``), failed, or left pending
    (total None)."""
    repo = stack.container.score_repository
    current = stack.container.config.criteria_hash
    criteria = criteria_hash or current
    repo.ensure_criteria(criteria, {"scoring": {"llm_provider": "test", "llm_model": "m"}})
    score_id = uuid.uuid4()
    repo.create_attempt(score_id, session_id, criteria, "test")
    if total is None and not fail:
        return score_id
    claim = repo.claim(score_id, 60)
    assert claim.claim_token is not None
    if fail:
        repo.fail(score_id, claim.claim_token, "judge said no")
        return score_id
    assert total is not None
    output = JudgeOutputSchema.model_validate(
        {
            "total_score": total,
            "score_breakdown": _breakdown(total),
            "score_reasoning": "seeded",
            "missing_tools": [{"tool_name": name, "rationale": "needed"} for name in missing],
            "alternative_approaches": [],
            "outcome": outcome,
            "outcome_reason": f"seeded {outcome}",
        }
    )
    verdict = JudgeVerdict(output=output, provider="test", model="m")
    assert repo.complete(score_id, claim.claim_token, criteria, verdict, PromptStats(False, None, None))
    return score_id


def bands(response: Any) -> dict[str, int]:
    assert response.status_code == 200, response.text
    return {band["band"]: band["count"] for band in response.json()["bands"]}


def test_distribution_is_empty_but_lists_every_band(stack: Stack) -> None:
    body = stack.client.get(f"{ANALYTICS}/score-distribution").json()

    assert body["total"] == 0
    assert [(b["band"], b["min_score"], b["max_score"], b["count"]) for b in body["bands"]] == [
        ("failed", 0, 44, 0),
        ("weak", 45, 59, 0),
        ("adequate", 60, 74, 0),
        ("good", 75, 89, 0),
        ("near_perfect", 90, 100, 0),
    ]


def test_band_edges_put_each_score_in_the_right_band(stack: Stack) -> None:
    totals = {"s-0": 0, "s-44": 44, "s-45": 45, "s-59": 59, "s-60": 60, "s-74": 74, "s-75": 75, "s-89": 89}
    totals |= {"s-90": 90, "s-100": 100}
    for session_id, total in totals.items():
        seed_score(stack, session_id, total)

    response = stack.client.get(f"{ANALYTICS}/score-distribution")

    assert bands(response) == {"failed": 2, "weak": 2, "adequate": 2, "good": 2, "near_perfect": 2}
    by_band = {b["band"]: set(b["session_ids"]) for b in response.json()["bands"]}
    assert by_band["failed"] == {"s-0", "s-44"}
    assert by_band["weak"] == {"s-45", "s-59"}
    assert by_band["near_perfect"] == {"s-90", "s-100"}
    assert response.json()["total"] == 10


def test_only_the_latest_completed_score_of_a_session_counts(stack: Stack) -> None:
    seed_score(stack, "rescored", 30)
    seed_score(stack, "rescored", 95)
    seed_score(stack, "rescored", None, fail=True)  # a later failed attempt does not hide the completed one
    seed_score(stack, "rescored", None)  # nor does one still pending
    seed_score(stack, "never-completed", None, fail=True)

    assert bands(stack.client.get(f"{ANALYTICS}/score-distribution")) == {
        "failed": 0,
        "weak": 0,
        "adequate": 0,
        "good": 0,
        "near_perfect": 1,
    }


def test_criteria_hash_filters_distribution_and_missing_tools(stack: Stack) -> None:
    current = stack.container.config.criteria_hash
    seed_score(stack, "a", 50, missing=("kubernetes.pods_log",))
    seed_score(stack, "a", 80, missing=("prometheus.query",), criteria_hash=OTHER_HASH)
    seed_score(stack, "b", 20, missing=("prometheus.query",), criteria_hash=OTHER_HASH)

    assert bands(stack.client.get(f"{ANALYTICS}/score-distribution", params={"criteria_hash": current}))["weak"] == 1
    other = stack.client.get(f"{ANALYTICS}/score-distribution", params={"criteria_hash": OTHER_HASH}).json()
    assert other["criteria_hash"] == OTHER_HASH
    assert {b["band"]: b["count"] for b in other["bands"]}["good"] == 1
    assert other["total"] == 2

    tools = stack.client.get(f"{ANALYTICS}/missing-tools", params={"criteria_hash": OTHER_HASH}).json()
    assert [(t["tool_name"], t["count"]) for t in tools["items"]] == [("query", 2)]  # by canonical name


def test_current_and_any_are_spelled_as_on_the_scores_endpoint(stack: Stack) -> None:
    current = stack.container.config.criteria_hash
    seed_score(stack, "a", 50, missing=("kubernetes.pods_log",))
    seed_score(stack, "b", 20, missing=("prometheus.query",), criteria_hash=OTHER_HASH)

    for path in ("score-distribution", "missing-tools", "trends"):
        by_name = stack.client.get(f"{ANALYTICS}/{path}", params={"criteria_hash": "current"})
        by_hash = stack.client.get(f"{ANALYTICS}/{path}", params={"criteria_hash": current})
        assert by_name.status_code == 200, path
        assert by_name.json() == by_hash.json(), path
        assert by_name.json()["criteria_hash"] == current, path
        every = stack.client.get(f"{ANALYTICS}/{path}", params={"criteria_hash": "any"})
        assert every.json() == stack.client.get(f"{ANALYTICS}/{path}").json(), path
        assert every.json()["criteria_hash"] is None, path
    assert stack.client.get(f"{ANALYTICS}/score-distribution", params={"criteria_hash": "any"}).json()["total"] == 2


def test_missing_tools_are_counted_per_session_most_frequent_first(stack: Stack) -> None:
    seed_score(stack, "s1", 40, missing=("k8s.pods_log", "prom.query"))
    seed_score(stack, "s2", 50, missing=("k8s.pods_log",))
    seed_score(stack, "s3", 60, missing=("k8s.pods_log", "k8s.events"))
    seed_score(stack, "s4", 10, missing=("old.tool",))
    seed_score(stack, "s4", 70)  # the latest score of s4 names no missing tool

    body = stack.client.get(f"{ANALYTICS}/missing-tools").json()

    assert [(t["tool_name"], t["count"]) for t in body["items"]] == [
        ("pods_log", 3),
        ("events", 1),
        ("query", 1),
    ]
    assert set(body["items"][0]["session_ids"]) == {"s1", "s2", "s3"}
    limited = stack.client.get(f"{ANALYTICS}/missing-tools", params={"limit": 1}).json()
    assert [t["tool_name"] for t in limited["items"]] == ["pods_log"]


@pytest.mark.parametrize("bad", ["abc", "G" * 64, "A" * 64])
def test_a_malformed_criteria_hash_is_rejected(stack: Stack, bad: str) -> None:
    response = stack.client.get(f"{ANALYTICS}/score-distribution", params={"criteria_hash": bad})

    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["query", "criteria_hash"]


def test_a_real_scoring_shows_up_in_the_analytics(stack: Stack) -> None:
    stack.request_score(THOROUGH_ID)
    stack.poller.drain()
    score = stack.score(THOROUGH_ID).json()

    distribution = stack.client.get(f"{ANALYTICS}/score-distribution").json()
    band = next(b for b in distribution["bands"] if b["min_score"] <= score["total_score"] <= b["max_score"])
    assert band["count"] == 1
    assert band["session_ids"] == [THOROUGH_ID]

    criteria = stack.client.get(f"{ANALYTICS}/criteria").json()
    assert criteria[0]["criteria_hash"] == score["criteria_hash"]
    assert criteria[0]["is_current"] is True
    assert criteria[0]["completed_sessions"] == 1
    assert criteria[0]["llm_provider"] == "heuristic"


def test_session_detail_returns_the_conversation(stack: Stack) -> None:
    response = stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}")

    assert response.status_code == 200
    body = response.json()
    assert body["session_id"] == THOROUGH_ID
    assert body["status"] == "completed"
    assert body["alert"]
    assert body["final_analysis"]
    calls = [s["tool_call"] for stage in body["stages"] for s in stage["steps"] if s["kind"] == "tool_call"]
    assert calls
    assert all(call["name"] for call in calls)
    assert "format" not in body


def test_session_detail_of_an_unknown_session_is_404(stack: Stack) -> None:
    response = stack.client.get("/api/v1/scoring/sessions/no-such-session")

    assert response.status_code == 404
    assert response.json()["code"] == "session_not_found"
