"""`make soak`: thousands of jobs through the local stack while faults are injected at random; nothing may be lost.

The stack is the real one in-process (the API through its ASGI app, the scoring handler fed by several queue pollers,
real PostgreSQL, moto's SQS and DynamoDB, the judge through the real Anthropic SDK against the fake Messages API).
While the jobs flow, the judge answers at random with 429 (retry-after), 529, 500, a hang past the timeout, bad JSON
or a verdict that breaks the schema; and at set points of the run PostgreSQL is restarted (twice), a scorer is
"killed" holding claims, duplicate messages are delivered, the judge goes down long enough to dead-letter jobs (then
an operator redrives), and the whole local stack is killed hard and restarted (its in-memory queue is lost; the
reaper requeues what was active and resumes the planning of runs).

Four capped scoring runs go through the same faults, planned page by page on the runs queue (two pollers beside the
scoring queue's, as the template's ``RunsMaximumConcurrency`` default): ``ids`` (100 session ids, started with the
jobs), ``large`` (SOAK_LARGE_RUN sessions selected by alert type, capped below the 200 more that match, planned
across the first PostgreSQL restart), ``cancelled`` (cancelled while planning, just before the duplicate deliveries)
and ``killed`` (planning when the local stack is killed hard). At the end every run must have reached the state asked
(completed, or cancelled), each selected session must have exactly one attempt from its run (the large run: exactly
its cap, from the sessions it matches; the cancelled run: none planned after the cancel) and every attempt must have
ended. Time passing (visibility delays, leases, the breaker's recovery) is stood for by moving it, never slept for.

It ends with ``soak: jobs N, completed C, failed-with-reason F, lost 0, duplicate scores 0, pending 0``, the runs
line (``soak: runs 4 (completed 3, cancelled 1, planning 0), attempts A of A planned: ...``), one line per run and
the throughput, and fails on any lost, duplicated or stuck job or run. SOAK_JOBS (default 5000: the single requests
and the attempts of the runs that complete), SOAK_WORKERS (4), SOAK_LARGE_RUN (600), SOAK_RUN_PAGE_SIZE (500),
SOAK_SEED.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests.conftest import SAMPLES, THOROUGH_ID, Stack
from tests.integration.faults.conftest import end_state, pass_recovery_timeout
from tests.support.fake_claude import SAMPLE_VERDICT, FakeClaude, FakeReply, reply_error, reply_verdict
from tests.support.postgres import restart

JOBS = int(os.environ.get("SOAK_JOBS", "5000"))
WORKERS = int(os.environ.get("SOAK_WORKERS", "4"))
SEED = int(os.environ.get("SOAK_SEED", "20261123"))
DEADLINE_SECONDS = float(os.environ.get("SOAK_DEADLINE_SECONDS", "2400"))
LARGE_RUN = int(os.environ.get("SOAK_LARGE_RUN", "600"))
"""The large run's cap (``max_sessions``); LARGE_RUN + LARGE_RUN_BEYOND_CAP sessions match its selection."""
LARGE_RUN_BEYOND_CAP = 200
RUN_PAGE_SIZE = int(os.environ.get("SOAK_RUN_PAGE_SIZE", "500"))
"""Sessions of the source per planning message: at 500 each run pages the whole directory in about eleven pages."""
ID_RUN = 100
"""Sessions of the ``ids``, ``cancelled`` and ``killed`` runs (a run selects at most 100 session ids)."""
RUN_WAIT_SECONDS = 300.0
"""How long the injector waits for a run to plan the page it waits for before failing the soak."""

BAD_VERDICT = {**SAMPLE_VERDICT, "total_score": 99}  # the total is not the sum of its dimensions


@dataclass
class FaultCounts:
    counts: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, n: int = 1) -> None:
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + n

    def summary(self) -> str:
        return ", ".join(f"{kind} {n}" for kind, n in sorted(self.counts.items()))


