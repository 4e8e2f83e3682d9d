"""Write a completed score back to the trace it came from; the score stays completed whatever happens here. A
transient failure is ``retrying`` (``failed`` on the last delivery), a refusal or a configuration error ``failed`` at
once; the judge's circuit breaker never sees the store.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from session_scoring.errors import DatabaseUnavailableError, ScoringError, SessionDataError
from session_scoring.log import logger
from session_scoring.masking import Masker, default_masker
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.records import ScoreRecord
from session_scoring.models.scores import ScoreStatus, band_for
from session_scoring.repositories.uploads import UPLOAD_PREFIX
from session_scoring.services.scorer import JobOutcome, ScorerPolicy, outcome_for_error
from session_scoring.sinks.base import VerdictSink, VerdictToWrite


def verdict_to_write(record: ScoreRecord, name: str, masker: Masker | None = None) -> VerdictToWrite:
    """What is written back of a completed attempt, its reasoning masked as it leaves (docs/masking.md)."""
    if record.status is not ScoreStatus.COMPLETED or record.total_score is None:
        raise SessionDataError(f"attempt {record.score_id} is {record.status.value}, not completed: nothing to write")
    breakdown = record.score_breakdown or {}
    return VerdictToWrite(
        score_id=record.score_id,
        trace_id=record.session_id,
        name=name,
        total_score=record.total_score,
        band=band_for(record.total_score).band,
        breakdown={dimension: int(points) for dimension, points in breakdown.items()},  # the rubric's keys
        reasoning=(masker or default_masker()).mask_text(record.score_reasoning or ""),
        criteria_hash=record.criteria_hash,
        judge_model=record.judge_model,
    )


class ScoreReads(Protocol):
    """The attempt a write-back sends (``repositories.scores``)."""

    def get(self, score_id: uuid.UUID) -> ScoreRecord | None: ...


class WriteBackStore(Protocol):
    """The write-backs' rows (``repositories.writebacks``)."""

    def failed(self, score_id: uuid.UUID, error: str, retry: bool) -> None: ...
    def take(self, score_id: uuid.UUID, sink: str, stale_seconds: int) -> int | None: ...
    def written(self, score_id: uuid.UUID, detail: str) -> None: ...


@dataclass(eq=False)
class VerdictWriteBack:
    scores: ScoreReads
    writebacks: WriteBackStore
    sink: Callable[[], VerdictSink]
    """Built on first use, inside the error handling: a sink that cannot be built (a bad URL, write-back asked
    of a source that is not a trace store) fails the write-back with the reason, never the score."""
    sink_name: str
    policy: ScorerPolicy
    name: str
    stale_seconds: int
    masker: Masker = dataclasses.field(default_factory=default_masker)

    def after_completion(self, job: ScoringJob, receive_count: int) -> JobOutcome:
        """Write the completed attempt back to its trace unless done already; the job's outcome."""
        if job.session_id.startswith(UPLOAD_PREFIX):
            return JobOutcome.ack("completed (an uploaded session: no trace to write back to)")
        try:
            tries = self.writebacks.take(job.score_id, self.sink_name, self.stale_seconds)
        except DatabaseUnavailableError as exc:
            return JobOutcome.retry(f"score completed; write-back not started: {exc.message}", 30)
        if tries is None:
            return JobOutcome.ack("completed; its write-back is done or under way")
        try:
            record = self.scores.get(job.score_id)
            if record is None:
                raise SessionDataError(f"attempt {job.score_id} no longer exists")
            detail = self.sink().write(verdict_to_write(record, self.name, self.masker))
        except Exception as exc:  # noqa: BLE001 - every failure must end in a readable record
            return self._failed(job, exc, receive_count, tries)
        try:
            self.writebacks.written(job.score_id, detail)
        except DatabaseUnavailableError as exc:
            # Written, not recorded: the next delivery takes the write-back again once this take is stale, and the
            # sink writes nothing twice.
            return JobOutcome.retry(
                f"score completed and written back; not recorded: {exc.message}", self.stale_seconds + 5
            )
        logger.info("score written back", extra=self._log_keys(job, tries))
        return JobOutcome.ack(f"completed; written back to {self.sink_name}: {detail}")

    def _failed(self, job: ScoringJob, exc: Exception, receive_count: int, tries: int) -> JobOutcome:
        action, outcome = outcome_for_error(exc, receive_count, self.policy)
        reason = exc.message if isinstance(exc, ScoringError) else f"unexpected error: {type(exc).__name__}: {exc}"
        retry = action == "release"
        if action == "fail" and not outcome.done:  # a transient failure on the last allowed delivery
            reason = f"{reason} (gave up after {receive_count} deliveries)"
        extra = {**self._log_keys(job, tries), "retry": retry, "reason": reason}
        logger.warning("write-back failed", extra=extra, exc_info=not isinstance(exc, ScoringError))
        try:
            self.writebacks.failed(job.score_id, reason, retry)
        except DatabaseUnavailableError as db_exc:
            return JobOutcome.retry(
                f"score completed; write-back failed ({reason}) and not recorded: {db_exc.message}", 30
            )
        if retry:
            return JobOutcome.retry(
                f"score completed; write-back to {self.sink_name} will be retried: {outcome.reason}",
                outcome.delay_seconds,
            )
        return JobOutcome.ack(f"score completed; write-back to {self.sink_name} failed: {reason}")

    def _log_keys(self, job: ScoringJob, tries: int) -> dict[str, object]:
        return {"score_id": str(job.score_id), "session_id": job.session_id, "sink": self.sink_name, "tries": tries}
