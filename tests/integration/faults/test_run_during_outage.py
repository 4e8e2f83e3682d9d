"""A judge outage in the middle of a scoring run: every selected session ends completed or dead-lettered with its
reason, none is lost or left active, and the run completes. Time passing is simulated (breaker clock in DynamoDB,
message visibility), never slept."""

from __future__ import annotations

from typing import Any

from devstack.queue_poller import QueuePoller
from tests.conftest import Stack
from tests.integration.faults.conftest import FAULT_ENV, dead_letter_count, pass_recovery_timeout
from tests.support.fake_claude import SAMPLE_VERDICT, reply_error, reply_verdict

SESSIONS = 12
RUNS = "/api/v1/scoring/runs"


def _runs_poller(stack: Stack) -> QueuePoller:
    from functions.scorer.app import handler

    return QueuePoller(stack.sqs, stack.env["SCORING_RUNS_QUEUE_URL"], handler, batch_size=4, wait_seconds=0)


def _outage_run(make_stack: Any, fake_claude: Any, many_sessions: Any) -> tuple[Stack, QueuePoller, str, list[str]]:
    directory, session_ids = many_sessions(SESSIONS)
    stack: Stack = make_stack(**FAULT_ENV, ANTHROPIC_BASE_URL=fake_claude.base_url, SCORING_SESSIONS_DIR=str(directory))
    fake_claude.default = reply_verdict(SAMPLE_VERDICT)
    created = stack.client.post(RUNS, json={"selection": {"which": "all"}, "max_sessions": 100})
    assert created.status_code == 202, created.text
    poller = _runs_poller(stack)
    poller.poll_once(wait_seconds=0)  # plans the run: one job per session on the runs queue
    poller.poll_once(wait_seconds=0)  # the first four are scored
    fake_claude.default = reply_error(529, "overloaded_error", "Overloaded")  # then the judge goes down
    poller.drain()
    return stack, poller, created.json()["run_id"], session_ids


def _run(stack: Stack, run_id: str) -> dict[str, Any]:
    response = stack.client.get(f"{RUNS}/{run_id}")
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_a_long_outage_during_a_run_dead_letters_the_rest_and_loses_none(
    make_stack: Any, fake_claude: Any, many_sessions: Any
) -> None:
    stack, poller, run_id, session_ids = _outage_run(make_stack, fake_claude, many_sessions)

    for _ in range(int(stack.env["SCORING_MAX_RECEIVE_COUNT"])):  # every redelivery finds the judge still down
        pass_recovery_timeout(stack)
        poller.make_deferred_visible()
        poller.drain()

    run = _run(stack, run_id)
    counts = run["counts"]
    assert run["status"] == "completed"
    assert counts["pending"] == counts["in_progress"] == 0
    assert counts["completed"] == 4
    assert counts["failed"] == SESSIONS - 4
    assert dead_letter_count(stack) == SESSIONS - 4
    statuses = {sid: stack.score(sid).json() for sid in session_ids}
    failed = [s for s in statuses.values() if s["status"] == "failed"]
    assert len(failed) == SESSIONS - 4
    assert all("dead-letter queue" in (s["error_message"] or "") for s in failed)
    assert all(s["run_id"] == run_id for s in statuses.values())


def test_a_short_outage_during_a_run_completes_every_session(
    make_stack: Any, fake_claude: Any, many_sessions: Any
) -> None:
    stack, poller, run_id, session_ids = _outage_run(make_stack, fake_claude, many_sessions)

    fake_claude.default = reply_verdict(SAMPLE_VERDICT)  # back within the retry window
    pass_recovery_timeout(stack)
    poller.make_deferred_visible()
    poller.drain()

    run = _run(stack, run_id)
    assert run["status"] == "completed"
    assert run["counts"]["completed"] == SESSIONS
    assert dead_letter_count(stack) == 0
    assert {stack.score(sid).json()["status"] for sid in session_ids} == {"completed"}
