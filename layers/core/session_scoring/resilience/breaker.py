"""The circuit breaker around judge calls, its state shared by every scorer instance through DynamoDB.

``JudgeBreaker.call(fn)`` runs ``fn`` or raises :class:`JudgeUnavailableError` (with the time a retry makes sense)
while the circuit is open. :class:`DynamoJudgeBreaker` is Powertools' circuit breaker utility with one extension: only
:class:`JudgeTransientError` counts, and failures are counted in one DynamoDB item shared by the fleet
(``<circuit>#failures``, an atomic ``ADD``; a success resets it), so ``failure_threshold`` consecutive failures across
all instances open the circuit, not per instance. The utility keeps its state model and the half-open probe. With
DynamoDB unreachable the breaker fails open (a breaker must not become the outage) and says so in the log and the
``on_state_unavailable`` hook. docs/resilience.md describes it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol, TypeVar, cast

from session_scoring.errors import JudgeTransientError, JudgeUnavailableError
from session_scoring.log import logger

T = TypeVar("T")


class JudgeBreaker(Protocol):
    def call(self, fn: Callable[[], T]) -> T: ...

    def settle(self) -> None:
        """Wait for the breaker's own work that a call left running (a job calls it before it ends)."""
        ...

    def state(self) -> str | None:
        """CLOSED, OPEN or HALF_OPEN; ``unknown`` when the state cannot be read; None without a breaker."""
        ...


class NoBreaker:
    """No circuit breaker (no breaker table configured): every call goes through."""

    def call(self, fn: Callable[[], T]) -> T:
        return fn()

    def settle(self) -> None:
        return None

    def state(self) -> str | None:
        return None


_OUT_OF_REACH = 2**31 - 1
"""The utility's own (per-instance) failure threshold: never reached, the shared counter trips the circuit."""

COUNTER_TTL_SECONDS = 86_400
"""The counter item expires a day after its last failure, like the utility's own items."""


