"""Scoring runs end to end on real PostgreSQL, moto and the fake judge: API -> planning messages on the runs queue ->
the scoring handler -> attempts carrying the run's id.

Sessions come from the file source: a generated directory of a few hundred sessions (copies of a sample under new
ids, every tenth one still in progress). Pollers stand for the Lambda event source mappings of the two queues.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from devstack.queue_poller import QueuePoller
from tests.conftest import SAMPLES, THOROUGH_ID, Stack

SESSIONS = 200
PAGE_SIZE = "25"
RUNS = "/api/v1/scoring/runs"


@pytest.fixture(scope="module")
def many_sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """SESSIONS sessions, newest first by index; every tenth is still in progress."""
    directory = tmp_path_factory.mktemp("sessions")
    template = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())
    start = datetime(2026, 11, 1, tzinfo=UTC)
    for i in range(SESSIONS):
        session_id = f"run-{i:04d}"
        document = {
            **template,
            "session_id": session_id,
            "status": "in_progress" if i % 10 == 9 else "completed",
            "started_at": (start + timedelta(minutes=i)).isoformat(),
            "completed_at": None if i % 10 == 9 else (start + timedelta(minutes=i, seconds=90)).isoformat(),
        }
        (directory / f"{session_id}.json").write_text(json.dumps(document))
    return directory


COMPLETED_IDS = {f"run-{i:04d}" for i in range(SESSIONS) if i % 10 != 9}


@pytest.fixture
def run_stack(make_stack: Any, many_sessions: Path) -> Stack:
    result: Stack = make_stack(SCORING_SESSIONS_DIR=str(many_sessions), SCORING_RUN_PAGE_SIZE=PAGE_SIZE)
    return result


@pytest.fixture
def priced_claude_stack(make_stack: Any, many_sessions: Path, fake_claude: Any) -> Stack:
    result: Stack = make_stack(
        SCORING_SESSIONS_DIR=str(many_sessions),
        SCORING_RUN_PAGE_SIZE=PAGE_SIZE,
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="5",
    )
    return result


def runs_poller(stack: Stack, batch_size: int = 10) -> QueuePoller:
    from functions.scorer.app import handler

    return QueuePoller(stack.sqs, stack.env["SCORING_RUNS_QUEUE_URL"], handler, batch_size=batch_size, wait_seconds=0)


def attempts(stack: Stack) -> list[dict[str, Any]]:
    engine = create_engine(stack.env["SCORING_DATABASE_URL"])
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT session_id, status, run_id FROM session_scores")).mappings().all()
            return [dict(r) for r in rows]
    finally:
        engine.dispose()


def start_run(stack: Stack, **body: Any) -> dict[str, Any]:
    response = stack.client.post(RUNS, json={"max_sessions": 1000, **body})
    assert response.status_code == 202, response.text
    run: dict[str, Any] = response.json()
    assert response.headers["location"] == f"{RUNS}/{run['run_id']}"
    return run


def get_run(stack: Stack, run_id: str) -> dict[str, Any]:
    response = stack.client.get(f"{RUNS}/{run_id}")
    assert response.status_code == 200, response.text
    run: dict[str, Any] = response.json()
    return run


def queue_depth(stack: Stack, url: str) -> int:
    attributes = stack.sqs.get_queue_attributes(
        QueueUrl=url, AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]) + int(attributes["ApproximateNumberOfMessagesNotVisible"])


def test_dry_run_answers_an_estimate_and_stores_nothing(run_stack: Stack) -> None:
    response = run_stack.client.post(
        RUNS,
        json={
            "selection": {"which": "all", "statuses": ["completed", "in_progress"]},
            "max_sessions": 1000,
            "dry_run": True,
        },
    )

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["sessions_selected"] == len(COMPLETED_IDS)
    assert body["skipped_by_reason"] == {"not_completed": SESSIONS - len(COMPLETED_IDS)}
    assert body["sessions_read"] == SESSIONS
    assert body["stop_reason"] is None
    assert set(body["sample_session_ids"]) <= COMPLETED_IDS
    assert len(body["sample_session_ids"]) == 10
    estimate = body["estimate"]
    assert estimate["per_session_input_tokens"] > 0
    assert estimate["estimated_input_tokens"] == estimate["per_session_input_tokens"] * len(COMPLETED_IDS)
    assert estimate["estimated_cost_usd"] == 0.0  # the heuristic judge is priced at zero in the pricing table
    assert "rendered prompt" in estimate["method"]
    assert run_stack.client.get(RUNS).json()["total_items"] == 0
    assert attempts(run_stack) == []
    assert queue_depth(run_stack, run_stack.env["SCORING_RUNS_QUEUE_URL"]) == 0


def test_dry_run_stops_at_max_sessions_and_says_so(run_stack: Stack) -> None:
    body = run_stack.client.post(RUNS, json={"max_sessions": 30, "dry_run": True}).json()

    assert body["sessions_selected"] == 30
    assert "max_sessions" in body["stop_reason"]


def test_a_run_scores_exactly_the_selected_sessions_once(run_stack: Stack) -> None:
    busy = "run-0003"
    assert run_stack.request_score(busy).status_code == 202  # an active attempt the run must skip, not duplicate

    run = start_run(run_stack, selection={"which": "unscored"}, name="backfill")
    assert run["status"] == "planning"
    assert run["name"] == "backfill"
    assert run["started_by"] == "api-client"
    runs_poller(run_stack).drain(max_batches=1000)

    done = get_run(run_stack, run["run_id"])
    assert done["status"] == "completed"
    assert done["counts"]["completed"] == len(COMPLETED_IDS) - 1
    assert done["counts"]["pending"] == done["counts"]["in_progress"] == done["counts"]["failed"] == 0
    assert done["counts"]["skipped_by_reason"] == {"already_active": 1}
    assert done["sessions_read"] == len(COMPLETED_IDS)
    assert done["finished_at"] is not None
    assert done["eta_seconds"] == 0
    run_attempts = [a for a in attempts(run_stack) if a["run_id"] is not None]
    assert sorted(a["session_id"] for a in run_attempts) == sorted(COMPLETED_IDS - {busy})
    assert {a["status"] for a in run_attempts} == {"completed"}
    history = run_stack.client.get("/api/v1/scoring/sessions/run-0004/scores").json()
    assert [h["run_id"] for h in history] == [run["run_id"]]
    assert [h["run_id"] for h in run_stack.client.get(f"/api/v1/scoring/sessions/{busy}/scores").json()] == [None]

    listed = run_stack.client.get(RUNS).json()
    assert [r["run_id"] for r in listed["items"]] == [run["run_id"]]


def test_a_second_not_current_criteria_run_selects_none(run_stack: Stack) -> None:
    first = start_run(run_stack, selection={"which": "not_current_criteria"})
    runs_poller(run_stack).drain(max_batches=1000)
    assert get_run(run_stack, first["run_id"])["counts"]["completed"] == len(COMPLETED_IDS)

    dry = run_stack.client.post(
        RUNS, json={"selection": {"which": "not_current_criteria"}, "max_sessions": 1000, "dry_run": True}
    ).json()
    assert dry["sessions_selected"] == 0

    second = start_run(run_stack, selection={"which": "not_current_criteria"})
    runs_poller(run_stack).drain(max_batches=1000)
    again = get_run(run_stack, second["run_id"])
    assert again["status"] == "completed"
    assert again["counts"]["completed"] == 0
    assert len(attempts(run_stack)) == len(COMPLETED_IDS)


def test_max_sessions_caps_the_run(run_stack: Stack) -> None:
    run = start_run(run_stack, selection={"which": "all"}, max_sessions=30)
    runs_poller(run_stack).drain(max_batches=1000)

    done = get_run(run_stack, run["run_id"])
    assert done["status"] == "completed"
    assert done["counts"]["completed"] == 30
    assert "max_sessions (30) reached" in done["stop_reason"]
    assert len(attempts(run_stack)) == 30


def test_max_sessions_above_the_limit_is_400_saying_so(run_stack: Stack) -> None:
    response = run_stack.client.post(RUNS, json={"max_sessions": 1001})

    assert response.status_code == 400
    assert "SCORING_MAX_RUN_SESSIONS" in response.json()["detail"]
    assert "1000" in response.json()["detail"]
    assert run_stack.client.post(RUNS, json={}).status_code == 422  # max_sessions is required


def test_unknown_run_is_404(run_stack: Stack) -> None:
    response = run_stack.client.get(f"{RUNS}/{uuid.uuid4()}")

    assert response.status_code == 404
    assert response.json()["code"] == "run_not_found"


def test_the_cost_limit_stops_queueing(priced_claude_stack: Stack, fake_claude: Any) -> None:
    stack = priced_claude_stack
    dry = stack.client.post(RUNS, json={"selection": {"which": "all"}, "max_sessions": 1000, "dry_run": True}).json()
    per_session = dry["estimate"]["estimated_cost_usd"] / dry["sessions_selected"]
    limit = round(per_session * 12.5, 4)  # room for 12 sessions at the estimate

    run = start_run(stack, selection={"which": "all"}, max_cost_usd=limit)
    runs_poller(stack).drain(max_batches=1000)

    done = get_run(stack, run["run_id"])
    assert done["status"] == "completed"
    assert "max_cost_usd" in done["stop_reason"]
    assert 0 < done["counts"]["completed"] < len(COMPLETED_IDS)
    assert done["usage"]["cost_usd"] <= limit  # the fake judge reports fewer tokens than the estimate
    # Actual usage as the judge reported it: at most 1,200 uncached input tokens a call (the fake judge reports the
    # repeated rubric prefix as cache reads, counted apart).
    assert 0 < done["usage"]["input_tokens"] <= 1200 * done["counts"]["completed"]
    assert len(fake_claude.requests) == done["counts"]["completed"]


def test_cancel_mid_run_leaves_nothing_pending_and_calls_the_judge_for_none_of_the_cancelled(
    priced_claude_stack: Stack, fake_claude: Any
) -> None:
    stack = priced_claude_stack
    run = start_run(stack, selection={"which": "all"})
    poller = runs_poller(stack, batch_size=1)
    poller.poll_once(wait_seconds=0)  # plans page 1: 25 jobs, then the message for page 2
    for _ in range(5):
        poller.poll_once(wait_seconds=0)  # five of them are scored

    cancelled = stack.client.post(f"{RUNS}/{run['run_id']}/cancel")
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    assert cancelled.json()["stop_reason"] == "cancelled by api-client"
    poller.drain(max_batches=1000)

    done = get_run(stack, run["run_id"])
    assert done["status"] == "cancelled"
    assert done["counts"]["completed"] == 5
    assert done["counts"]["cancelled"] == 20
    assert done["counts"]["pending"] == done["counts"]["in_progress"] == 0
    assert len(fake_claude.requests) == 5
    assert queue_depth(stack, stack.env["SCORING_RUNS_QUEUE_URL"]) == 0
    history = stack.client.get("/api/v1/scoring/sessions/run-0198/scores")  # the newest completed session: in page 1
    assert history.status_code == 200
    assert {h["status"] for h in history.json()} <= {"completed", "cancelled"}
    again = stack.client.post(f"{RUNS}/{run['run_id']}/cancel")
    assert again.status_code == 200
    assert again.json()["status"] == "cancelled"


class FailingOnce:
    """The runs queue, failing one send: the planner dies part-way through a page."""

    def __init__(self, queue: Any, fail_at: int) -> None:
        self._queue = queue
        self._sends = 0
        self._fail_at = fail_at

    def send(self, job: Any) -> None:
        from session_scoring.errors import QueueUnavailableError

        self._sends += 1
        if self._sends == self._fail_at:
            raise QueueUnavailableError("the runs queue did not accept the job (injected)")
        self._queue.send(job)

    def send_many(self, jobs: list[Any]) -> None:
        for job in jobs:
            self.send(job)

    def send_planning(self, job: Any) -> None:
        self._queue.send_planning(job)


@pytest.fixture
def failing_runs_queue(run_stack: Stack, monkeypatch: pytest.MonkeyPatch) -> None:
    failing = FailingOnce(run_stack.container.runs_queue, fail_at=10)
    monkeypatch.setattr(run_stack.container.run_service, "queue", lambda: failing)


@pytest.mark.usefixtures("failing_runs_queue")
def test_a_planner_killed_mid_selection_resumes_without_duplicates(run_stack: Stack) -> None:
    run = start_run(run_stack, selection={"which": "unscored"})
    poller = runs_poller(run_stack)
    poller.drain(max_batches=1000)  # page 1 fails at its 10th job; its 9 jobs run; the page message comes back later
    assert get_run(run_stack, run["run_id"])["status"] == "planning"

    poller.make_deferred_visible()
    poller.drain(max_batches=1000)

    done = get_run(run_stack, run["run_id"])
    assert done["status"] == "completed"
    assert done["counts"]["completed"] == len(COMPLETED_IDS)
    sessions = [a["session_id"] for a in attempts(run_stack)]
    assert sorted(sessions) == sorted(COMPLETED_IDS)  # one attempt per session: none twice, none missing


def test_single_posts_complete_while_a_large_run_waits(run_stack: Stack) -> None:
    run = start_run(run_stack, selection={"which": "unscored"}, max_sessions=150)
    runs = runs_poller(run_stack, batch_size=1)
    runs.poll_once(wait_seconds=0)  # page 1 planned: 25 run jobs wait on the runs queue
    assert queue_depth(run_stack, run_stack.env["SCORING_RUNS_QUEUE_URL"]) == 26

    single = run_stack.request_score("run-0000")  # the oldest session: not in page 1
    assert single.status_code == 202
    assert run_stack.poller.poll_once(wait_seconds=0) == 1  # the scoring queue holds only the dashboard's job

    assert run_stack.score("run-0000").json()["status"] == "completed"
    waiting = get_run(run_stack, run["run_id"])
    assert waiting["counts"]["pending"] == 25
    assert waiting["counts"]["completed"] == 0


def test_cli_creates_watches_and_lists_a_run(run_stack: Stack) -> None:
    import argparse
    import io

    from session_scoring.entrypoints.cli import runs_command

    service = run_stack.container.run_service
    base = {
        "which": "unscored",
        "score_below": None,
        "session_ids": None,
        "statuses": None,
        "submitted_after": None,
        "submitted_before": None,
        "agent": None,
        "alert_type": None,
        "max_sessions": 40,
        "max_cost_usd": None,
        "mode": "online",
        "name": "cli run",
    }
    out = io.StringIO()
    assert runs_command(service, argparse.Namespace(runs_command="create", dry_run=True, **base), out, print) == 0
    assert "would score 40 session(s)" in out.getvalue()
    assert get_run_count(run_stack) == 0

    out = io.StringIO()
    assert runs_command(service, argparse.Namespace(runs_command="create", dry_run=False, **base), out, print) == 0
    run_id = uuid.UUID(out.getvalue().split()[1])

    poller = runs_poller(run_stack)
    out = io.StringIO()
    watch = argparse.Namespace(runs_command="watch", run_id=run_id, interval=1.0)
    assert runs_command(service, watch, out, lambda _seconds: poller.poll_once(wait_seconds=0)) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("planning")
    assert lines[-2].startswith("completed") and "40/40" in lines[-2] and "completed 40" in lines[-2]  # noqa: PT018
    assert "max_sessions (40) reached" in lines[-1]

    out = io.StringIO()
    assert runs_command(service, argparse.Namespace(runs_command="list", page=1, page_size=20), out, print) == 0
    assert str(run_id) in out.getvalue()
    assert "cli run" in out.getvalue()


def get_run_count(stack: Stack) -> int:
    total: int = stack.client.get(RUNS).json()["total_items"]
    return total


def test_a_runs_sessions_list_each_attempt_with_its_score_paged_and_filtered(run_stack: Stack) -> None:
    run = start_run(run_stack, selection={"which": "all"}, max_sessions=12)
    runs_poller(run_stack).drain(max_batches=1000)
    sessions = f"{RUNS}/{run['run_id']}/sessions"

    first = run_stack.client.get(sessions, params={"page_size": 5})
    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["total_items"], body["total_pages"], len(body["items"])) == (12, 3, 5)
    listed = [
        item["session_id"]
        for page in (1, 2, 3)
        for item in run_stack.client.get(sessions, params={"page": page, "page_size": 5}).json()["items"]
    ]
    run_ids = sorted(a["session_id"] for a in attempts(run_stack) if str(a["run_id"]) == run["run_id"])
    assert listed == run_ids  # every attempt once, by session id
    item = body["items"][0]
    assert item["status"] == "completed"
    assert 0 <= item["total_score"] <= 100
    assert item["band"] in {"failed", "weak", "adequate", "good", "near_perfect"}
    assert item["scored_at"] is not None
    assert item["error_message"] is None

    assert run_stack.client.get(sessions, params={"status": "failed"}).json()["total_items"] == 0
    assert run_stack.client.get(sessions, params={"status": "nonsense"}).status_code == 422
    missing = run_stack.client.get(f"{RUNS}/{uuid.uuid4()}/sessions")
    assert missing.status_code == 404
    assert missing.json()["code"] == "run_not_found"


def test_a_runs_sessions_page_carries_the_counts_of_the_rows_it_lists_mid_run(run_stack: Stack) -> None:
    run = start_run(run_stack, selection={"which": "all"}, max_sessions=5)
    poller = runs_poller(run_stack, batch_size=1)
    poller.poll_once(wait_seconds=0)  # plans the run: 5 attempts pending
    poller.poll_once(wait_seconds=0)
    poller.poll_once(wait_seconds=0)  # two of them are scored

    page = run_stack.client.get(f"{RUNS}/{run['run_id']}/sessions", params={"page_size": 10}).json()
    listed = [item["status"] for item in page["items"]]
    assert sorted(listed) == ["completed", "completed", "pending", "pending", "pending"]
    counts = page["counts"]
    assert {status: counts[status] for status in ("pending", "in_progress", "completed", "failed", "cancelled")} == {
        status: listed.count(status) for status in ("pending", "in_progress", "completed", "failed", "cancelled")
    }
    assert counts["skipped"] == sum(counts["skipped_by_reason"].values())
    filtered = run_stack.client.get(f"{RUNS}/{run['run_id']}/sessions", params={"status": "completed"}).json()
    assert filtered["total_items"] == 2
    assert filtered["counts"] == counts  # the run's counts, whatever the filter


def test_a_cancelled_runs_sessions_say_why_they_were_not_scored(run_stack: Stack) -> None:
    run = start_run(run_stack, selection={"which": "all"}, max_sessions=5)
    runs_poller(run_stack, batch_size=1).poll_once(wait_seconds=0)  # plans the run: 5 attempts pending
    run_stack.client.post(f"{RUNS}/{run['run_id']}/cancel")

    page = run_stack.client.get(f"{RUNS}/{run['run_id']}/sessions", params={"status": "cancelled"}).json()
    assert page["total_items"] == 5
    assert {(i["band"], i["total_score"], i["error_message"]) for i in page["items"]} == {
        (None, None, "cancelled by api-client")
    }


def run_status_as_stored(stack: Stack, run_id: str) -> str:
    """The run's status in the database, read without the API (reading a run through the API settles it)."""
    engine = create_engine(stack.env["SCORING_DATABASE_URL"])
    try:
        with engine.connect() as conn:
            status: str = conn.execute(
                text("SELECT status FROM scoring_runs WHERE run_id = :id"), {"id": run_id}
            ).scalar_one()
            return status
    finally:
        engine.dispose()


