"""Auto-scoring on real PostgreSQL and moto: a schedule tick starts a run of unscored completed sessions since the
last auto run's watermark, capped per day, recorded as started by ``schedule``. Time is a fake clock; the runs'
creation times are set to it, so the day and interval boundaries do not depend on when the test runs.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from devstack.queue_poller import QueuePoller
from tests.conftest import SAMPLES, THOROUGH_ID, Stack
from tests.support.postgres import sql

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
SESSIONS = 60
CAP = 20


@pytest.fixture(scope="module")
def recent_sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SESSIONS completed sessions started in the three hours before T0, and one older than the first lookback."""
    directory = tmp_path_factory.mktemp("auto-sessions")
    template = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())
    starts = [(f"auto-{i:04d}", T0 - timedelta(hours=3) + timedelta(minutes=i)) for i in range(SESSIONS)]
    starts.append(("auto-old", T0 - timedelta(days=3)))
    for session_id, started in starts:
        document = {
            **template,
            "session_id": session_id,
            "status": "completed",
            "started_at": started.isoformat(),
            "completed_at": (started + timedelta(seconds=90)).isoformat(),
        }
        (directory / f"{session_id}.json").write_text(json.dumps(document))
    return directory


def auto_stack(make_stack: Any, directory: Path, enabled: str) -> Stack:
    stack: Stack = make_stack(
        SCORING_SESSIONS_DIR=str(directory),
        SCORING_AUTO_ENABLED=enabled,
        SCORING_AUTO_INTERVAL_MINUTES="5",
        SCORING_AUTO_MAX_SESSIONS_PER_DAY=str(CAP),
    )
    return stack


def tick(stack: Stack, now: datetime) -> Any:
    from session_scoring.services.auto_scoring import AutoScorer

    c = stack.container
    outcome = AutoScorer(c.config, c.run_service, c.run_repository, 1000, clock=lambda: now).tick()
    if outcome.run_id is not None:  # the run was created "now" on the fake clock
        url = stack.env["SCORING_DATABASE_URL"]
        sql(url, "UPDATE scoring_runs SET created_at = :now WHERE run_id = :id", now=now, id=outcome.run_id)
    return outcome


def drain(stack: Stack) -> None:
    from functions.scorer.app import handler

    QueuePoller(stack.sqs, stack.env["SCORING_RUNS_QUEUE_URL"], handler, batch_size=10, wait_seconds=0).drain(1000)


def run_sessions(stack: Stack) -> list[tuple[str, str]]:
    rows = sql(
        stack.env["SCORING_DATABASE_URL"],
        "SELECT s.session_id, r.started_by FROM session_scores s JOIN scoring_runs r USING (run_id) "
        "WHERE s.status = 'completed'",
    )
    return [(r.session_id, r.started_by) for r in rows]


def test_auto_scoring_is_off_by_default(make_stack: Any, recent_sessions: Path) -> None:
    stack = auto_stack(make_stack, recent_sessions, "false")

    from devstack.queue_poller import LocalLambdaContext
    from functions.scorer.auto_score import handler as auto_score_handler
    from tests.support.events import load_event

    outcome = auto_score_handler(load_event("schedule-auto-score.json"), LocalLambdaContext(budget_seconds=60))

    assert outcome["run_id"] is None
    assert "disabled" in outcome["reason"]
    assert stack.client.get("/api/v1/scoring/runs").json()["total_items"] == 0


def test_auto_runs_follow_the_watermark_within_the_daily_cap(make_stack: Any, recent_sessions: Path) -> None:
    stack = auto_stack(make_stack, recent_sessions, "true")

    first = tick(stack, T0)
    assert first.run_id is not None
    assert "still" in tick(stack, T0 + timedelta(minutes=10)).reason  # one auto run at a time
    drain(stack)
    run = stack.client.get(f"/api/v1/scoring/runs/{first.run_id}").json()
    assert run["started_by"] == "schedule"
    assert run["status"] == "completed"
    assert run["counts"]["completed"] == CAP
    assert run["selection"]["which"] == "unscored"
    assert run["selection"]["submitted_before"].startswith("2026-11-01T12:00")

    assert "not due" in tick(stack, T0 + timedelta(minutes=2)).reason
    assert "cap of 20 sessions is reached" in tick(stack, T0 + timedelta(minutes=10)).reason

    second = tick(stack, T0 + timedelta(days=1))  # a new day: the cap starts again, from the capped run's watermark
    assert second.run_id is not None
    drain(stack)

    scored = run_sessions(stack)
    assert len(scored) == 2 * CAP
    assert len({session_id for session_id, _ in scored}) == 2 * CAP  # none scored twice
    assert {by for _, by in scored} == {"schedule"}
    assert "auto-old" not in {session_id for session_id, _ in scored}  # before the first lookback
