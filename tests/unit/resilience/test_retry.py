"""Judge retries: 1 s, 2 s, 4 s; retry-after honoured when it fits; never a wait past the deadline."""

from __future__ import annotations

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


def test_retry_after_is_honoured_when_it_fits() -> None:
    fake = FakeTime()
    _, call = _failing([JudgeTransientError("429", retry_after_seconds=7)])

    call_with_retries(call, deadline=100, max_retries=3, base_seconds=1, clock=fake.clock, sleep=fake.sleep)

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
