"""The one error -> ack/retry mapping of the scorer (`outcome_for_error`)."""

from __future__ import annotations

import dataclasses
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


# --- a busy judge: the hand-back is deferred as a fresh copy, not counted against the job ---------------------------

DEFERRING = dataclasses.replace(POLICY, max_deferrals=3)
RATE_LIMITED = JudgeTransientError("the judge answered 429: slow down", retry_after_seconds=40.0)


def test_a_rate_limit_with_retry_after_is_deferred_for_that_long_with_a_note_saying_until_when() -> None:
    before = datetime.now(UTC)

    action, outcome = outcome_for_error(RATE_LIMITED, receive_count=1, policy=DEFERRING, deferrals=0)

    assert action == "release"
    assert outcome.deferrable
    assert not outcome.done
    assert outcome.delay_seconds == 40
    until = datetime.fromisoformat(outcome.reason.split("deferred until ")[1].split(",")[0])
    assert before + timedelta(seconds=39) <= until <= datetime.now(UTC) + timedelta(seconds=41)
    assert "deferral 1 of 3" in outcome.reason
    assert "will retry in about 40 s" in outcome.reason
    assert "429" in outcome.reason


def test_an_open_circuit_is_deferred_until_it_lets_a_probe_through() -> None:
    retry_at = datetime.now(UTC) + timedelta(seconds=42)

    action, outcome = outcome_for_error(JudgeUnavailableError("circuit open", retry_at), 1, DEFERRING, deferrals=2)

    assert action == "release"
    assert outcome.deferrable
    assert outcome.delay_seconds is not None
    assert 40 <= outcome.delay_seconds <= 43
    assert outcome.reason.startswith("judge unavailable (circuit open); deferred until ")
    assert "deferral 3 of 3" in outcome.reason


@pytest.mark.parametrize("error", [RATE_LIMITED, JudgeUnavailableError("circuit open", datetime.now(UTC))])
def test_a_busy_judge_on_the_last_receive_is_deferred_not_dead_lettered(error: Exception) -> None:
    action, outcome = outcome_for_error(error, receive_count=5, policy=DEFERRING, deferrals=0)

    assert action == "release"
    assert outcome.deferrable


@pytest.mark.parametrize("error", [RATE_LIMITED, JudgeUnavailableError("circuit open", datetime.now(UTC))])
def test_past_the_cap_a_busy_judge_takes_the_counted_path(error: Exception) -> None:
    _, middle = outcome_for_error(error, receive_count=1, policy=DEFERRING, deferrals=3)
    action, last = outcome_for_error(error, receive_count=5, policy=DEFERRING, deferrals=3)

    assert not middle.deferrable
    assert middle.delay_seconds is not None
    assert "deferred" not in middle.reason
    assert action == "fail"
    assert not last.done  # left on the queue: SQS moves it to the dead-letter queue
    assert "gave up after 5 deliveries" in last.reason


@pytest.mark.parametrize(
    "error",
    [
        JudgeTransientError("the judge answered 500: internal error"),  # 5xx without retry-after
        JudgeTransientError("the judge did not answer in time (APITimeoutError)"),
        SourceUnavailableError("source down"),
        DatabaseUnavailableError("db down"),
        KeyError("stages"),
    ],
)
def test_the_jobs_own_transient_failures_keep_the_counted_path(error: Exception) -> None:
    action, outcome = outcome_for_error(error, receive_count=1, policy=DEFERRING, deferrals=0)

    assert action == "release"
    assert not outcome.deferrable
    assert outcome.delay_seconds == 30


def test_a_wait_longer_than_sqs_can_delay_a_message_keeps_the_counted_path() -> None:
    error = JudgeTransientError("the judge answered 429: slow down", retry_after_seconds=3600.0)

    _, outcome = outcome_for_error(error, receive_count=1, policy=DEFERRING, deferrals=0)

    assert not outcome.deferrable
    assert outcome.delay_seconds == 900


def test_with_deferral_off_a_busy_judge_is_counted_as_before() -> None:
    _, outcome = outcome_for_error(RATE_LIMITED, receive_count=1, policy=POLICY, deferrals=0)

    assert POLICY.max_deferrals == 0
    assert not outcome.deferrable
    assert outcome.reason.startswith("transient failure, will retry in about 40 s")


def test_the_deferral_delay_grows_with_every_hand_back_up_to_what_sqs_allows() -> None:
    policy = dataclasses.replace(POLICY, max_deferrals=100)
    short = JudgeTransientError("the judge answered 429: slow down", retry_after_seconds=6.0)

    delays = [outcome_for_error(short, 1, policy, deferrals=n)[1].delay_seconds for n in (0, 1, 2, 3, 4, 5, 50)]

    assert delays == [30, 60, 120, 240, 480, 900, 900]
