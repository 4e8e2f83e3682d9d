"""Judge retries: 1 s, 2 s, 4 s; retry-after honoured when it fits; never a wait past the deadline."""

from __future__ import annotations

import logging

import pytest

from session_scoring.errors import JudgePermanentError, JudgeTransientError
from session_scoring.resilience.retry import call_with_retries


class FakeTime:
    """A clock that only moves when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _failing(errors: list[Exception], result: str = "verdict") -> tuple[list[float], object]:
    time_left: list[float] = []

    def call(left: float) -> str:
        time_left.append(left)
        if errors:
            raise errors.pop(0)
        return result

    return time_left, call


def test_transient_errors_are_retried_after_1_2_4_seconds() -> None:
    fake = FakeTime()
    _, call = _failing([JudgeTransientError("529") for _ in range(3)])

    result = call_with_retries(call, deadline=100, max_retries=3, base_seconds=1, clock=fake.clock, sleep=fake.sleep)

    assert result == "verdict"
    assert fake.sleeps == [1, 2, 4]


def test_gives_up_after_three_retries_with_the_last_error() -> None:
    fake = FakeTime()
    _, call = _failing([JudgeTransientError(f"attempt {n}") for n in range(1, 6)])

    with pytest.raises(JudgeTransientError, match="attempt 4"):
        call_with_retries(call, deadline=100, max_retries=3, base_seconds=1, clock=fake.clock, sleep=fake.sleep)
    assert fake.sleeps == [1, 2, 4]


def test_a_short_retry_after_is_honoured_and_each_retry_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeTime()
    _, call = _failing([JudgeTransientError("the judge answered 429: rate limited", retry_after_seconds=3)])

    with caplog.at_level(logging.INFO):
        call_with_retries(call, deadline=100, max_retries=3, base_seconds=1, clock=fake.clock, sleep=fake.sleep)

    assert fake.sleeps == [3]
    retries = [r for r in caplog.records if r.getMessage() == "judge call failed, retrying"]
    assert len(retries) == 1
    assert retries[0].levelno == logging.INFO
    assert retries[0].reason == "the judge answered 429: rate limited"  # type: ignore[attr-defined]
    assert retries[0].wait_seconds == 3  # type: ignore[attr-defined]
    assert retries[0].attempt == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("retry_after", [7, 60])
def test_a_retry_after_longer_than_the_max_wait_is_raised_not_slept(retry_after: float) -> None:
    fake = FakeTime()
    _, call = _failing([JudgeTransientError("429", retry_after_seconds=retry_after)])

    with pytest.raises(JudgeTransientError) as raised:
        call_with_retries(
            call, deadline=900, max_retries=3, base_seconds=1, max_wait_seconds=5, clock=fake.clock, sleep=fake.sleep
        )

    assert fake.sleeps == []
    assert raised.value.retry_after_seconds == retry_after


def test_the_max_wait_is_a_setting() -> None:
    fake = FakeTime()
    _, call = _failing([JudgeTransientError("429", retry_after_seconds=7)])

    call_with_retries(
        call, deadline=100, max_retries=3, base_seconds=1, max_wait_seconds=10, clock=fake.clock, sleep=fake.sleep
    )

    assert fake.sleeps == [7]


def test_a_retry_after_past_the_deadline_is_not_slept() -> None:
    fake = FakeTime()
    _, call = _failing([JudgeTransientError("429", retry_after_seconds=60)])

    with pytest.raises(JudgeTransientError):
        call_with_retries(call, deadline=30, max_retries=3, base_seconds=1, clock=fake.clock, sleep=fake.sleep)
    assert fake.sleeps == []


def test_each_call_gets_only_the_time_left() -> None:
    fake = FakeTime()
    time_left, call = _failing([JudgeTransientError("timeout")])

    call_with_retries(call, deadline=20, max_retries=3, base_seconds=4, clock=fake.clock, sleep=fake.sleep)

    assert time_left == [20, 16]


def test_permanent_errors_are_not_retried() -> None:
    fake = FakeTime()
    _, call = _failing([JudgePermanentError("401")])

    with pytest.raises(JudgePermanentError):
        call_with_retries(call, deadline=100, max_retries=3, base_seconds=1, clock=fake.clock, sleep=fake.sleep)
    assert fake.sleeps == []