class DynamoJudgeBreaker:
    """Powertools' circuit breaker with CircuitBreakerDynamoDBPersistence (table key ``id``, TTL ``expiration``),
    tripped by a failure counter shared across instances."""

    def __init__(
        self,
        dynamodb_client: Any,
        table_name: str,
        circuit_name: str,
        *,
        failure_threshold: int = 5,
        recovery_seconds: int = 60,
        cache_seconds: int = 5,
        on_transition: Callable[[str, str], None] | None = None,
        on_state_unavailable: Callable[[], None] | None = None,
    ) -> None:
        from aws_lambda_powertools.utilities.circuit_breaker import CircuitBreakerConfig, circuit_breaker
        from aws_lambda_powertools.utilities.circuit_breaker.persistence import CircuitBreakerDynamoDBPersistence

        self.circuit_name = circuit_name
        self._client = dynamodb_client
        self._table = table_name
        self._counter_key = {"id": {"S": f"{circuit_name}#failures"}}
        self._threshold = failure_threshold
        self._recovery_seconds = recovery_seconds
        self._on_transition = on_transition
        self._on_state_unavailable = on_state_unavailable
        self._lock = threading.Lock()
        self._background: ThreadPoolExecutor | None = None
        self._resetting: Future[None] | None = None
        self._persistence = CircuitBreakerDynamoDBPersistence(table_name=table_name, boto3_client=dynamodb_client)
        config = CircuitBreakerConfig(
            failure_threshold=_OUT_OF_REACH,
            recovery_timeout=recovery_seconds,
            success_threshold=1,
            handled_exceptions=(JudgeTransientError,),
            local_cache_max_age=cache_seconds,
        )
        decorate = circuit_breaker(
            name=circuit_name, persistence_store=self._persistence, config=config, on_transition=self._transition
        )
        self._protected = cast(Callable[[Callable[[], Any]], Any], decorate(self._counted))

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

    def settle(self) -> None:
        """Wait for the counter reset a success started in the background (the scorer calls it before a job ends, so
        a Lambda environment is never frozen with a reset in flight that would land after later failures)."""
        with self._lock:
            pending, self._resetting = self._resetting, None
        if pending is not None:
            pending.result()  # never raises: the reset fails open itself

    def state(self) -> str | None:
        """The circuit's shared state as stored (CLOSED before the utility stored any; "unknown" when unreadable)."""
        # Read directly (the persistence's documented key_attr and state_attr), not through get_state, which fails
        # open to CLOSED where health must say the state is unknown.
        persistence = self._persistence
        try:
            item = self._client.get_item(
                TableName=self._table, Key={persistence.key_attr: {"S": self.circuit_name}}
            ).get("Item")
        except Exception as exc:  # noqa: BLE001 - health reports it, never fails on it
            self._state_unavailable("reading the state", exc)
            return "unknown"
        return "CLOSED" if item is None else str(item[persistence.state_attr]["S"])

    def _counted(self, fn: Callable[[], Any]) -> Any:
        """The protected call: keeps the fleet's consecutive-failure counter and trips the circuit at the threshold."""
        try:
            result = fn()
        except JudgeTransientError:
            self.settle()  # an earlier success's reset lands before this failure is counted, never after
            failures = self._add_failure()
            if failures is not None and failures >= self._threshold:
                self._trip(failures)
            raise
        self._reset_in_background()
        return result

    def _reset_in_background(self) -> None:
        """Start the reset on the breaker's one worker thread (which keeps this instance's resets in order) and
        return: its round trip overlaps what the caller does next; ``settle`` waits for it."""
        with self._lock:
            if self._background is None:
                self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judge-breaker")
            self._resetting = self._background.submit(self._reset_failures)

    def _add_failure(self) -> int | None:
        expires = int(datetime.now(UTC).timestamp()) + COUNTER_TTL_SECONDS
        try:
            answer = self._client.update_item(
                TableName=self._table,
                Key=self._counter_key,
                UpdateExpression="ADD failures :one SET expiration = :expires",
                ExpressionAttributeValues={":one": {"N": "1"}, ":expires": {"N": str(expires)}},
                ReturnValues="UPDATED_NEW",
            )
        except Exception as exc:  # noqa: BLE001 - fail open: the judge's own error is what the caller must see
            self._state_unavailable("counting a failure", exc)
            return None
        return int(answer["Attributes"]["failures"]["N"])

    def _reset_failures(self) -> None:
        """After a success: set the fleet's counter back to zero, writing only when a read says it is not zero.

        The read is strongly consistent and follows the success (the utility's cached state read precedes the call),
        so a failure elsewhere during the call does not outlive this success."""
        try:
            stored = self._client.get_item(
                TableName=self._table,
                Key=self._counter_key,
                ConsistentRead=True,
                ProjectionExpression="failures",
            ).get("Item", {})
            if int(stored.get("failures", {}).get("N", "0")) == 0:
                return
            self._client.update_item(
                TableName=self._table,
                Key=self._counter_key,
                UpdateExpression="SET failures = :zero",
                ConditionExpression="failures > :zero",
                ExpressionAttributeValues={":zero": {"N": "0"}},
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            pass  # another success reset it between the read and this write
        except Exception as exc:  # noqa: BLE001 - fail open
            self._state_unavailable("resetting the failure count", exc)

    def _trip(self, failures: int) -> None:
        """Open the circuit, once: only while the stored state is still CLOSED (a probe's failure is the utility's)."""
        from aws_lambda_powertools.utilities.circuit_breaker import CircuitState

        if self._persistence.get_state(self.circuit_name).state != CircuitState.CLOSED:
            return
        try:
            self._persistence.save_open(
                self.circuit_name, failure_count=failures, opened_at=int(datetime.now(UTC).timestamp())
            )
        except Exception as exc:  # noqa: BLE001 - fail open
            self._state_unavailable("opening the circuit", exc)
            return
        self._report(str(CircuitState.CLOSED), str(CircuitState.OPEN), failures)

    def _transition(self, transition: Any) -> None:
        self._report(str(transition.from_state), str(transition.to_state), None)

    def _report(self, from_state: str, to_state: str, failures: int | None) -> None:
        logger.warning(
            "judge circuit changed state",
            extra={
                "circuit": self.circuit_name,
                "from_state": from_state,
                "to_state": to_state,
                "consecutive_failures": failures,
            },
        )
        if self._on_transition is not None:
            self._on_transition(from_state, to_state)

    def _state_unavailable(self, doing: str, exc: Exception) -> None:
        logger.warning(
            "judge circuit state unavailable; failing open (the judge is called without circuit protection)",
            extra={"circuit": self.circuit_name, "while": doing, "error": f"{type(exc).__name__}: {exc}"},
        )
        if self._on_state_unavailable is not None:
            self._on_state_unavailable()
