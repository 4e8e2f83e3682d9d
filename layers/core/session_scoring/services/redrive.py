"""Dead letters: what waits in the dead-letter queue, and the redrive that sends it back to be scored.

Redrive reads every dead letter (held hidden) and its attempt, reopens each failed attempt to ``pending``, then moves
the messages: with SQS ``StartMessageMoveTask`` where it exists, else by receive-and-resend one by one. If a move
fails, the attempts reopened for it are failed again with their previous reason. See docs/resilience.md.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

from pydantic import ValidationError

from session_scoring.errors import ScoringError
from session_scoring.infrastructure.queue import MoveTaskUnsupportedError, QueuedMessage, SqsDeadLetterQueue
from session_scoring.log import logger
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.records import ScoreRecord
from session_scoring.models.scores import ScoreStatus
from session_scoring.observability import Metric, count

HOLD_SECONDS = 300
"""How long redrive keeps the dead letters it read hidden from other readers while it works."""

MAX_MESSAGES = 10_000
MOVE_TASK_POLL_SECONDS = 2


class FailedAttempts(Protocol):
    """Failed attempts, reopened by a redrive (``repositories.scores``)."""

    def get(self, score_id: uuid.UUID) -> ScoreRecord | None: ...
    def fail(
        self, score_id: uuid.UUID, claim_token: uuid.UUID | None, message: str, *, dead_lettered: bool = False
    ) -> bool: ...
    def reopen_failed(self, score_id: uuid.UUID, note: str) -> bool: ...


@dataclass(frozen=True)
class DeadLetter:
    """One message in the dead-letter queue and the attempt it is for."""

    message_id: str
    receive_count: int
    score_id: uuid.UUID | None
    session_id: str | None
    attempt_status: ScoreStatus | None
    reason: str

    @classmethod
    def describe(cls, message: QueuedMessage, repository: FailedAttempts) -> DeadLetter:
        try:
            job = ScoringJob.model_validate_json(message.body)
        except ValidationError as exc:
            return cls(message.message_id, message.receive_count, None, None, None, f"not a scoring job: {exc}")
        attempt = repository.get(job.score_id)
        if attempt is None:
            return cls(message.message_id, message.receive_count, job.score_id, job.session_id, None, "no such attempt")
        reason = attempt.error_message or f"no failure recorded (the attempt is {attempt.status.value})"
        return cls(message.message_id, message.receive_count, job.score_id, job.session_id, attempt.status, reason)


@dataclass(frozen=True)
class DeadLetterReport:
    approximate_count: int
    letters: list[DeadLetter]


@dataclass(frozen=True)
class RedriveProgress:
    moved: int
    total: int


@dataclass
class RedriveResult:
    method: str
    moved: int = 0
    reopened: int = 0
    skipped: list[str] = field(default_factory=list)
    """Readable notes about dead letters whose attempt was not reopened (and why)."""


Progress = Callable[[RedriveProgress], None]


@dataclass(eq=False)
class DeadLetterService:
    queues: SqsDeadLetterQueue
    repository: FailedAttempts

    def _read_all(self, limit: int) -> list[QueuedMessage]:
        """Every dead letter (up to ``limit``), each once, held hidden for HOLD_SECONDS."""
        seen: dict[str, QueuedMessage] = {}
        while len(seen) < limit:
            batch = self.queues.receive(HOLD_SECONDS)
            fresh = [m for m in batch if m.message_id not in seen]
            if not fresh:
                break
            seen.update((m.message_id, m) for m in fresh)
        return list(seen.values())

    def inspect(self, limit: int = 1000) -> DeadLetterReport:
        """How many jobs wait in the dead-letter queue, which sessions they are for and why they failed."""
        count = self.queues.approximate_count()
        messages = self._read_all(limit)
        try:
            letters = [DeadLetter.describe(m, self.repository) for m in messages]
        finally:
            for message in messages:
                self.queues.release(message)
        return DeadLetterReport(count, letters)

    def redrive(self, progress: Progress | None = None) -> RedriveResult:
        """Reopen the dead letters' attempts and move the messages back to the scoring queue."""
        report = progress or (lambda _p: None)
        if self.queues.use_move_task:
            try:
                return self._redrive_with_move_task(*self._read_letters(), report)
            except MoveTaskUnsupportedError:
                logger.warning("StartMessageMoveTask unsupported here; moving dead letters one by one")
        return self._redrive_by_resending(*self._read_letters(), report)

    def _read_letters(self) -> tuple[list[QueuedMessage], list[DeadLetter]]:
        messages = self._read_all(MAX_MESSAGES)
        return messages, [DeadLetter.describe(m, self.repository) for m in messages]

    def _reopen(self, letter: DeadLetter, result: RedriveResult) -> bool:
        if letter.score_id is None or letter.attempt_status != ScoreStatus.FAILED:
            if letter.score_id is None or letter.attempt_status is None:
                result.skipped.append(f"{letter.message_id}: {letter.reason}")
            return False
        note = (
            f"redriven from the dead-letter queue at {datetime.now(UTC).isoformat(timespec='seconds')}; "
            f"previous failure: {letter.reason}"
        )
        if self.repository.reopen_failed(letter.score_id, note):
            result.reopened += 1
            return True
        result.skipped.append(
            f"{letter.score_id} ({letter.session_id}): not reopened, the session has another active attempt"
        )
        return False

    def _undo(self, letter: DeadLetter) -> None:
        if letter.score_id is not None:
            self.repository.fail(letter.score_id, None, letter.reason)

    def _redrive_by_resending(
        self, messages: list[QueuedMessage], letters: list[DeadLetter], report: Progress
    ) -> RedriveResult:
        result = RedriveResult(method="receive-and-resend")
        total = len(messages)
        report(RedriveProgress(0, total))
        for message, letter in zip(messages, letters, strict=True):
            reopened = self._reopen(letter, result)
            try:
                self.queues.resend(message)
            except ScoringError:
                if reopened:
                    self._undo(letter)
                raise
            result.moved += 1
            report(RedriveProgress(result.moved, total))
        logger.info("dead letters redriven", extra={"moved": result.moved, "reopened": result.reopened})
        count(Metric.JOBS_REDRIVEN, result.moved)
        return result

    def _redrive_with_move_task(
        self, messages: list[QueuedMessage], letters: list[DeadLetter], report: Progress
    ) -> RedriveResult:
        result = RedriveResult(method="StartMessageMoveTask")
        reopened = [letter for letter in letters if self._reopen(letter, result)]
        for message in messages:
            self.queues.release(message)
        try:
            handle = self.queues.start_move_task()
        except (ScoringError, MoveTaskUnsupportedError):
            for letter in reopened:
                self._undo(letter)
            result.reopened = 0
            raise
        total = len(messages)
        report(RedriveProgress(0, total))
        while True:
            status = self.queues.move_task_status(handle)
            result.moved = status.moved
            report(RedriveProgress(status.moved, status.to_move or total))
            if status.status != "RUNNING":
                break
            time.sleep(MOVE_TASK_POLL_SECONDS)
        count(Metric.JOBS_REDRIVEN, result.moved)
        if status.status == "FAILED":
            raise ScoringError(f"the SQS move task failed: {status.failure_reason or 'no reason given'}")
        return result
