"""The queue side of scoring: run one job and, when it must come back later, delay its next delivery.

A job handed back because the judge was busy (``JobOutcome.deferrable``) comes back as a fresh copy of its message,
sent with ``DelaySeconds`` and one more ``deferrals``, and the original is acknowledged, so the busy judge uses none
of the job's deliveries; if the copy cannot be sent the original is delayed instead. See docs/resilience.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

from session_scoring.errors import ScoringError
from session_scoring.log import logger
from session_scoring.models.jobs import ScoringJob
from session_scoring.observability import record_scores_cancelled
from session_scoring.services.scorer import JobOutcome, Scorer


class ReturnQueue(Protocol):
    """The queue a job came from, as the job service gives jobs back to it."""

    def delay(self, receipt_handle: str, seconds: int) -> None: ...

    def send_later(self, job: ScoringJob, delay_seconds: int) -> None: ...


@dataclass(eq=False)
class JobService:
    scorer: Scorer
    queue: ReturnQueue | None
    settle_run: Callable[[UUID], int] | None = None
    """Brings a scoring run's status up to date after one of its jobs (completed when none is active); returns
    how many attempts it cancelled (those of a cancelled run that came back to pending)."""

    def handle(self, job: ScoringJob, receipt_handle: str, receive_count: int, remaining_seconds: float) -> JobOutcome:
        outcome = self.scorer.process(job, receive_count, remaining_seconds)
        delay = outcome.delay_seconds
        if not outcome.done and delay and self.queue is not None:
            if outcome.deferrable and self._send_copy(job, delay):
                outcome = JobOutcome.ack(f"deferred as a fresh message: {outcome.reason}")
            else:
                try:
                    self.queue.delay(receipt_handle, delay)
                except Exception as exc:  # noqa: BLE001 - the message still comes back after its normal visibility timeout
                    logger.warning("could not delay the message", extra={"error": str(exc)})
        if job.run_id is not None and self.settle_run is not None:
            try:
                record_scores_cancelled(self.settle_run(job.run_id))
            except ScoringError as exc:  # the next job of the run, or reading the run, settles it
                logger.warning("could not settle the run", extra={"run_id": str(job.run_id), "error": exc.message})
        return outcome

    def _send_copy(self, job: ScoringJob, delay_seconds: int) -> bool:
        """Send the job's deferred copy; False (logged) when the queue did not take it."""
        assert self.queue is not None
        copy = job.deferred()
        try:
            self.queue.send_later(copy, delay_seconds)
        except Exception as exc:  # noqa: BLE001 - any failure keeps the original message: never lose the job
            logger.warning(
                "could not send the deferred copy; the message is delayed instead and this delivery counts",
                extra={"score_id": str(job.score_id), "error": str(exc)},
            )
            return False
        logger.info(
            "job deferred as a fresh message",
            extra={"score_id": str(job.score_id), "deferrals": copy.deferrals, "delay_seconds": delay_seconds},
        )
        return True