class RandomFaultClaude(FakeClaude):
    """The fake Messages API answering at random with the fault mix; ``down`` makes every answer a 529."""

    MIX: tuple[tuple[str, float], ...] = (
        ("429", 0.03),
        ("529", 0.03),
        ("500", 0.03),
        ("hang", 0.005),
        ("bad_json", 0.02),
        ("schema", 0.02),
    )

    def __init__(self, faults: FaultCounts, seed: int) -> None:
        super().__init__()
        self.down = False
        self._faults = faults
        self._random = random.Random(seed)
        self._random_lock = threading.Lock()

    def _next(self) -> FakeReply | None:
        if self.down:
            self._faults.add("judge down (529)")
            return reply_error(529, "overloaded_error", "Overloaded")
        with self._random_lock:
            roll = self._random.random()
        for kind, share in self.MIX:
            if roll < share:
                self._faults.add(f"judge {kind}")
                return self._fault(kind)
            roll -= share
        return reply_verdict(SAMPLE_VERDICT)

    @staticmethod
    def _fault(kind: str) -> FakeReply:
        if kind == "429":
            return reply_error(429, "rate_limit_error", "Rate limited", {"retry-after": "1"})
        if kind == "529":
            return reply_error(529, "overloaded_error", "Overloaded")
        if kind == "500":
            return reply_error(500, "api_error", "Internal server error")
        if kind == "hang":
            return FakeReply(body=reply_verdict(SAMPLE_VERDICT).body, delay_seconds=2.5)
        if kind == "bad_json":
            return reply_verdict("{this is not json")
        return reply_verdict(BAD_VERDICT)


LARGE_ALERT = "SoakLargeRun"
CANCELLED_ALERT = "SoakCancelledRun"


@dataclass
class SoakSessions:
    """The session files of the soak, by who asks for their scoring."""

    directory: Path
    singles: list[str]
    """Scored one request each."""
    ids_run: list[str]
    large_run: list[str]
    """Every session the large run's selection matches (its alert type): LARGE_RUN_BEYOND_CAP more than its cap."""
    cancelled_run: list[str]
    killed_run: list[str]


@pytest.fixture
def soak_sessions() -> Iterator[SoakSessions]:
    singles = JOBS - 2 * ID_RUN - LARGE_RUN
    assert singles > 0, f"SOAK_JOBS must exceed the completed runs' attempts ({2 * ID_RUN + LARGE_RUN})"
    directory = Path(tempfile.mkdtemp(prefix="scoring-soak-sessions-"))
    template = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())

    def write(count: int, alert_type: str | None = None) -> list[str]:
        ids = []
        for _ in range(count):
            session_id = str(uuid.uuid4())
            document = {**template, "session_id": session_id}
            if alert_type is not None:
                document["alert_type"] = alert_type
            (directory / f"{session_id}.json").write_text(json.dumps(document))
            ids.append(session_id)
        return ids

    yield SoakSessions(
        directory,
        singles=write(singles),
        ids_run=write(ID_RUN),
        large_run=write(LARGE_RUN + LARGE_RUN_BEYOND_CAP, LARGE_ALERT),
        cancelled_run=write(ID_RUN, CANCELLED_ALERT),
        killed_run=write(ID_RUN),
    )
    shutil.rmtree(directory, ignore_errors=True)


@dataclass
class SoakRun:
    """One scoring run of the soak: what it is started with and what it must end as."""

    name: str
    body: dict[str, Any]
    selectable: frozenset[str]
    """The sessions its selection may take."""
    outcome: str
    """``completed`` or ``cancelled`` (as asked)."""
    expected: int | None
    """Attempts it must end with (a completed run); the cancelled run's are those it had when it was cancelled."""
    exact: bool = True
    """Every selectable session must have its attempt (not so for the capped large run: ``expected`` of them)."""
    run_id: str = ""
    during: str = ""
    """The fault its planning went through."""
    planning_when_hit: bool | None = None
    """Was it still planning when the fault aimed at it hit (None: none is)?"""


def _soak_runs(sessions: SoakSessions) -> dict[str, SoakRun]:
    def by_ids(ids: list[str]) -> dict[str, Any]:
        return {"max_sessions": len(ids), "selection": {"which": "all", "session_ids": ids}}

    return {
        "ids": SoakRun("ids", by_ids(sessions.ids_run), frozenset(sessions.ids_run), "completed", ID_RUN),
        "large": SoakRun(
            "large",
            {"max_sessions": LARGE_RUN, "selection": {"which": "all", "alert_type": LARGE_ALERT}},
            frozenset(sessions.large_run),
            "completed",
            LARGE_RUN,
            exact=False,
        ),
        "cancelled": SoakRun(
            "cancelled",
            {"max_sessions": ID_RUN, "selection": {"which": "unscored", "alert_type": CANCELLED_ALERT}},
            frozenset(sessions.cancelled_run),
            "cancelled",
            None,
            exact=False,
        ),
        "killed": SoakRun("killed", by_ids(sessions.killed_run), frozenset(sessions.killed_run), "completed", ID_RUN),
    }


