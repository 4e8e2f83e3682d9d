"""Retries of transient judge errors with tenacity: exponential 1 s, 2 s, 4 s, honouring ``retry-after``.

A wait never runs past the deadline (the Lambda's remaining time minus a margin to store the result): when the next
wait would not leave room for another call, the last error is raised instead. Nor does a wait exceed
``max_wait_seconds``: a rate limit (429) or overload (529) asking for a longer ``retry-after`` raises at once, and the
scorer gives the message back with that visibility delay instead of paying for a Lambda that sleeps. Each retry is
logged at INFO with its reason, wait and attempt number.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, stop_any
from tenacity.stop import stop_base

from session_scoring.errors import JudgeTransientError
from session_scoring.log import logger

T = TypeVar("T")

MIN_CALL_SECONDS = 2.0
DEFAULT_MAX_WAIT_SECONDS = 5.0


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
    max_wait_seconds: float = DEFAULT_MAX_WAIT_SECONDS,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``call(time_left)`` and retry it on JudgeTransientError within ``deadline`` (a ``clock`` value), never
    sleeping longer than ``max_wait_seconds`` at a time (a longer wait raises the error for the caller to defer).

    The first call runs as it is; tenacity's retry loop is built only when it fails with a transient error, and
    starts from that failure as its first attempt (the common, successful call pays for no retry machinery)."""

    def once() -> T:
        return call(max(0.1, deadline - clock()))

    try:
        return once()
    except JudgeTransientError as exc:
        first_failure: list[JudgeTransientError] = [exc]

    def attempt() -> T:
        if first_failure:
            raise first_failure.pop()  # attempt 1, already made above
        return once()

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        retry_after = exc.retry_after_seconds if isinstance(exc, JudgeTransientError) else None
        if retry_after is not None:
            return retry_after
        return backoff_seconds(state.attempt_number, base_seconds)

    def cannot_wait(state: RetryCallState) -> bool:
        """The next wait leaves no room for another call before the deadline, or is too long to sleep."""
        upcoming = state.upcoming_sleep or 0.0
        return clock() + upcoming + MIN_CALL_SECONDS > deadline or upcoming > max_wait_seconds

    def log_retry(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        logger.info(
            "judge call failed, retrying",
            extra={
                "reason": getattr(exc, "message", str(exc)),
                "wait_seconds": round(state.upcoming_sleep or 0.0, 3),
                "attempt": state.attempt_number,
                "next_attempt": state.attempt_number + 1,
            },
        )

    retrying = Retrying(
        retry=retry_if_exception_type(JudgeTransientError),
        stop=stop_any(stop_after_attempt(max_retries + 1), stop_when(cannot_wait)),
        wait=wait,
        sleep=sleep,
        before_sleep=log_retry,
        reraise=True,
    )
    return retrying(attempt)
