"""The judge down during a burst: the circuit opens, jobs wait without calling the judge, and every job completes
- by itself when the outage is shorter than the retry window, through the dead-letter queue and a redrive when
it is longer. Time passing is simulated (breaker clock in DynamoDB, message visibility), never slept.
"""

from __future__ import annotations

from typing import Any

from session_scoring.entrypoints.cli import main as cli_main
from tests.conftest import FAILING_TOOLS_ID, SHALLOW_ID, THOROUGH_ID, Stack
from tests.integration.faults.conftest import (
    FAULT_ENV,
    breaker_state,
    dead_letter_count,
    pass_recovery_timeout,
)
from tests.support.fake_claude import SAMPLE_VERDICT, reply_error, reply_verdict

JUDGE_DOWN = reply_error(529, "overloaded_error", "Overloaded")
BURST = 50


def _statuses(stack: Stack, session_ids: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for session_id in session_ids:
        status = stack.score(session_id).json()["status"]
        counts[status] = counts.get(status, 0) + 1
    return counts


def test_failures_spread_over_two_scorer_instances_open_the_circuit_once(
    fault_stack: Stack, fake_claude: Any, settle: Any
) -> None:
    """Two scorer instances (two containers, as two Lambda execution environments) share one failure count: four
    failed calls in the first and one in the second make five in a row, and the circuit opens after the fifth."""
    import uuid

    from aws_lambda_powertools.utilities.circuit_breaker import base

    from session_scoring.configuration.settings import load_settings
    from session_scoring.container import Container
    from session_scoring.models.jobs import ScoringJob

    fake_claude.default = JUDGE_DOWN
    jobs = []
    for session_id in (THOROUGH_ID, SHALLOW_ID):
        fault_stack.request_score(session_id)
        score = fault_stack.score(session_id).json()
        jobs.append(
            ScoringJob(
                score_id=uuid.UUID(score["score_id"]),
                session_id=session_id,
                requested_by="api-client",
                requested_at=score["requested_at"],
            )
        )
    instances = [fault_stack.container, Container(load_settings())]

    outcomes = []
    for instance, job in zip(instances, jobs, strict=True):
        base._LOCAL_FAILURES.clear()  # no memory shared between execution environments
        outcomes.append(instance.scorer.process(job, receive_count=1, remaining_seconds=60).reason)

    assert len(fake_claude.requests) == 5  # 1 + 3 retries in the first, the fifth failure in the second
    assert breaker_state(fault_stack) == "OPEN"
    assert outcomes[1].startswith("judge unavailable (circuit open)")

    fake_claude.default = reply_verdict(SAMPLE_VERDICT)
    pass_recovery_timeout(fault_stack)
    fault_stack.poller.make_deferred_visible()
    state = settle(fault_stack, faults=5, jobs=2)
    assert state.completed == 2


def test_breaker_opens_after_five_transient_failures_and_closes_after_a_probe(
    fault_stack: Stack, fake_claude: Any, settle: Any
) -> None:
    fake_claude.default = JUDGE_DOWN
    sessions = [THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID]
    for session_id in sessions:
        fault_stack.request_score(session_id)

    fault_stack.poller.drain()

    # 4 calls for the first job (1 + 3 retries), the 5th consecutive failure opens the circuit; nothing after it.
    assert len(fake_claude.requests) == 5
    assert breaker_state(fault_stack) == "OPEN"
    waiting = [fault_stack.score(s).json() for s in sessions]
    assert all(w["status"] == "pending" for w in waiting)
    assert sum("judge unavailable (circuit open); will be retried at" in w["error_message"] for w in waiting) >= 2

    fake_claude.default = reply_verdict(SAMPLE_VERDICT)
    fault_stack.poller.make_deferred_visible()
    fault_stack.poller.drain()  # before the recovery timeout: still no call
    assert len(fake_claude.requests) == 5

    pass_recovery_timeout(fault_stack)
    fault_stack.poller.make_deferred_visible()
    state = settle(fault_stack, faults=5, jobs=3)

    assert state.completed == 3
    assert breaker_state(fault_stack) == "CLOSED"
    assert len(fake_claude.requests) == 5 + 3  # one probe closed it, then the other two


def test_permanent_errors_do_not_open_the_breaker(fault_stack: Stack, fake_claude: Any, settle: Any) -> None:
    fake_claude.default = reply_error(400, "invalid_request_error", "bad request")
    for session_id in (THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID):
        fault_stack.request_score(session_id)
    fault_stack.poller.drain()
    fake_claude.default = reply_error(401, "authentication_error", "bad key")
    fault_stack.request_score(THOROUGH_ID, force=True)
    fault_stack.request_score(SHALLOW_ID, force=True)

    state = settle(fault_stack, faults=5, jobs=5)

    assert breaker_state(fault_stack) == "CLOSED"
    assert len(fake_claude.requests) == 5
    assert all("rejected the request" in r or "refused our credentials" in r for _session, r in state.failed)


def _burst(make_stack: Any, fake_claude: Any, many_sessions: Any) -> tuple[Stack, list[str]]:
    directory, session_ids = many_sessions(BURST)
    stack: Stack = make_stack(**FAULT_ENV, ANTHROPIC_BASE_URL=fake_claude.base_url, SCORING_SESSIONS_DIR=str(directory))
    stack.poller.batch_size = 10
    fake_claude.default = JUDGE_DOWN
    for session_id in session_ids:
        assert stack.request_score(session_id).status_code == 202
    stack.poller.drain()
    assert breaker_state(stack) == "OPEN"
    assert len(fake_claude.requests) == 5
    assert _statuses(stack, session_ids) == {"pending": BURST}
    return stack, session_ids


def test_burst_during_a_short_outage_completes_without_redrive(
    make_stack: Any, fake_claude: Any, many_sessions: Any, settle: Any
) -> None:
    stack, session_ids = _burst(make_stack, fake_claude, many_sessions)

    fake_claude.default = reply_verdict(SAMPLE_VERDICT)  # the judge is back within the retry window
    pass_recovery_timeout(stack)
    stack.poller.make_deferred_visible()
    state = settle(stack, faults=5, jobs=BURST)

    assert state.completed == BURST
    assert _statuses(stack, session_ids) == {"completed": BURST}
    assert dead_letter_count(stack) == 0
    assert breaker_state(stack) == "CLOSED"


def test_burst_during_a_long_outage_dead_letters_then_redrive_completes_all(
    make_stack: Any, fake_claude: Any, many_sessions: Any, settle: Any, capsys: Any
) -> None:
    stack, session_ids = _burst(make_stack, fake_claude, many_sessions)
    max_receives = int(stack.env["SCORING_MAX_RECEIVE_COUNT"])

    for _ in range(max_receives):  # every retry finds the judge still down
        pass_recovery_timeout(stack)
        stack.poller.make_deferred_visible()
        stack.poller.drain()

    assert _statuses(stack, session_ids) == {"failed": BURST}
    failed = stack.score(session_ids[0]).json()
    assert f"gave up after {max_receives} deliveries" in failed["error_message"]
    assert "dead-letter queue" in failed["error_message"]
    assert dead_letter_count(stack) == BURST

    report = stack.container.dead_letters.inspect()
    assert report.approximate_count == BURST
    assert sorted(letter.session_id for letter in report.letters) == sorted(session_ids)
    assert all("judge" in letter.reason for letter in report.letters)

    assert cli_main(["dlq"]) == 0
    shown = capsys.readouterr().out
    assert f"dead-letter queue: {BURST} message(s)" in shown
    assert session_ids[0] in shown

    fake_claude.default = reply_verdict(SAMPLE_VERDICT)
    assert cli_main(["redrive"]) == 0
    redriven = capsys.readouterr().out
    assert f"moved {BURST} message(s) back to the scoring queue (receive-and-resend)" in redriven
    assert f"{BURST} failed attempt(s) reopened to pending" in redriven
    assert f"redrive [{'#' * 30}] {BURST}/{BURST}" in redriven
    assert dead_letter_count(stack) == 0
    assert "redriven from the dead-letter queue" in stack.score(session_ids[0]).json()["error_message"]

    pass_recovery_timeout(stack)
    state = settle(stack, faults=5 + max_receives, jobs=BURST)

    assert state.completed == BURST
    assert breaker_state(stack) == "CLOSED"
    assert stack.score(session_ids[0]).json()["error_message"] is None