class Workers:
    """Several queue pollers, each a scorer instance feeding batches to the real handler on its own thread; and two
    on the runs queue (planning messages and run jobs), as its own event source mapping feeds the scorer."""

    RUNS_POLLERS = 2

    def __init__(self, stack: Stack, count: int) -> None:
        from devstack.queue_poller import QueuePoller
        from functions.scorer.app import handler

        self.pollers = [
            QueuePoller(stack.sqs, stack.resources.queue_url, handler, batch_size=5, wait_seconds=1, budget_seconds=120)
            for _ in range(count)
        ]
        runs_queue = stack.env["SCORING_RUNS_QUEUE_URL"]
        self.pollers += [
            QueuePoller(stack.sqs, runs_queue, handler, batch_size=5, wait_seconds=1, budget_seconds=120)
            for _ in range(self.RUNS_POLLERS)
        ]

    def start(self) -> None:
        for poller in self.pollers:
            poller.start()

    def stop(self) -> None:
        for poller in self.pollers:
            poller.stop()

    def let_time_pass(self) -> None:
        """Deferred messages come back now instead of after their delay."""
        for poller in self.pollers:
            poller.make_deferred_visible()


def _execute(url: str, sql: str) -> int:
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            return int(conn.execute(text(sql)).rowcount or 0)
    finally:
        engine.dispose()


def _rows(url: str, sql: str, **params: Any) -> list[Any]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(sql), params).all())
    finally:
        engine.dispose()


def _count_active(url: str) -> int:
    return int(_rows(url, "SELECT count(*) FROM session_scores WHERE status IN ('pending', 'in_progress')")[0][0])


def _planning(url: str) -> int:
    """How many runs are still planning."""
    return int(_rows(url, "SELECT count(*) FROM scoring_runs WHERE status = 'planning'")[0][0])


def _count_terminal(url: str) -> int:
    return int(_rows(url, "SELECT count(*) FROM session_scores WHERE status IN ('completed', 'failed')")[0][0])


def _run_attempts(url: str, run_id: str) -> list[Any]:
    return _rows(url, "SELECT session_id, status FROM session_scores WHERE run_id = :run_id", run_id=run_id)


@pytest.mark.soak
def test_soak(
    make_stack: Any,
    restartable_postgres: tuple[str, Any],
    soak_sessions: SoakSessions,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, server = restartable_postgres
    faults = FaultCounts()
    judge = RandomFaultClaude(faults, SEED).start()
    rng = random.Random(SEED)
    runs = _soak_runs(soak_sessions)
    env = {
        "SCORING_DATABASE_URL": url,
        "SCORING_SESSIONS_DIR": str(soak_sessions.directory),
        "SCORING_LLM_PROVIDER": "anthropic",
        "ANTHROPIC_API_KEY": "soak-key-not-secret",
        "ANTHROPIC_BASE_URL": judge.base_url,
        "JUDGE_TIMEOUT_SECONDS": "1",
        "JUDGE_MAX_RETRIES": "1",
        "JUDGE_RETRY_BASE_SECONDS": "0",
        "SCORING_BREAKER_CACHE_SECONDS": "1",
        "SCORING_BREAKER_RECOVERY_SECONDS": "60",
        "SCORING_LEASE_SECONDS": "30",
        # The counted path: time passes here by moving visibility delays (a deferred copy's DelaySeconds is not
        # movable through SQS), and the judge outage is meant to reach the dead-letter queue.
        "SCORING_MAX_DEFERRALS": "0",
        "SCORING_RUN_PAGE_SIZE": str(RUN_PAGE_SIZE),
        "SCORING_MAX_RUN_SESSIONS": str(max(1000, LARGE_RUN)),
        "POWERTOOLS_LOG_LEVEL": "ERROR",
    }
    stack: Stack = make_stack(**env)
    workers = Workers(stack, WORKERS)
    started = time.monotonic()
    workers.start()
    try:
        _submit(stack, soak_sessions, runs["ids"], faults)
        _run_with_faults(stack, workers, judge, server, url, rng, faults, runs)
        stack, workers = _settle(stack, workers, url, faults, make_stack, env, runs["killed"])
    finally:
        workers.stop()
        judge.stop()
    elapsed = time.monotonic() - started

    state = end_state(url)
    pending = _count_active(url)
    report = _check_runs(stack, url, runs)
    # The cancelled run's attempts that a scorer had claimed before the cancel end completed or failed too; they are
    # not among the SOAK_JOBS (the attempts that must end so) and are counted on the runs' line.
    completed = state.completed - report.cancelled_run["completed"]
    failed = len(state.failed) - report.cancelled_run["failed"]
    print(
        f"\nsoak: jobs {JOBS}, completed {completed}, failed-with-reason {failed}, "
        f"lost {len(state.lost)}, duplicate scores {state.duplicates}, pending {pending}"
    )
    print(report.summary())
    for line in report.lines:
        print(line)
    print(f"soak: {elapsed:.0f} s, {JOBS / elapsed:.1f} jobs/s with {WORKERS} workers; faults: {faults.summary()}")
    reasons: dict[str, int] = {}
    for _, reason in state.failed:
        key = reason.split(":")[0][:80]
        reasons[key] = reasons.get(key, 0) + 1
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1])[:8]:
        print(f"soak: failed {count}: {reason}")
    assert state.lost == []
    assert state.duplicates == 0
    assert pending == 0
    assert report.problems == []
    assert completed + failed == JOBS


