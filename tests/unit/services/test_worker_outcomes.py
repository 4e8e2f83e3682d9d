"""The one error -> ack/retry mapping of the scorer (`outcome_for_error`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from session_scoring.errors import (
    ConfigurationError,
    DatabaseUnavailableError,
    JudgeOutputError,
    JudgePermanentError,
    JudgeTransientError,
    JudgeUnavailableError,
    PromptTooLargeError,
    SessionNotFoundError,
    SourceUnavailableError,
)
from session_scoring.services.scorer import ScorerPolicy, outcome_for_error

POLICY = ScorerPolicy(
    lease_seconds=900, max_receive_count=5, judge_timeout_seconds=120, judge_max_retries=3, judge_retry_base_seconds=1
)


@pytest.mark.parametrize(
    "error",
    [
        SessionNotFoundError("session 'x' was not found"),
        ConfigurationError("no API key"),
        PromptTooLargeError("too large"),
        JudgePermanentError("the judge refused our credentials (401)"),
        JudgeOutputError("the judge's answer was invalid after one repair turn"),
    ],
)
def test_permanent_failures_fail_the_attempt_and_acknowledge(error: Exception) -> None:
    action, outcome = outcome_for_error(error, receive_count=1, policy=POLICY)

    assert action == "fail"
    assert outcome.done
    assert outcome.reason == str(error)


@pytest.mark.parametrize(
    "error", [JudgeTransientError("529"), SourceUnavailableError("source down"), DatabaseUnavailableError("db down")]
)
def test_transient_failures_go_back_to_pending_with_a_growing_delay(error: Exception) -> None:
    first = outcome_for_error(error, receive_count=1, policy=POLICY)
    second = outcome_for_error(error, receive_count=2, policy=POLICY)

    assert first[0] == second[0] == "release"
    assert not first[1].done
    assert first[1].delay_seconds == 30
    assert second[1].delay_seconds == 60
    assert "transient failure, will retry in about 30 s" in first[1].reason


def test_a_longer_retry_after_sets_the_delay() -> None:
    _, outcome = outcome_for_error(JudgeTransientError("429", retry_after_seconds=95.2), 1, POLICY)

    assert outcome.delay_seconds == 96


def test_an_open_circuit_says_when_the_attempt_is_retried() -> None:
    retry_at = datetime.now(UTC) + timedelta(seconds=42)

    action, outcome = outcome_for_error(JudgeUnavailableError("circuit open", retry_at), 1, POLICY)

    assert action == "release"
    assert outcome.delay_seconds is not None
    assert 40 <= outcome.delay_seconds <= 43
    assert f"will be retried at {retry_at.isoformat(timespec='seconds')}" in outcome.reason
    assert outcome.reason.startswith("judge unavailable")


@pytest.mark.parametrize(
    "error", [JudgeTransientError("529"), JudgeUnavailableError("circuit open", datetime.now(UTC)), KeyError("x")]
)
def test_on_the_last_receive_the_attempt_fails_and_the_message_goes_to_the_dead_letter_queue(error: Exception) -> None:
    action, outcome = outcome_for_error(error, receive_count=5, policy=POLICY)

    assert action == "fail"
    assert not outcome.done  # left on the queue: SQS moves it to the dead-letter queue
    assert "gave up after 5 deliveries" in outcome.reason
    assert "make redrive" in outcome.reason


def test_unexpected_errors_are_named_and_retried() -> None:
    action, outcome = outcome_for_error(KeyError("stages"), 1, POLICY)

    assert action == "release"
    assert "unexpected failure" in outcome.reason
    assert "KeyError" in outcome.reason
