"""Health: is the service able to score right now, and if not, why.

The database is required (:class:`DatabaseUnavailableError`, 503 without it); an open circuit or an unreachable queue
makes the answer ``degraded``. :meth:`HealthService.status` is the public status alone, :meth:`HealthService.check`
the details for an authenticated caller.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from session_scoring import __version__
from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.errors import ConfigurationError, QueueUnavailableError
from session_scoring.models.api import Health, HealthStatus
from session_scoring.resilience.breaker import JudgeBreaker


class QueueDepth(Protocol):
    def depth(self) -> int: ...


class DatabasePing(Protocol):
    def ping(self) -> None: ...


@dataclass(eq=False)
class HealthService:
    config: ScoringConfig
    database: DatabasePing
    breaker: Callable[[], JudgeBreaker]
    queue: Callable[[], QueueDepth]

    def status(self) -> HealthStatus:
        """``ok`` or ``degraded``, and nothing else: what anyone may learn."""
        return HealthStatus(status=self.check().status)

    def check(self) -> Health:
        """The status, the problems behind it, and what is running (version, criteria, judge, circuit, queue)."""
        self.database.ping()
        problems: list[str] = []
        circuit = self.breaker().state()
        if circuit in ("OPEN", "HALF_OPEN"):
            problems.append("the judge's circuit is open after repeated failures: scoring waits until it closes")
        elif circuit == "unknown":
            problems.append("the judge's circuit state cannot be read (DynamoDB): the breaker fails open")
        queued: int | None = None
        try:
            queued = self.queue().depth()
        except (QueueUnavailableError, ConfigurationError) as exc:
            problems.append(f"the scoring queue cannot be reached: {exc.message}")
        return Health(
            status="degraded" if problems else "ok",
            problems=problems,
            judge_circuit=circuit,
            queued_jobs=queued,
            version=__version__,
            scoring_enabled=self.config.enabled,
            criteria_hash=self.config.criteria_hash,
            llm_provider=self.config.llm_provider,
            llm_model=self.config.llm_model,
        )
