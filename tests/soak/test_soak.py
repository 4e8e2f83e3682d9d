"""`make soak`: thousands of jobs through the local stack while faults are injected at random; nothing may be lost.

The stack is the real one in-process (the API through its ASGI app, the scoring handler fed by several queue pollers,
real PostgreSQL, moto's SQS and DynamoDB, the judge through the real Anthropic SDK against the fake Messages API).
While the jobs flow, the judge answers at random with 429 (retry-after), 529, 500, a hang past the timeout, bad JSON
or a verdict that breaks the schema; and at set points of the run PostgreSQL is restarted (twice), a scorer is
"killed" holding claims, duplicate messages are delivered, the judge goes down long enough to dead-letter jobs (then
an operator redrives), and the whole local stack is killed hard and restarted (its in-memory queue is lost; the
reaper requeues what was active and resumes the planning of runs). Some of the jobs come from scoring runs
(SOAK_RUNS runs of 100 sessions each, planned page by page on the runs queue, polled beside the scoring queue). Time
passing (visibility delays, leases, the breaker's recovery) is stood for by
moving it, never slept for.

It ends with ``soak: jobs N, completed C, failed-with-reason F, lost 0, duplicate scores 0, pending 0``, the runs
line (``soak: runs R over S sessions, planning 0``) and the throughput, and fails on any lost, duplicated or stuck job
or a run left planning. SOAK_JOBS (default 5000), SOAK_WORKERS (4), SOAK_SEED.
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
RUNS = int(os.environ.get("SOAK_RUNS", "2"))
RUN_SESSIONS = 100
"""Sessions per run (a run selects at most 100 session ids)."""

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


@pytest.fixture
def soak_sessions() -> Iterator[tuple[Path, list[str]]]:
    directory = Path(tempfile.mkdtemp(prefix="scoring-soak-sessions-"))
    template = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())
    ids = []
    for _ in range(JOBS):
        session_id = str(uuid.uuid4())
        (directory / f"{session_id}.json").write_text(json.dumps({**template, "session_id": session_id}))
        ids.append(session_id)
    yield directory, ids
    shutil.rmtree(directory, ignore_errors=True)


class Workers:
    """Several queue pollers, each a scorer instance feeding batches to the real handler on its own thread."""

    def __init__(self, stack: Stack, count: int) -> None:
        from devstack.queue_poller import QueuePoller
        from functions.scorer.app import handler

        self.pollers = [
            QueuePoller(stack.sqs, stack.resources.queue_url, handler, batch_size=5, wait_seconds=1, budget_seconds=120)
            for _ in range(count)
        ]
        # The runs queue (planning messages and run jobs), as its own event source mapping feeds the scorer.
        runs_queue = stack.env["SCORING_RUNS_QUEUE_URL"]
        self.pollers.append(
            QueuePoller(stack.sqs, runs_queue, handler, batch_size=5, wait_seconds=1, budget_seconds=120)
        )

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


def _count_active(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(
                conn.execute(
                    text("SELECT count(*) FROM session_scores WHERE status IN ('pending', 'in_progress')")
                ).scalar_one()
            )
    finally:
        engine.dispose()


def _runs(url: str) -> tuple[int, int]:
    """How many runs there are, and how many of them are still planning."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            row = conn.execute(
                text("SELECT count(*), count(*) FILTER (WHERE status = 'planning') FROM scoring_runs")
            ).one()
            return int(row[0]), int(row[1])
    finally:
        engine.dispose()


def _count_terminal(url: str) -> int:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            return int(
                conn.execute(
                    text("SELECT count(*) FROM session_scores WHERE status IN ('completed', 'failed')")
                ).scalar_one()
            )
    finally:
        engine.dispose()


