"""`make recovery`: the acceptance of a scorer that dies, measured on the real thing, nothing moved.

`python -m devstack` (what `make run` starts) with every default setting, the judge the fake Messages API holding
its answer; the stack is killed with SIGKILL while the attempt is ``in_progress``, restarted at once, and the test
waits until the attempt is completed. It prints ``recovery: killed -> completed in N s`` with the restart's share.
The dead scorer's lease (``SCORING_LEASE_SECONDS``, 60 s) is still live after the restart: the start-up reaper
requeues the attempt, whose claim waits for the lease to end. It fails if the attempt is not completed within the
180 s the defaults promise (lease + reaper period + one scoring; tests/unit/test_recovery_bound.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from session_scoring.configuration.settings import Settings
from tests.conftest import THOROUGH_ID
from tests.support.devstack_process import LocalStackProcess, judged_stack
from tests.support.fake_claude import FakeClaude
from tests.unit.test_recovery_bound import HEALED_WITHIN_SECONDS

SCORE = f"/api/v1/scoring/sessions/{THOROUGH_ID}/score"


@pytest.fixture
def stack(fake_claude: FakeClaude) -> Iterator[LocalStackProcess]:
    with judged_stack(fake_claude.base_url, judge_timeout_seconds=120) as process:
        yield process


@pytest.mark.recovery
def test_a_hard_kill_of_make_run_mid_attempt_is_healed_within_three_minutes_of_the_kill(
    stack: LocalStackProcess, fake_claude: FakeClaude
) -> None:
    stack.start()
    score_id, held = stack.start_an_attempt(SCORE, fake_claude)

    killed = time.monotonic()
    stack.kill()
    held.answer()
    stack.start()
    restarted = time.monotonic() - killed
    score = stack.wait_ended(SCORE, score_id, killed + HEALED_WITHIN_SECONDS)
    healed = time.monotonic() - killed

    lease = Settings.model_fields["lease_seconds"].default
    print(
        f"\nrecovery: killed -> completed in {healed:.0f} s (restarted and healthy after {restarted:.0f} s; "
        f"default lease {lease} s; bound {HEALED_WITHIN_SECONDS} s)"
    )
    assert score.get("status") == "completed", f"not completed {HEALED_WITHIN_SECONDS} s after the kill: {score}"
    assert len(fake_claude.requests) == 2
