"""One truth per session on real PostgreSQL and a directory of session files: a run cancelled over sessions that
already had completed scores leaves those scores on the sessions list (with the cancelled attempt as a state beside
them) and on each session's page; a session the run never scored shows the cancelled attempt itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from devstack.queue_poller import QueuePoller
from tests.conftest import Stack
from tests.integration.test_session_list_filters import seed, write_sessions

SESSIONS = "/api/v1/scoring/sessions"
RUNS = "/api/v1/scoring/runs"


def cancelled_run_over_scored_sessions(make_stack: Any, directory: Path) -> Stack:
    """s1 83 and s2 60 under the current criteria; then a run over all eight sessions, planned and cancelled before
    any attempt of it reached the judge."""
    from functions.scorer.app import handler

    write_sessions(directory)
    stack: Stack = make_stack(SCORING_SESSIONS_DIR=str(directory))
    current = stack.container.config.criteria_hash
    seed(stack, "s1", current, 83)
    seed(stack, "s2", current, 60)
    started = stack.client.post(RUNS, json={"selection": {"which": "all"}, "max_sessions": 100, "name": "cancelled"})
    assert started.status_code == 202, started.text
    run_id = started.json()["run_id"]
    poller = QueuePoller(stack.sqs, stack.env["SCORING_RUNS_QUEUE_URL"], handler, batch_size=1, wait_seconds=0)
    poller.poll_once(wait_seconds=0)  # plans the run: one pending attempt per session
    assert stack.client.post(f"{RUNS}/{run_id}/cancel").status_code == 200
    run = stack.client.get(f"{RUNS}/{run_id}").json()
    assert (run["counts"]["cancelled"], run["counts"]["completed"]) == (8, 0)
    return stack


def rows(stack: Stack, **params: Any) -> dict[str, dict[str, Any]]:
    response = stack.client.get(SESSIONS, params=params)
    assert response.status_code == 200, response.text
    return {item["session_id"]: item["score"] for item in response.json()["items"]}


def test_a_cancelled_run_leaves_completed_scores_on_the_sessions_list(make_stack: Any, tmp_path: Path) -> None:
    stack = cancelled_run_over_scored_sessions(make_stack, tmp_path)

    for scope in ("any", "current"):
        listed = rows(stack, criteria=scope)
        shown = {sid: (s["status"], s["total_score"], s.get("later_attempt_status")) for sid, s in listed.items()}
        assert shown["s1"] == ("completed", 83, "cancelled"), scope
        assert shown["s2"] == ("completed", 60, "cancelled"), scope
        assert shown["s3"] == ("cancelled", None, None), scope  # never scored: the cancelled attempt is all it has
    body = stack.client.get(SESSIONS, params={"criteria": "current"}).json()
    assert body["criteria_hash"] == stack.container.config.criteria_hash
    assert stack.client.get(SESSIONS).json()["criteria_hash"] is None


def test_a_cancelled_run_leaves_the_score_on_the_session_page(make_stack: Any, tmp_path: Path) -> None:
    stack = cancelled_run_over_scored_sessions(make_stack, tmp_path)

    scoring = stack.client.get(f"{SESSIONS}/s1/scoring").json()
    assert (scoring["current"]["status"], scoring["current"]["total_score"]) == ("completed", 83)
    assert scoring["latest"]["status"] == "cancelled"
    # the scored list and the list of every session agree on the score
    scored = rows(stack, scored="scored", criteria="current")
    assert (scored["s1"]["total_score"], rows(stack)["s1"]["total_score"]) == (83, 83)
