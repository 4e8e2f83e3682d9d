"""A short lease, renewed while the judge works: a scorer that stops renewing is replaced after its lease, a renewing
one is never taken over, a clean shutdown gives its claims back, and no attempt is ever scored twice.

Scorer A takes the job's message (hidden for an hour, as SQS hides it from other scorers) and calls the judge, which
holds the call until the test lets it answer. The heartbeat is driven by the test (``LeaseKeeper.renew``: one beat)
and time passing is stood for by moving the lease in the database, never slept for.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import pytest

from session_scoring.models.jobs import ScoringJob
from session_scoring.services.leases import LeaseKeeper
from session_scoring.services.scorer import JobOutcome
from tests.conftest import THOROUGH_ID, Stack
from tests.integration.faults.conftest import FAULT_ENV
from tests.support.fake_claude import FakeClaude, HeldReply
from tests.support.postgres import restart, sql

LEASE_SECONDS = 30
BEAT_SECONDS = LEASE_SECONDS / 3
EVENT_LIMIT_SECONDS = 30.0
"""Longest a test waits for an event of another thread (the judge call arriving, a job ending): a hang guard."""


LEASE_ENV = {**FAULT_ENV, "SCORING_LEASE_SECONDS": str(LEASE_SECONDS), "JUDGE_TIMEOUT_SECONDS": "60"}


class ScorerA:
    """A scorer that took the job's message of a score just asked for and works on it on its own thread, the judge
    holding its answer (``held``); its heartbeat's beats are driven by the test (``heartbeat.renew``, its own period
    out of reach)."""

    def __init__(self, stack: Stack, judge: FakeClaude) -> None:
        self.heartbeat = LeaseKeeper(stack.container.score_repository, LEASE_SECONDS, interval_seconds=3600)
        stack.container.scorer.leases = self.heartbeat
        stack.request_score(THOROUGH_ID)
        self.held = HeldReply(judge, EVENT_LIMIT_SECONDS)
        message = stack.sqs.receive_message(QueueUrl=stack.resources.queue_url, VisibilityTimeout=3600)["Messages"][0]
        self.job = ScoringJob.model_validate_json(message["Body"])
        self.outcome: JobOutcome | None = None
        self._thread = threading.Thread(target=self._run, args=(stack, message["ReceiptHandle"]), daemon=True)
        self._thread.start()
        assert self.held.arrived.wait(EVENT_LIMIT_SECONDS), "the judge was not called"

    def _run(self, stack: Stack, receipt: str) -> None:
        self.outcome = stack.container.job_service.handle(self.job, receipt, receive_count=1, remaining_seconds=120)

    def finish(self) -> JobOutcome:
        self._thread.join(EVENT_LIMIT_SECONDS)
        assert self.outcome is not None, "scorer A did not finish"
        return self.outcome


@pytest.fixture
def lease_stack(make_stack: Any, fake_claude: FakeClaude) -> Stack:
    stack: Stack = make_stack(**LEASE_ENV, ANTHROPIC_BASE_URL=fake_claude.base_url)
    return stack


def _time_passes(stack: Stack, seconds: float) -> None:
    """``seconds`` pass for every live lease."""
    sql(
        stack.env["SCORING_DATABASE_URL"],
        "UPDATE session_scores SET lease_expires_at = lease_expires_at - make_interval(secs => :s) "
        "WHERE status = 'in_progress'",
        s=seconds,
    )


def _taken_over(stack: Stack) -> None:
    """A's lease runs out unrenewed: the reaper requeues its attempt and scorer B scores it."""
    _time_passes(stack, LEASE_SECONDS + 1)
    assert stack.container.reaper.reap().requeued == 1
    stack.poller.drain()


def _attempt(stack: Stack, score_id: uuid.UUID) -> Any:
    [row] = sql(
        stack.env["SCORING_DATABASE_URL"],
        "SELECT status, error_message, claim_token, lease_expires_at > now() AS leased FROM session_scores "
        "WHERE score_id = :id",
        id=score_id,
    )
    return row