def test_a_run_job_whose_message_was_lost_is_requeued_by_the_reaper_and_still_finishes_its_run(
    run_stack: Stack,
) -> None:
    run = start_run(run_stack, selection={"which": "unscored"}, max_sessions=1)
    runs_poller(run_stack).drain(max_batches=1)  # the planning message: it creates the attempt and sends its job
    run_stack.sqs.purge_queue(QueueUrl=run_stack.env["SCORING_RUNS_QUEUE_URL"])  # ... which is lost
    engine = create_engine(run_stack.env["SCORING_DATABASE_URL"])
    try:
        with engine.begin() as conn:
            conn.execute(text("UPDATE session_scores SET requested_at = now() - interval '3 hours'"))
    finally:
        engine.dispose()

    assert run_stack.container.reaper.reap().requeued == 1
    run_stack.poller.drain()

    assert [a["status"] for a in attempts(run_stack)] == ["completed"]
    assert run_status_as_stored(run_stack, run["run_id"]) == "completed"


def test_a_run_job_the_reaper_gives_up_on_finishes_its_run(run_stack: Stack) -> None:
    run = start_run(run_stack, selection={"which": "unscored"}, max_sessions=1)
    runs_poller(run_stack).drain(max_batches=1)
    run_stack.sqs.purge_queue(QueueUrl=run_stack.env["SCORING_RUNS_QUEUE_URL"])
    engine = create_engine(run_stack.env["SCORING_DATABASE_URL"])
    try:
        with engine.begin() as conn:  # every delivery spent: the reaper fails the attempt instead of requeueing it
            conn.execute(
                text("UPDATE session_scores SET requested_at = now() - interval '3 hours', delivery_count = 99")
            )
    finally:
        engine.dispose()

    assert run_stack.container.reaper.reap().failed == 1

    assert [a["status"] for a in attempts(run_stack)] == ["failed"]
    assert run_status_as_stored(run_stack, run["run_id"]) == "completed"


