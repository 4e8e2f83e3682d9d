"""`make recovery`: the acceptance of a scorer that dies, measured on the real thing, nothing moved.

`python -m devstack` (what `make run` starts) with every default setting, the judge the fake Messages API holding
its answer; the stack is killed with SIGKILL while the attempt is ``in_progress``, restarted at once, and the test
waits until the attempt is completed. It prints ``recovery: killed -> completed in N s`` with the restart's share.
The dead scorer's lease (``SCORING_LEASE_SECONDS``, 60 s) is still live after the restart: the start-up reaper
requeues the attempt, whose claim waits for the lease to end. It fails if the attempt is not completed within the
180 s the defaults promise (lease + reaper period + one scoring; tests/unit/test_recovery_bound.py).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from session_scoring.configuration.settings import Settings
from tests.conftest import THOROUGH_ID
from tests.support.devstack_process import LocalStackProcess
from tests.support.fake_claude import FakeClaude, HeldReply
from tests.unit.test_recovery_bound import HEALED_WITHIN_SECONDS

SCORE = f"/api/v1/scoring/sessions/{THOROUGH_ID}/score"


@pytest.fixture
def stack(fake_claude: FakeClaude) -> Iterator[LocalStackProcess]:
    data_dir = Path(tempfile.mkdtemp(prefix="scoring-recovery-"))
    data_dir.chmod(0o755)  # the embedded PostgreSQL runs as its own user when we are root
    process = LocalStackProcess(
        data_dir,
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="recovery-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="120",
    )
    try:
        yield process
    finally:
        process.close()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.mark.recovery
def test_a_hard_kill_of_make_run_mid_attempt_is_healed_within_three_minutes_of_the_kill(
    stack: LocalStackProcess, fake_claude: FakeClaude
) -> None:
    stack.start()
    held = HeldReply(fake_claude)
    assert stack.post(SCORE).status_code == 202
    assert held.arrived.wait(60), stack.tail()
    score_id = stack.get(SCORE).json()["score_id"]

    killed = time.monotonic()
    stack.kill()
    held.answer()
    stack.start()
    restarted = time.monotonic() - killed
    deadline = killed + HEALED_WITHIN_SECONDS
    score: dict[str, Any] = {}
    while time.monotonic() < deadline:
        score = stack.get(SCORE).json()
        if score["score_id"] == score_id and score["status"] not in ("pending", "in_progress"):
            break
        time.sleep(1.0)  # polling the child stack for the state we measure
    healed = time.monotonic() - killed

    lease = Settings.model_fields["lease_seconds"].default
    print(
        f"\nrecovery: killed -> completed in {healed:.0f} s (restarted and healthy after {restarted:.0f} s; "
        f"default lease {lease} s; bound {HEALED_WITHIN_SECONDS} s)"
    )
    assert score.get("status") == "completed", f"not completed {HEALED_WITHIN_SECONDS} s after the kill: {score}"
    assert len(fake_claude.requests) == 2
