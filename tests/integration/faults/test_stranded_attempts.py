"""No attempt stranded: a scorer killed hard, a purged queue, a queue that died with the local stack.

Each case leaves an active attempt with no message and no live scorer. Before the reaper, the session could never be
scored again (every POST answered with the stuck attempt). The reaper requeues it, or fails it with a reason once
the delivery limit is spent. Time passing is simulated by moving timestamps in the database, never slept.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import create_engine, text

from tests.conftest import FAILING_TOOLS_ID, SHALLOW_ID, THOROUGH_ID, Stack


def _execute(stack: Stack, sql: str, **params: Any) -> None:
    engine = create_engine(stack.env["SCORING_DATABASE_URL"])
    try:
        with engine.begin() as conn:
            conn.execute(text(sql), params)
    finally:
        engine.dispose()


def _purge(stack: Stack) -> None:
    stack.sqs.purge_queue(QueueUrl=stack.resources.queue_url)


def _score_id(stack: Stack, session_id: str) -> uuid.UUID:
    return uuid.UUID(stack.score(session_id).json()["score_id"])


def test_a_scorer_killed_hard_with_its_message_lost_is_requeued_after_its_lease(stack: Stack, settle: Any) -> None:
    stack.request_score(THOROUGH_ID)
    score_id = _score_id(stack, THOROUGH_ID)
    assert stack.container.score_repository.claim(score_id, lease_seconds=30).claimed  # this scorer is killed here
    _purge(stack)  # ... and the local queue died with the process

    assert stack.container.reaper.reap().requeued == 0  # the lease is still live: somebody may be working on it
    stuck = stack.request_score(THOROUGH_ID, force=True)
    assert stuck.status_code == 202
    assert stuck.json()["score_id"] == str(score_id)

    _execute(
        stack,
        "UPDATE session_scores SET lease_expires_at = now() - interval '1 second' WHERE score_id = :id",
        id=score_id,
    )
    result = stack.container.reaper.reap()

    assert result.requeued == 1
    state = settle(stack, faults=1, jobs=1)
    assert state.completed == 1
    assert stack.score(THOROUGH_ID).json()["status"] == "completed"


def test_a_pending_attempt_whose_message_was_purged_is_requeued_once_idle_too_long(stack: Stack, settle: Any) -> None:
    stack.request_score(SHALLOW_ID)
    _purge(stack)

    assert stack.container.reaper.reap().requeued == 0  # young: its message may be waiting out a retry delay
    _execute(stack, "UPDATE session_scores SET requested_at = now() - interval '3 hours'")
    assert stack.container.reaper.reap().requeued == 1

    state = settle(stack, faults=1, jobs=1)
    assert state.completed == 1


def test_a_restarted_local_stack_requeues_every_active_attempt_at_once(stack: Stack, settle: Any) -> None:
    for session_id in (THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID):
        stack.request_score(session_id)
    assert stack.container.score_repository.claim(_score_id(stack, FAILING_TOOLS_ID), lease_seconds=30).claimed
    _execute(
        stack, "UPDATE session_scores SET lease_expires_at = now() - interval '1 second' WHERE status = 'in_progress'"
    )
    _purge(stack)  # make run was killed: moto's in-memory queue is gone, the database is not

    result = stack.container.reaper.reap(queue_is_new=True)

    assert result.requeued == 3
    state = settle(stack, faults=3, jobs=3)
    assert state.completed == 3


def test_a_restarted_local_stack_requeues_an_attempt_whose_dead_scorer_still_has_a_lease(
    stack: Stack, settle: Any
) -> None:
    """The lease of the scorer that died with the stack is still live: its job is requeued at start-up anyway, and
    its claim waits for the lease to end instead of the reaper's next run."""
    stack.request_score(THOROUGH_ID)
    score_id = _score_id(stack, THOROUGH_ID)
    assert stack.container.score_repository.claim(score_id, lease_seconds=60).claimed  # killed with the stack
    _purge(stack)

    result = stack.container.reaper.reap(queue_is_new=True)

    assert (result.requeued, result.failed) == (1, 0)
    stack.poller.drain()  # the claim finds the lease live: the message is handed back until it ends
    assert stack.score(THOROUGH_ID).json()["status"] == "in_progress"
    _execute(stack, "UPDATE session_scores SET lease_expires_at = now() - interval '1 second'")  # the lease ends
    stack.poller.make_deferred_visible()
    state = settle(stack, faults=1, jobs=1)
    assert state.completed == 1


def test_past_the_delivery_limit_a_stranded_attempt_fails_with_its_reason(stack: Stack, settle: Any) -> None:
    stack.request_score(THOROUGH_ID)
    score_id = _score_id(stack, THOROUGH_ID)
    assert stack.container.score_repository.claim(score_id, lease_seconds=30).claimed
    _purge(stack)
    _execute(stack, "UPDATE session_scores SET delivery_count = 3, lease_expires_at = now() - interval '1 second'")

    result = stack.container.reaper.reap()

    assert (result.requeued, result.failed) == (0, 1)
    state = settle(stack, faults=1, jobs=1)
    assert "stranded" in state.reason(THOROUGH_ID)
    assert "force_rescore" in state.reason(THOROUGH_ID)
    assert stack.request_score(THOROUGH_ID, force=True).status_code == 202  # the session can be scored again


def test_a_healthy_queue_is_left_alone(stack: Stack, settle: Any) -> None:
    stack.request_score(THOROUGH_ID)

    assert stack.container.reaper.reap().requeued == 0

    state = settle(stack, faults=0, jobs=1)
    assert state.completed == 1