def test_a_run_whose_planning_stopped_in_a_restart_resumes_and_queues_no_session_twice(run_stack: Stack) -> None:
    run = start_run(run_stack, selection={"which": "unscored"})
    runs_poller(run_stack).drain(max_batches=1)  # page 1 planned: its jobs and page 2's planning message sent ...
    run_stack.sqs.purge_queue(QueueUrl=run_stack.env["SCORING_RUNS_QUEUE_URL"])  # ... and lost with the local stack
    stalled = get_run(run_stack, run["run_id"])

    first = run_stack.container.reaper.reap(queue_is_new=True)  # the next start
    second = run_stack.container.reaper.reap(queue_is_new=True)  # and another, before anything ran: harmless
    runs_poller(run_stack).drain()
    run_stack.poller.drain()

    assert (stalled["status"], stalled["planned_at"]) == ("planning", None)
    assert (first.planning_resent, second.planning_resent) == (1, 1)
    sessions = [a["session_id"] for a in attempts(run_stack)]
    assert sorted(sessions) == sorted(COMPLETED_IDS)  # every completed session once, none twice
    assert {a["status"] for a in attempts(run_stack)} == {"completed"}
    assert run_status_as_stored(run_stack, run["run_id"]) == "completed"
    assert run_stack.container.reaper.reap(queue_is_new=True).planning_resent == 0  # nothing left planning


