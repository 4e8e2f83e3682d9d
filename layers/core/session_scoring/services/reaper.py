"""The reaper: no attempt stays active forever because its queue message or its scorer is gone.

``AttemptReaper.reap`` finds attempts nobody works on (``ScoreRepository.stranded``) and sends each a fresh job
message (the job is idempotent by ``score_id``, so a message that was not lost after all costs one acknowledged
duplicate); one claimed ``max_deliveries`` times already is failed with its reason, as the dead-letter path would.
After a restart of the local stack (``queue_is_new``) every active attempt is requeued at once.

Runs too: a run whose planning stopped (its planning message lost with the local stack's in-memory queue, or never
sent) is sent a planning message for the page it stands at. Planning a page is idempotent (the run's cursor and the
one-active-attempt index decide: a page planned twice queues no session twice), so a message that was not lost after
all costs one acknowledged duplicate. See docs/resilience.md.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from session_scoring.errors import QueueUnavailableError, ScoringError
from session_scoring.infrastructure.queue import JobQueue
from session_scoring.log import logger
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.records import StrandedAttempt
from session_scoring.models.runs import RunPlanningJob
from session_scoring.observability import Metric, count, subsegment
from session_scoring.services.scorer import MAX_RETRY_DELAY_SECONDS

IDLE_MARGIN_SECONDS = 120


def pending_idle_limit(lease_seconds: int) -> int:
    """How long a ``pending`` attempt may go without activity before its message is presumed lost: a scorer's lease
    (a claim released at its end), the longest retry delay, and a margin."""
    return lease_seconds + MAX_RETRY_DELAY_SECONDS + IDLE_MARGIN_SECONDS


@dataclass
class ReapResult:
    requeued: int = 0
    failed: int = 0
    planning_resent: int = 0
    """Runs whose planning was sent again (stopped: a lost planning message)."""
    notes: list[str] = field(default_factory=list)


class StalledRuns(Protocol):
    """Runs whose planning stopped (``repositories.runs``)."""

    def stalled_planning(self, older_than_seconds: int, limit: int) -> list[tuple[uuid.UUID, int]]: ...


class PlanningQueue(Protocol):
    """Where planning messages go (the runs queue)."""

    def send_planning(self, job: RunPlanningJob) -> None: ...


class StrandedAttempts(Protocol):
    """Attempts nobody works on, and failing them (``repositories.scores``)."""

    def fail(
        self, score_id: uuid.UUID, claim_token: uuid.UUID | None, message: str, *, dead_lettered: bool = False
    ) -> bool: ...
    def stranded(self, pending_after_seconds: int, limit: int, *, held: bool = False) -> list[StrandedAttempt]: ...


@dataclass(eq=False)
class AttemptReaper:
    repository: StrandedAttempts
    queue: JobQueue
    max_deliveries: int
    lease_seconds: int
    settle_run: Callable[[uuid.UUID], object] | None = None
    runs: StalledRuns | None = None
    planning_queue: Callable[[], PlanningQueue] | None = None

    def reap(self, *, queue_is_new: bool = False, limit: int = 500) -> ReapResult:
        """Re-enqueue (or, past the delivery limit, fail) every stranded attempt, up to ``limit`` per run.
        ``queue_is_new``: every pending attempt is stranded now and every ``in_progress`` one is requeued too."""
        result = ReapResult()
        pending_after = 0 if queue_is_new else pending_idle_limit(self.lease_seconds)
        with subsegment("reap") as segment:
            for attempt in self.repository.stranded(pending_after, limit):
                if attempt.delivery_count >= self.max_deliveries:
                    self._give_up(attempt, result)
                else:
                    self._requeue(attempt, result)
            if queue_is_new:
                for attempt in self.repository.stranded(pending_after, limit, held=True):
                    self._requeue(attempt, result)
            self._resume_planning(0 if queue_is_new else pending_after, limit, result)
            reaped = {"requeued": result.requeued, "failed": result.failed, "planning_resent": result.planning_resent}
            segment.put_metadata(key="reaped", value=reaped)
        count(Metric.ATTEMPTS_REQUEUED, result.requeued)
        count(Metric.ATTEMPTS_REAPED_FAILED, result.failed)
        if result.requeued or result.failed:
            logger.warning("stranded attempts reaped", extra={"requeued": result.requeued, "failed": result.failed})
        if result.planning_resent:
            logger.warning("stalled run planning resumed", extra={"runs": result.planning_resent})
        return result

    def _resume_planning(self, older_than_seconds: int, limit: int, result: ReapResult) -> None:
        """Send a planning message for the page each stalled run stands at (``older_than_seconds`` 0: every run
        still planning, as after a restart of the local stack, whose queues are new)."""
        if self.runs is None or self.planning_queue is None:
            return
        for run_id, page in self.runs.stalled_planning(older_than_seconds, limit):
            try:
                self.planning_queue().send_planning(RunPlanningJob(run_id=run_id, page=page))
            except QueueUnavailableError as exc:
                result.notes.append(f"run {run_id}: planning not resent ({exc.message}); the next run tries again")
                continue
            result.planning_resent += 1
            result.notes.append(f"run {run_id}: planning resent from page {page}")

    def _requeue(self, attempt: StrandedAttempt, result: ReapResult) -> None:
        job = ScoringJob(
            score_id=attempt.score_id,
            session_id=attempt.session_id,
            requested_by=attempt.requested_by,
            requested_at=attempt.requested_at,
            run_id=attempt.run_id,  # so the run settles when this job ends, as for its first message
        )
        try:
            self.queue.send(job)
        except QueueUnavailableError as exc:
            result.notes.append(f"{attempt.score_id}: not requeued ({exc.message}); the next run tries again")
            return
        result.requeued += 1
        result.notes.append(f"{attempt.score_id} ({attempt.session_id}): {attempt.status.value}, requeued")

    def _give_up(self, attempt: StrandedAttempt, result: ReapResult) -> None:
        reason = (
            f"stranded: the attempt was {attempt.status.value} with no scorer holding it and no queue message, after "
            f"{attempt.delivery_count} deliveries (the limit is {self.max_deliveries}); request a new score "
            "(POST with force_rescore) to try again"
        )
        if self.repository.fail(attempt.score_id, None, reason):
            result.failed += 1
            result.notes.append(f"{attempt.score_id} ({attempt.session_id}): failed, {reason}")
            if attempt.run_id is not None and self.settle_run is not None:
                # No job will end for this attempt, so nothing else would mark its run as finished.
                try:
                    self.settle_run(attempt.run_id)
                except ScoringError as exc:
                    result.notes.append(f"run {attempt.run_id}: not settled ({exc.message}); reading it settles it")
