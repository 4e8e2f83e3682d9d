"""The queue side of scoring: run one job and, when it must come back later, delay its next delivery."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol
from uuid import UUID

from session_scoring.errors import ScoringError
from session_scoring.log import logger
from session_scoring.models.jobs import ScoringJob
from session_scoring.observability import record_scores_cancelled
from session_scoring.services.scorer import JobOutcome, Scorer


class MessageVisibility(Protocol):
    def delay(self, receipt_handle: str, seconds: int) -> None: ...


class JobService:
    def __init__(
        self,
        scorer: Scorer,
        visibility: MessageVisibility | None,
        settle_run: Callable[[UUID], int] | None = None,
    ) -> None:
        self._scorer = scorer
        self._visibility = visibility
        self._settle_run = settle_run
        """Brings a scoring run's status up to date after one of its jobs (completed when none is active); returns
        how many attempts it cancelled (those of a cancelled run that came back to pending)."""

    def handle(self, job: ScoringJob, receipt_handle: str, receive_count: int, remaining_seconds: float) -> JobOutcome:
        outcome = self._scorer.process(job, receive_count, remaining_seconds)
        if not outcome.done and outcome.delay_seconds and self._visibility is not None:
            try:
                self._visibility.delay(receipt_handle, outcome.delay_seconds)
            except Exception as exc:  # noqa: BLE001 - the message still comes back after its normal visibility timeout
                logger.warning("could not delay the message", extra={"error": str(exc)})
        if job.run_id is not None and self._settle_run is not None:
            try:
                record_scores_cancelled(self._settle_run(job.run_id))
            except ScoringError as exc:  # the next job of the run, or reading the run, settles it
                logger.warning("could not settle the run", extra={"run_id": str(job.run_id), "error": exc.message})
        return outcome