def _submit(stack: Stack, sessions: SoakSessions, ids_run: SoakRun, faults: FaultCounts) -> None:
    """The ``ids`` run first (its planning goes on among the single requests), then the single requests."""
    _start_run(stack, ids_run, faults)
    ids_run.during = "the single requests' submission"
    for session_id in sessions.singles:
        response = stack.request_score(session_id)
        assert response.status_code in (200, 202), response.text


def _start_run(stack: Stack, run: SoakRun, faults: FaultCounts) -> None:
    response = stack.client.post("/api/v1/scoring/runs", json={**run.body, "name": f"soak {run.name}"})
    assert response.status_code == 202, response.text
    run.run_id = response.json()["run_id"]
    faults.add("runs started")


def _run_position(url: str, run_id: str) -> tuple[str, int]:
    """A run's status and the page its planning stands at."""
    row = _rows(url, "SELECT status, next_page FROM scoring_runs WHERE run_id = :run_id", run_id=run_id)[0]
    return str(row.status), int(row.next_page)


def _start_and_plan(
    stack: Stack, workers: Workers, url: str, run: SoakRun, pages: int, fault: str, faults: FaultCounts
) -> None:
    """Start ``run`` and wait until ``pages`` of its pages are planned, so that the fault that follows meets it
    planning (``run.during`` says whether it did)."""
    _start_run(stack, run, faults)
    deadline = time.monotonic() + RUN_WAIT_SECONDS
    status, next_page = _run_position(url, run.run_id)
    while status == "planning" and next_page <= pages:
        assert time.monotonic() < deadline, f"run {run.name}: page {next_page} not planned in {RUN_WAIT_SECONDS} s"
        workers.let_time_pass()
        time.sleep(0.05)  # pacing of the injector's poll only; no assertion waits on it
        status, next_page = _run_position(url, run.run_id)
    run.planning_when_hit = status == "planning"
    if run.planning_when_hit:
        run.during = f"{fault} (page {next_page - 1} planned)"
        faults.add("runs planning when a fault hit")
    else:
        run.during = f"none: planned ({status}) before {fault}"


def _run_with_faults(
    stack: Stack,
    workers: Workers,
    judge: RandomFaultClaude,
    server: Any,
    url: str,
    rng: random.Random,
    faults: FaultCounts,
    runs: dict[str, SoakRun],
) -> None:
    """Inject the scheduled faults as the run passes given shares of terminal attempts."""
    schedule = [
        (0.10, "postgres restarted"),
        (0.20, "scorer killed holding claims"),
        (0.30, "duplicate deliveries"),
        (0.40, "judge down"),
        (0.60, "postgres restarted"),
    ]
    deadline = time.monotonic() + DEADLINE_SECONDS
    while schedule and time.monotonic() < deadline:
        done = _count_terminal(url) / JOBS
        workers.let_time_pass()
        if done < schedule[0][0]:
            time.sleep(0.5)  # pacing of the injector only; no test assertion waits on it
            continue
        _, fault = schedule.pop(0)
        faults.add(fault)
        if fault == "postgres restarted":
            if not runs["large"].run_id:
                _start_and_plan(stack, workers, url, runs["large"], 1, "the first PostgreSQL restart", faults)
            restart(server)
        elif fault == "scorer killed holding claims":
            _kill_a_scorer(stack, url)
        elif fault == "duplicate deliveries":
            _cancel_while_planning(stack, workers, url, runs["cancelled"], faults)
            _duplicate(stack, rng, faults)
        elif fault == "judge down":
            _judge_down_until_dead_letters(stack, workers, judge, faults)


