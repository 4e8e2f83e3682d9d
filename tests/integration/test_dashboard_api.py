"""The API the dashboard's daily use needs, on real PostgreSQL: a session's scores for its page (never a 404 for a
session not scored), search by id, agent or alert, the values a filter can take, case-insensitive filters, totals,
and the filters a chart element opens the Scores table with."""

from __future__ import annotations

from tests.conftest import Stack
from tests.integration.test_analytics_api import seed_score

API = "/api/v1/scoring"
CANDIDATE = "c" * 64


def test_a_sessions_page_gets_the_score_under_the_criteria_in_force_before_a_newer_candidate(stack: Stack) -> None:
    seed_score(stack, "s-both", 77)
    seed_score(stack, "s-both", 89, criteria_hash=CANDIDATE)  # newer, under another criteria

    body = stack.client.get(f"{API}/sessions/s-both/scoring").json()

    assert body["current"]["total_score"] == 77
    assert body["current"]["is_current_criteria"] is True
    assert body["latest"]["total_score"] == 89
    assert body["latest"]["criteria_hash"] == CANDIDATE
    assert [a["total_score"] for a in body["attempts"]] == [89, 77]
    fleet = stack.client.get(f"{API}/scores").json()["items"]
    assert [(row["session_id"], row["total_score"]) for row in fleet] == [("s-both", 77)]  # the Scores page agrees


def test_a_session_never_scored_is_answered_without_an_error(stack: Stack) -> None:
    answer = stack.client.get(f"{API}/sessions/never-scored/scoring")

    assert answer.status_code == 200
    assert answer.json() == {"session_id": "never-scored", "current": None, "latest": None, "attempts": []}


def test_a_failed_attempt_under_the_current_criteria_is_the_latest_not_the_current(stack: Stack) -> None:
    seed_score(stack, "s-retry", 64)
    seed_score(stack, "s-retry", None, fail=True)

    body = stack.client.get(f"{API}/sessions/s-retry/scoring").json()

    assert body["current"]["total_score"] == 64
    assert body["latest"]["status"] == "failed"
