"""The circuit-breaker interface the scorer uses around judge calls.

``JudgeBreaker.call(fn)`` runs ``fn`` or raises JudgeUnavailableError while the circuit is open. Only transient
judge failures count towards opening it; bad requests and auth errors do not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")


class JudgeBreaker(Protocol):
    def call(self, fn: Callable[[], T]) -> T: ...


class NoBreaker:
    """No circuit breaker (no breaker table configured): every call goes through."""

    def call(self, fn: Callable[[], T]) -> T:
        return fn()