def test_a_holder_that_stops_renewing_is_replaced_after_its_lease_and_the_attempt_is_scored_once(
    lease_stack: Stack, fake_claude: FakeClaude, settle: Any
) -> None:
    stack = lease_stack
    a = ScorerA(stack, fake_claude)  # A is judging, then freezes: no beat from here on

    _taken_over(stack)
    assert stack.score(THOROUGH_ID).json()["status"] == "completed"

    assert a.heartbeat.renew() == 0  # A's next beat: its claim is gone
    a.held.answer()
    outcome = a.finish()

    assert outcome.done
    assert "not stored" in outcome.reason
    state = settle(stack, faults=1, jobs=1)
    assert state.completed == 1
    assert len(fake_claude.requests) == 2  # A's call (its verdict dropped) and B's


def test_a_late_verdict_of_a_replaced_holder_is_refused_by_the_claim_token(
    lease_stack: Stack, fake_claude: FakeClaude, settle: Any
) -> None:
    stack = lease_stack
    a = ScorerA(stack, fake_claude)

    _taken_over(stack)
    a.held.answer()  # A wakes before any beat told it, and tries to store its verdict
    outcome = a.finish()

    assert outcome.done
    assert "another scorer took over" in outcome.reason
    state = settle(stack, faults=1, jobs=1)
    assert state.completed == 1


def test_a_holder_that_renews_is_never_taken_over(lease_stack: Stack, fake_claude: FakeClaude, settle: Any) -> None:
    stack = lease_stack
    a = ScorerA(stack, fake_claude)

    for _ in range(6):  # twice the lease passes, a beat every third of it
        _time_passes(stack, BEAT_SECONDS)
        assert a.heartbeat.renew() == 1
    duplicate = a.job.model_dump_json()
    stack.sqs.send_message(QueueUrl=stack.resources.queue_url, MessageBody=duplicate)  # e.g. a redelivery

    assert stack.container.reaper.reap().requeued == 0
    assert stack.poller.drain() == 1  # the duplicate finds the claim held and backs off until the lease ends
    assert _attempt(stack, a.job.score_id).status == "in_progress"
    a.held.answer()
    assert a.finish().reason == "completed"

    stack.poller.make_deferred_visible()
    state = settle(stack, faults=1, jobs=1)  # the duplicate is acknowledged: the attempt is already completed
    assert state.completed == 1
    assert len(fake_claude.requests) == 1


def test_a_clean_shutdown_gives_the_claim_back_and_the_next_start_scores_it(
    lease_stack: Stack, fake_claude: FakeClaude, settle: Any
) -> None:
    stack = lease_stack
    a = ScorerA(stack, fake_claude)

    released = stack.container.scorer.release_claims("released: the scorer stopped")

    assert released == 1
    attempt = _attempt(stack, a.job.score_id)
    assert (attempt.status, attempt.error_message) == ("pending", "released: the scorer stopped")
    assert attempt.claim_token is None
    a.held.answer()
    outcome = a.finish()
    assert not outcome.done  # its message is left for a later delivery
    assert _attempt(stack, a.job.score_id).status == "pending"  # and its verdict was not stored

    stack.sqs.purge_queue(QueueUrl=stack.resources.queue_url)  # the local queue dies with the stack
    assert stack.container.reaper.reap(queue_is_new=True).requeued == 1  # the next start
    state = settle(stack, faults=1, jobs=1)
    assert state.completed == 1


def test_the_heartbeat_survives_a_database_outage_and_keeps_the_claim(
    make_stack: Any, fake_claude: FakeClaude, restartable_postgres: tuple[str, Any], settle: Any
) -> None:
    from pgserver import pg_ctl

    url, server = restartable_postgres
    stack: Stack = make_stack(
        **LEASE_ENV,
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        SCORING_DATABASE_URL=url,
        SCORING_DATABASE_TIMEOUT_SECONDS="2",
    )
    a = ScorerA(stack, fake_claude)

    pg_ctl(["-w", "stop", "-m", "fast"], pgdata=server.pgdata, user=server.system_user, timeout=30)
    try:
        assert a.heartbeat.renew() == 0  # a failed beat: logged, nothing raised, the claim not given up
        assert not a.heartbeat.held()[0].lost
    finally:
        restart(server)  # starts it again with the options it had
    assert a.heartbeat.renew() == 1
    a.held.answer()

    assert a.finish().reason == "completed"
    state = settle(stack, faults=1, jobs=1)
    assert state.completed == 1