@pytest.mark.soak
def test_soak(
    make_stack: Any,
    restartable_postgres: tuple[str, Any],
    soak_sessions: tuple[Path, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url, server = restartable_postgres
    directory, session_ids = soak_sessions
    faults = FaultCounts()
    judge = RandomFaultClaude(faults, SEED).start()
    rng = random.Random(SEED)
    env = {
        "SCORING_DATABASE_URL": url,
        "SCORING_SESSIONS_DIR": str(directory),
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
        "SCORING_RUN_PAGE_SIZE": "500",  # a run pages the whole directory: ten pages, not fifty
        "POWERTOOLS_LOG_LEVEL": "ERROR",
    }
    stack: Stack = make_stack(**env)
    workers = Workers(stack, WORKERS)
    started = time.monotonic()
    workers.start()
    try:
        _submit(stack, session_ids, faults)
        _run_with_faults(stack, workers, judge, server, url, rng, faults)
        workers = _settle(stack, workers, judge, url, faults, make_stack, env)
    finally:
        workers.stop()
        judge.stop()
    elapsed = time.monotonic() - started

    state = end_state(url)
    pending = _count_active(url)
    runs, planning = _runs(url)
    print(
        f"\nsoak: jobs {JOBS}, completed {state.completed}, failed-with-reason {len(state.failed)}, "
        f"lost {len(state.lost)}, duplicate scores {state.duplicates}, pending {pending}"
    )
    print(f"soak: runs {runs} over {RUNS * RUN_SESSIONS} sessions, planning {planning}")
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
    assert (runs, planning) == (RUNS, 0)
    assert state.completed + len(state.failed) == JOBS


def _submit(stack: Stack, session_ids: list[str], faults: FaultCounts) -> None:
    """The first RUNS * RUN_SESSIONS sessions through runs (each selecting its own ids), the rest one by one."""
    in_runs = RUNS * RUN_SESSIONS
    assert in_runs < len(session_ids), "SOAK_JOBS must exceed the sessions of the runs (SOAK_RUNS x 100)"
    for start in range(0, in_runs, RUN_SESSIONS):
        chunk = session_ids[start : start + RUN_SESSIONS]
        body = {"max_sessions": len(chunk), "selection": {"which": "all", "session_ids": chunk}}
        response = stack.client.post("/api/v1/scoring/runs", json=body)
        assert response.status_code == 202, response.text
        faults.add("runs started")
    for session_id in session_ids[in_runs:]:
        response = stack.request_score(session_id)
        assert response.status_code in (200, 202), response.text


def _run_with_faults(
    stack: Stack,
    workers: Workers,
    judge: RandomFaultClaude,
    server: Any,
    url: str,
    rng: random.Random,
    faults: FaultCounts,
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
            restart(server)
        elif fault == "scorer killed holding claims":
            _kill_a_scorer(stack, url)
        elif fault == "duplicate deliveries":
            _duplicate(stack, rng, faults)
        elif fault == "judge down":
            _judge_down_until_dead_letters(stack, workers, judge, faults)


def _kill_a_scorer(stack: Stack, url: str) -> None:
    """A scorer claims some attempts and dies: its claims stay until their leases expire (moved into the past)."""
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            ids = [
                row[0]
                for row in conn.execute(text("SELECT score_id FROM session_scores WHERE status = 'pending' LIMIT 10"))
            ]
    finally:
        engine.dispose()
    for score_id in ids:
        stack.container.score_repository.claim(score_id, lease_seconds=30)
    _execute(
        url,
        "UPDATE session_scores SET lease_expires_at = now() - interval '1 second' WHERE status = 'in_progress' "
        "AND started_at < now() - interval '20 seconds'",
    )


def _duplicate(stack: Stack, rng: random.Random, faults: FaultCounts) -> None:
    from session_scoring.models.jobs import ScoringJob

    engine = create_engine(stack.env["SCORING_DATABASE_URL"])
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                text("SELECT score_id, session_id, requested_at FROM session_scores ORDER BY random() LIMIT 100")
            ).all()
    finally:
        engine.dispose()
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
    judge: RandomFaultClaude,
    url: str,
    faults: FaultCounts,
    make_stack: Any,
    env: dict[str, str],
) -> Workers:
    """Kill the local stack hard once (the queue dies with it), restart it, then let time pass until nothing is
    active: leases expire, deferred messages return, the reaper runs, dead letters are redriven."""
    workers.stop()
    stack.sqs.purge_queue(QueueUrl=stack.resources.queue_url)
    stack.sqs.purge_queue(QueueUrl=stack.env["SCORING_RUNS_QUEUE_URL"])  # planning messages die with the stack too
    faults.add("local stack killed hard and restarted")
    restarted: Stack = make_stack(**env)
    restarted.container.reaper.reap(queue_is_new=True)
    workers = Workers(restarted, WORKERS)
    workers.start()
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline and (_count_active(url) > 0 or _runs(url)[1] > 0):
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
    return workers
