"""The circuit breaker around judge calls, its state shared by every scorer instance through DynamoDB.

``JudgeBreaker.call(fn)`` runs ``fn`` or raises :class:`JudgeUnavailableError` (with the time a retry makes sense)
while the circuit is open. :class:`DynamoJudgeBreaker` is Powertools' circuit breaker utility (alpha, pinned):

- only :class:`JudgeTransientError` counts as a failure (rate limits, overload, 5xx, timeouts, connection errors);
  bad requests, authentication errors and invalid output pass through without touching the circuit;
- ``failure_threshold`` consecutive transient failures open it; after ``recovery_seconds`` one caller, elected by a
  conditional DynamoDB write, probes the judge; one successful probe closes it, a failed one reopens it.

Where the utility falls short of "5 consecutive failures across the fleet": it counts failures in memory per
execution environment and persists only transitions, so N instances each seeing fewer than the threshold do not
open the circuit. Its clock is the wall clock (not injectable), and it fails open when DynamoDB is unreachable.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar, cast

from session_scoring.errors import JudgeTransientError, JudgeUnavailableError
from session_scoring.log import logger
from session_scoring.observability import record_breaker_transition

T = TypeVar("T")


class JudgeBreaker(Protocol):
    def call(self, fn: Callable[[], T]) -> T: ...


class NoBreaker:
    """No circuit breaker (no breaker table configured): every call goes through."""

    def call(self, fn: Callable[[], T]) -> T:
        return fn()


def _run(fn: Callable[[], Any]) -> Any:
    return fn()


class DynamoJudgeBreaker:
    """Powertools' circuit breaker with CircuitBreakerDynamoDBPersistence (table key ``id``, TTL ``expiration``)."""

    def __init__(
        self,
        dynamodb_client: Any,
        table_name: str,
        circuit_name: str,
        *,
        failure_threshold: int = 5,
        recovery_seconds: int = 60,
        cache_seconds: int = 5,
    ) -> None:
        from aws_lambda_powertools.utilities.circuit_breaker import CircuitBreakerConfig, circuit_breaker
        from aws_lambda_powertools.utilities.circuit_breaker.persistence import CircuitBreakerDynamoDBPersistence

        self.circuit_name = circuit_name
        self._recovery_seconds = recovery_seconds
        persistence = CircuitBreakerDynamoDBPersistence(table_name=table_name, boto3_client=dynamodb_client)
        config = CircuitBreakerConfig(
            failure_threshold=failure_threshold,
            recovery_timeout=recovery_seconds,
            success_threshold=1,
            handled_exceptions=(JudgeTransientError,),
            local_cache_max_age=cache_seconds,
        )
        decorate = circuit_breaker(
            name=circuit_name, persistence_store=persistence, config=config, on_transition=self._log_transition
        )
        self._protected = cast(Callable[[Callable[[], Any]], Any], decorate(_run))

    def call(self, fn: Callable[[], T]) -> T:
        from aws_lambda_powertools.utilities.circuit_breaker import CircuitBreakerOpenError, CircuitState

        try:
            return cast(T, self._protected(fn))
        except CircuitBreakerOpenError as exc:
            now = datetime.now(UTC)
            circuit = exc.circuit
            if circuit is not None and circuit.state == CircuitState.OPEN and circuit.opened_at is not None:
                retry_at = datetime.fromtimestamp(circuit.opened_at + self._recovery_seconds, UTC)
            else:
                # Half-open: another caller is probing; by the end of its lease the circuit has moved on.
                retry_at = now + timedelta(seconds=self._recovery_seconds)
            retry_at = max(retry_at, now + timedelta(seconds=1))
            raise JudgeUnavailableError(
                f"the judge is unavailable (circuit '{self.circuit_name}' is open after repeated transient "
                f"failures); it is not called until {retry_at.isoformat(timespec='seconds')}",
                retry_at=retry_at,
            ) from exc

    @staticmethod
    def _log_transition(transition: Any) -> None:
        logger.warning(
            "judge circuit changed state",
            extra={
                "circuit": transition.circuit_name,
                "from_state": str(transition.from_state),
                "to_state": str(transition.to_state),
            },
        )
        record_breaker_transition(str(transition.to_state))