def _cancel_while_planning(stack: Stack, workers: Workers, url: str, run: SoakRun, faults: FaultCounts) -> None:
    """Start the run to cancel, cancel it once two pages are planned; what it has then is all it may ever have (the
    duplicate deliveries that follow resend some of its cancelled attempts' jobs)."""
    _start_and_plan(stack, workers, url, run, 2, "the cancel", faults)
    response = stack.client.post(f"/api/v1/scoring/runs/{run.run_id}/cancel")
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "cancelled", response.text
    run.expected = len(_run_attempts(url, run.run_id))


def _kill_a_scorer(stack: Stack, url: str) -> None:
    """A scorer claims some attempts and dies: its claims stay until their leases expire (moved into the past)."""
    ids = [row[0] for row in _rows(url, "SELECT score_id FROM session_scores WHERE status = 'pending' LIMIT 10")]
    for score_id in ids:
        stack.container.score_repository.claim(score_id, lease_seconds=30)
    _execute(
        url,
        "UPDATE session_scores SET lease_expires_at = now() - interval '1 second' WHERE status = 'in_progress' "
        "AND started_at < now() - interval '20 seconds'",
    )


def _duplicate(stack: Stack, rng: random.Random, faults: FaultCounts) -> None:
    from session_scoring.models.jobs import ScoringJob

    rows = _rows(
        stack.env["SCORING_DATABASE_URL"],
        "SELECT score_id, session_id, requested_at FROM session_scores ORDER BY random() LIMIT 100",
    )
    for row in rows:
        job = ScoringJob(
            score_id=row.score_id, session_id=row.session_id, requested_by="soak", requested_at=row.requested_at
        )
        stack.sqs.send_message(QueueUrl=stack.resources.queue_url, MessageBody=job.model_dump_json())
    faults.add("duplicate messages", len(rows))


def _judge_down_until_dead_letters(
    stack: Stack, workers: Workers, judge: RandomFaultClaude, faults: FaultCounts
) -> None:
    """The judge is down while time passes (deferred messages return, the breaker's recovery passes) until jobs have
    used up their deliveries and sit in the dead-letter queue; then it comes back and an operator redrives."""
    judge.down = True
    for _ in range(200):
        if _dead_letters(stack) >= 20:
            break
        pass_recovery_timeout(stack)
        workers.let_time_pass()
        time.sleep(0.2)  # pacing: lets the pollers take the returned messages
    judge.down = False
    pass_recovery_timeout(stack)
    faults.add("dead-lettered then redriven", _dead_letters(stack))
    stack.container.dead_letters.redrive()


def _dead_letters(stack: Stack) -> int:
    attributes = stack.sqs.get_queue_attributes(
        QueueUrl=stack.resources.dead_letter_queue_url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]) + int(attributes["ApproximateNumberOfMessagesNotVisible"])


def _settle(
    stack: Stack,
    workers: Workers,
    url: str,
    faults: FaultCounts,
    make_stack: Any,
    env: dict[str, str],
    killed_run: SoakRun,
) -> tuple[Stack, Workers]:
    """Start the ``killed`` run and, once its first page is planned, kill the local stack hard (the queues die with
    it: the run's next planning message and its jobs), restart it, then let time pass until nothing is active and no
    run is planning: leases expire, deferred messages return, the reaper runs (requeueing attempts and resuming
    planning), dead letters are redriven."""
    _start_and_plan(stack, workers, url, killed_run, 1, "the hard kill of the local stack", faults)
    workers.stop()
    stack.sqs.purge_queue(QueueUrl=stack.resources.queue_url)
    stack.sqs.purge_queue(QueueUrl=stack.env["SCORING_RUNS_QUEUE_URL"])  # planning messages die with the stack too
    faults.add("local stack killed hard and restarted")
    restarted: Stack = make_stack(**env)
    restarted.container.reaper.reap(queue_is_new=True)
    workers = Workers(restarted, WORKERS)
    workers.start()
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline and (_count_active(url) > 0 or _planning(url) > 0):
        workers.let_time_pass()
        pass_recovery_timeout(restarted)
        _execute(
            url,
            "UPDATE session_scores SET lease_expires_at = now() - interval '1 second' "
            "WHERE status = 'in_progress' AND started_at < now() - interval '20 seconds'",
        )
        _execute(
            url,
            "UPDATE session_scores SET requested_at = requested_at - interval '1 hour', "
            "started_at = started_at - interval '1 hour' WHERE status = 'pending' "
            "AND coalesce(started_at, requested_at) < now() - interval '30 seconds'",
        )
        # A run still planning long after it started: the periodic reaper resumes it (time moved, not waited for).
        _execute(
            url,
            "UPDATE scoring_runs SET created_at = created_at - interval '1 hour' "
            "WHERE status = 'planning' AND created_at < now() - interval '30 seconds'",
        )
        restarted.container.reaper.reap()
        if _dead_letters(restarted):
            restarted.container.dead_letters.redrive()
        time.sleep(1.0)  # pacing of the settle loop
    return restarted, workers


