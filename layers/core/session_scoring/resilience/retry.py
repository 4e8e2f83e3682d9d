"""Retries of transient judge errors with tenacity: exponential 1 s, 2 s, 4 s, honouring ``retry-after``.

A wait never runs past the deadline (the Lambda's remaining time minus a margin to store the result): when the next
wait would not leave room for another call, the last error is raised instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, stop_any
from tenacity.stop import stop_base

from session_scoring.errors import JudgeTransientError

T = TypeVar("T")

MIN_CALL_SECONDS = 2.0


def backoff_seconds(attempt_number: int, base_seconds: float) -> float:
    """1 s, 2 s, 4 s ... for base 1."""
    return float(base_seconds * (2 ** (attempt_number - 1)))


class stop_when(stop_base):
    """Stop when a predicate on the retry state holds."""

    def __init__(self, predicate: Callable[[RetryCallState], bool]) -> None:
        self._predicate = predicate

    def __call__(self, retry_state: RetryCallState) -> bool:
        return self._predicate(retry_state)


def call_with_retries(
    call: Callable[[float], T],
    *,
    deadline: float,
    max_retries: int,
    base_seconds: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``call(time_left)`` and retry it on JudgeTransientError within ``deadline`` (a ``clock`` value)."""

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        retry_after = exc.retry_after_seconds if isinstance(exc, JudgeTransientError) else None
        if retry_after is not None:
            return retry_after
        return backoff_seconds(state.attempt_number, base_seconds)

    def out_of_time(state: RetryCallState) -> bool:
        return clock() + (state.upcoming_sleep or 0.0) + MIN_CALL_SECONDS > deadline

    retrying = Retrying(
        retry=retry_if_exception_type(JudgeTransientError),
        stop=stop_any(stop_after_attempt(max_retries + 1), stop_when(out_of_time)),
        wait=wait,
        sleep=sleep,
        reraise=True,
    )
    return retrying(lambda: call(max(0.1, deadline - clock())))
