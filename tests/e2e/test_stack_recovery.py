"""`make run` killed or stopped in the middle of an attempt: after a restart the attempt is scored, once.

The stack is `python -m devstack` as `make run` starts it, with its default lease and reaper settings; the judge is the
fake Messages API, holding its answer while the stack dies. A hard kill leaves the attempt claimed until its lease
runs out: the test moves the lease's end into the past instead of waiting for it (that the default lease and reaper
period heal within three minutes is computed in tests/unit/test_recovery_bound.py; `make recovery` waits it out for
real and prints the figure).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from devstack.__main__ import SHUTDOWN_NOTE
from tests.conftest import THOROUGH_ID
from tests.support.devstack_process import LocalStackProcess, judged_stack
from tests.support.fake_claude import FakeClaude
from tests.support.postgres import sql

SCORE = f"/api/v1/scoring/sessions/{THOROUGH_ID}/score"
SETTLE_SECONDS = 90.0
"""How long a restarted stack may take to score the attempt here before the test fails (a hang guard: with the lease
already over, it takes seconds)."""


@pytest.fixture
def stack(fake_claude: FakeClaude) -> Iterator[LocalStackProcess]:
    with judged_stack(fake_claude.base_url, judge_timeout_seconds=60) as process:
        yield process


def _wait_scored(stack: LocalStackProcess, score_id: str) -> dict[str, Any]:
    """The score once the restarted stack has ended the attempt (a hang guard of SETTLE_SECONDS)."""
    score = stack.wait_ended(SCORE, score_id, time.monotonic() + SETTLE_SECONDS)
    ended = score["score_id"] == score_id and score["status"] not in ("pending", "in_progress")
    assert ended, f"the attempt was not scored after the restart:\n{stack.tail()}"
    return score


def test_a_stack_killed_hard_mid_attempt_scores_it_after_a_restart(
    stack: LocalStackProcess, fake_claude: FakeClaude
) -> None:
    stack.start()
    score_id, held = stack.start_an_attempt(SCORE, fake_claude)

    stack.kill()
    held.answer()  # to nobody: the scorer that asked is gone
    # The lease runs out (the dead scorer renews it no more).
    sql(stack.database_url(), "UPDATE session_scores SET lease_expires_at = now() - interval '1 second'")
    stack.start()

    score = _wait_scored(stack, score_id)
    assert score["status"] == "completed"
    history = stack.get(f"{SCORE}s").json()
    assert [attempt["status"] for attempt in history] == ["completed"]
    assert len(fake_claude.requests) == 2  # the call that died with the stack, and the one after the restart


def test_a_stack_stopped_mid_attempt_gives_it_back_and_scores_it_at_once_after_a_restart(
    stack: LocalStackProcess, fake_claude: FakeClaude
) -> None:
    stack.start()
    score_id, held = stack.start_an_attempt(SCORE, fake_claude)

    assert stack.terminate() == 0  # SIGTERM
    held.answer()
    assert "1 attempt(s) in flight released" in stack.output()
    from devstack.postgres import start_postgres

    url, server = start_postgres(stack.pgdata)  # the stack stopped its database with it: read it here
    try:
        [(status, note, lease)] = sql(
            url, f"SELECT status, error_message, lease_expires_at FROM session_scores WHERE score_id = '{score_id}'"
        )
    finally:
        server.cleanup()
    assert (status, note, lease) == ("pending", SHUTDOWN_NOTE, None)  # no lease to wait for
    stack.start()

    score = _wait_scored(stack, score_id)
    assert score["status"] == "completed"
    assert "1 attempt(s) left active by a previous run requeued" in stack.output()