@dataclass
class RunsReport:
    """What the runs ended as: the figures of the summary, one line per run, and what is wrong."""

    runs: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    attempts: Counter[str] = field(default_factory=Counter)
    planned: int = 0
    twice: int = 0
    outside: int = 0
    cancelled_run: Counter[str] = field(default_factory=Counter)
    """The attempts of the cancelled run by status."""
    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        statuses = ", ".join(f"{status} {n}" for status, n in sorted(self.statuses.items()))
        ended = sum(self.attempts[s] for s in ("completed", "failed", "cancelled"))
        active = self.attempts["pending"] + self.attempts["in_progress"]
        return (
            f"soak: runs {self.runs} ({statuses}, planning {self.statuses['planning']}), attempts {ended} ended of "
            f"{self.planned} planned: completed {self.attempts['completed']}, failed {self.attempts['failed']}, "
            f"cancelled {self.attempts['cancelled']}, active {active}, lost {self.planned - ended}, "
            f"twice in a run {self.twice}, outside the selection {self.outside}"
        )


def _check_runs(stack: Stack, url: str, runs: dict[str, SoakRun]) -> RunsReport:
    """Each run's state as the API reads it (reading a run settles it) beside its attempts in the database."""
    report = RunsReport(runs=len(runs))
    for run in runs.values():
        response = stack.client.get(f"/api/v1/scoring/runs/{run.run_id}")
        assert response.status_code == 200, response.text
        record = response.json()
        rows = _run_attempts(url, run.run_id)
        sessions = [str(row.session_id) for row in rows]
        statuses = Counter(str(row.status) for row in rows)
        twice = len(sessions) - len(set(sessions))
        outside = len(set(sessions) - run.selectable)
        missing = len(run.selectable - set(sessions)) if run.exact else 0
        report.statuses[record["status"]] += 1
        report.attempts.update(statuses)
        report.planned += len(rows)
        report.twice += twice
        report.outside += outside
        if run.outcome == "cancelled":
            report.cancelled_run = statuses
        counted = {status: record["counts"][status] for status in statuses}
        report.lines.append(
            f"soak: run {run.name}: {record['status']}, {len(rows)} attempts "
            f"({', '.join(f'{s} {n}' for s, n in sorted(statuses.items()))}) of {len(run.selectable)} selectable, "
            f"{record['sessions_read']} sessions read; planning through {run.during}"
            + (f"; {record['stop_reason']}" if record.get("stop_reason") else "")
        )
        wrong = []
        if run.planning_when_hit is False:
            wrong.append(f"its fault met no planning ({run.during}): the soak did not test it")
        if record["status"] != run.outcome:
            wrong.append(f"status {record['status']}, not {run.outcome}")
        if len(rows) != run.expected:
            wrong.append(f"{len(rows)} attempts, not {run.expected}")
        if twice or outside or missing:
            wrong.append(f"{twice} twice, {outside} outside the selection, {missing} selected but never queued")
        if statuses["pending"] or statuses["in_progress"]:
            wrong.append(f"{statuses['pending'] + statuses['in_progress']} attempts still active")
        if run.outcome == "completed" and statuses["cancelled"]:
            wrong.append(f"{statuses['cancelled']} attempts cancelled in a run nobody cancelled")
        if counted != dict(statuses):
            wrong.append(f"the API counts {counted}, the database {dict(statuses)}")
        report.problems += [f"run {run.name}: {problem}" for problem in wrong]
    return report
