"""`make recovery`: the acceptance of a scorer that dies, measured on the real thing, nothing moved.

`python -m devstack` (what `make run` starts) with every default setting, the judge the fake Messages API holding
its answer; the stack is killed with SIGKILL while the attempt is ``in_progress``, restarted at once, and the test
waits until the attempt is completed. It prints ``recovery: killed -> completed in N s`` with the restart's share.
The dead scorer's lease (``SCORING_LEASE_SECONDS``, 60 s) is still live after the restart: the start-up reaper
requeues the attempt, whose claim waits for the lease to end. It fails if the attempt is not completed within the
180 s the defaults promise (lease + reaper period + one scoring; tests/unit/test_recovery_bound.py).

Then a run over 300 sessions killed once its first page is planned (its next planning message and jobs die with the
in-memory queue): the restarted stack's reaper re-sends the run's planning and requeues its attempts, and the run
completes with every session scored once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from session_scoring.configuration.settings import Settings
from tests.conftest import SAMPLES, THOROUGH_ID
from tests.support.devstack_process import LocalStackProcess, judged_stack, stack_directory
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


RUNS = "/api/v1/scoring/runs"
RUN_SESSIONS = 300


def _sessions(directory: Path) -> Path:
    """RUN_SESSIONS completed sessions (copies of a sample under new ids) for the file source."""
    template = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())
    for i in range(RUN_SESSIONS):
        (directory / f"planned-{i:04d}.json").write_text(json.dumps({**template, "session_id": f"planned-{i:04d}"}))
    return directory


@pytest.mark.recovery
def test_a_hard_kill_of_make_run_mid_planning_resumes_the_run_to_its_end(tmp_path: Path) -> None:
    with (
        stack_directory("scoring-recovery-run-") as data_dir,
        LocalStackProcess(data_dir, SCORING_SESSIONS_DIR=str(_sessions(tmp_path))) as stack,
    ):
        stack.start()
        started = stack.post(RUNS, {"max_sessions": RUN_SESSIONS, "selection": {"which": "unscored"}})
        assert started.status_code == 202, started.text
        run_path = f"{RUNS}/{started.json()['run_id']}"
        run = stack.get(run_path).json()
        deadline = time.monotonic() + HEALED_WITHIN_SECONDS
        while run["status"] == "planning" and run["sessions_read"] == 0:  # polling the child for page 1, bounded
            assert time.monotonic() < deadline, f"page 1 was not planned: {run}"
            time.sleep(0.1)
            run = stack.get(run_path).json()
        assert run["status"] == "planning", f"planning ended before the kill: {run}"

        killed = time.monotonic()
        stack.kill()
        stack.start()
        while run["status"] != "completed" and time.monotonic() < killed + HEALED_WITHIN_SECONDS:
            time.sleep(0.5)
            run = stack.get(run_path).json()
        healed = time.monotonic() - killed
        with create_engine(stack.database_url()).connect() as db:
            twice = db.execute(
                text("SELECT count(*) FROM (SELECT session_id FROM session_scores GROUP BY 1 HAVING count(*) > 1) t")
            ).scalar_one()

    print(f"\nrecovery: run killed mid-planning (page 1 planned) -> completed in {healed:.0f} s; {run['counts']}")
    assert run["status"] == "completed", f"not completed {HEALED_WITHIN_SECONDS} s after the kill: {run}"
    assert run["counts"]["completed"] == RUN_SESSIONS
    assert twice == 0