def test_a_run_planning_for_a_moment_is_left_alone_by_the_periodic_reaper(run_stack: Stack) -> None:
    start_run(run_stack, selection={"which": "unscored"})

    assert run_stack.container.reaper.reap().planning_resent == 0


def test_a_runs_summary_counts_its_scores_by_band_and_lists_what_moved(run_stack: Stack) -> None:
    from tests.integration.test_session_list_filters import OTHER, seed

    # Scores before the run: run-0198 at 5 (failed), run-0197 at 99 (near perfect), under other criteria.
    seed(run_stack, "run-0198", OTHER, 5)
    seed(run_stack, "run-0197", OTHER, 99)
    run = start_run(run_stack, selection={"which": "all"}, max_sessions=4)
    runs_poller(run_stack).drain(max_batches=1000)
    scored = {
        item["session_id"]: item["total_score"]
        for item in run_stack.client.get(f"{RUNS}/{run['run_id']}/sessions").json()["items"]
    }
    assert sorted(scored) == ["run-0195", "run-0196", "run-0197", "run-0198"]

    response = run_stack.client.get(f"{RUNS}/{run['run_id']}/summary")

    assert response.status_code == 200, response.text
    summary = response.json()
    assert summary["completed"] == 4
    assert summary["average_score"] == round(sum(scored.values()) / 4, 1)
    assert [b["band"] for b in summary["bands"]] == ["failed", "weak", "adequate", "good", "near_perfect"]
    assert sum(b["sessions"] for b in summary["bands"]) == 4
    assert summary["first_scores"] == 2  # run-0195 and run-0196 had no score before
    movers = {m["session_id"]: m for m in summary["movers"]}
    moved = {s for s, before in (("run-0198", 5), ("run-0197", 99)) if scored[s] != before}
    assert set(movers) == moved
    for session_id in moved:
        before = 5 if session_id == "run-0198" else 99
        mover = movers[session_id]
        assert (mover["previous_score"], mover["total_score"], mover["change"]) == (
            before,
            scored[session_id],
            scored[session_id] - before,
        )
        assert mover["same_criteria"] is False
    assert summary["improved"] + summary["worsened"] + summary["unchanged"] == 2
    assert [abs(m["change"]) for m in summary["movers"]] == sorted(
        (abs(m["change"]) for m in summary["movers"]), reverse=True
    )

    missing = run_stack.client.get(f"{RUNS}/{uuid.uuid4()}/summary")
    assert missing.status_code == 404
    assert missing.json()["code"] == "run_not_found"
