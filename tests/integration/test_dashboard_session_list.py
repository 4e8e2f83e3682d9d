"""The sessions list as the dashboard reads it: paging, and each session's latest attempt for the Score column."""

from __future__ import annotations

from tests.conftest import FAILING_TOOLS_ID, IN_PROGRESS_ID, SHALLOW_ID, THOROUGH_ID, Stack

SESSIONS = "/api/v1/scoring/sessions"


def test_pages_through_the_sessions_newest_first(stack: Stack) -> None:
    first = stack.client.get(SESSIONS, params={"page": 1, "page_size": 3}).json()
    second = stack.client.get(SESSIONS, params={"page": 2, "page_size": 3}).json()

    assert (first["total_items"], first["total_pages"], len(first["items"]), len(second["items"])) == (4, 2, 3, 1)
    ids = [item["session_id"] for item in first["items"] + second["items"]]
    assert sorted(ids) == sorted([THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID, IN_PROGRESS_ID])
    started = [item["started_at"] for item in first["items"] + second["items"]]
    assert started == sorted(started, reverse=True)
    assert all(item["score"] is None for item in first["items"] + second["items"])


def test_each_row_carries_its_completed_score_else_its_latest_attempt(stack: Stack) -> None:
    stack.request_score(THOROUGH_ID)
    stack.poller.drain()
    queued = stack.request_score(SHALLOW_ID).json()

    items = {item["session_id"]: item for item in stack.client.get(SESSIONS, params={"page_size": 10}).json()["items"]}

    completed = items[THOROUGH_ID]["score"]
    assert completed["status"] == "completed"
    assert 0 <= completed["total_score"] <= 100
    assert completed["is_current_criteria"] is True
    assert completed["criteria_hash"] == stack.container.config.criteria_hash
    assert items[SHALLOW_ID]["score"] == {
        "score_id": queued["score_id"],
        "status": "pending",
        "total_score": None,
        "is_current_criteria": True,
        "criteria_hash": queued["criteria_hash"],
        "later_attempt_status": None,
    }
    assert items[IN_PROGRESS_ID]["score"] is None
    assert items[IN_PROGRESS_ID]["status"] == "in_progress"
