"""The scoring job: claim the attempt, load the session, judge it, store the verdict.

``Scorer.process`` returns a :class:`JobOutcome` for every job; :func:`outcome_for_error` is the one place
that decides, for each kind of failure, whether the attempt fails for good (the message is acknowledged) or the
message comes back later (the attempt returns to pending with a note saying why and when).
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.errors import (
    DatabaseUnavailableError,
    JudgeTransientError,
    JudgeUnavailableError,
    PermanentError,
    ScoringError,
    TransientError,
)
from session_scoring.judge.base import Judge, JudgePrompt, JudgeRequest
from session_scoring.judge.rendering import build_prompt
from session_scoring.log import logger
from session_scoring.models.api import ScoreStatus
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.judge import JudgeVerdict
from session_scoring.repositories.scores import PromptStats, ScoreRepository
from session_scoring.resilience.breaker import JudgeBreaker, NoBreaker
from session_scoring.resilience.retry import backoff_seconds, call_with_retries
from session_scoring.sources.base import SessionSource

STORE_MARGIN_SECONDS = 10.0
"""Time kept back from the Lambda's remaining time to store the result."""


@dataclass(frozen=True)
class JobOutcome:
    """``done``: acknowledge the message. ``retry``: leave it for a later delivery after ``delay_seconds``."""

    done: bool
    reason: str
    delay_seconds: int | None = None

    @classmethod
    def ack(cls, reason: str) -> JobOutcome:
        return cls(True, reason)

    @classmethod
    def retry(cls, reason: str, delay_seconds: int | None = None) -> JobOutcome:
        return cls(False, reason, delay_seconds)


@dataclass(frozen=True)
class ScorerPolicy:
    lease_seconds: int
    max_receive_count: int
    judge_timeout_seconds: float
    judge_max_retries: int
    judge_retry_base_seconds: float
    input_budget_tokens: int | None = None


DEAD_LETTER_NOTE = "the job is in the dead-letter queue; `make redrive` (session-scoring redrive) retries it"
MAX_RETRY_DELAY_SECONDS = 900


def outcome_for_error(exc: Exception, receive_count: int, policy: ScorerPolicy) -> tuple[str, JobOutcome]:
    """Decide what a failure means: ('fail'|'release', outcome). The single error -> ack/retry mapping.

    The error's category (``errors.py``) decides; only the delay depends on the class:

    - ``PermanentError`` (bad session, bad request, auth, invalid output, prompt too large): fail the attempt, ack
      the message;
    - circuit open (``JudgeUnavailableError``): back to pending with a note saying when it is retried; the message
      returns at that time;
    - ``TransientError``, or any unexpected exception: back to pending with a note; the message returns after a
      growing delay (or the judge's ``retry-after`` when longer);
    - on the last allowed receive: fail the attempt with the reason *and* leave the message, so SQS moves it to
      the dead-letter queue, from where a redrive reopens the attempt.
    """
    reason = exc.message if isinstance(exc, ScoringError) else f"unexpected error: {type(exc).__name__}: {exc}"
    if isinstance(exc, PermanentError):
        return "fail", JobOutcome.ack(reason)
    if receive_count >= policy.max_receive_count:
        return "fail", JobOutcome.retry(f"{reason} (gave up after {receive_count} deliveries; {DEAD_LETTER_NOTE})")
    if isinstance(exc, JudgeUnavailableError):
        until_open = max(1, int((exc.retry_at - datetime.now(UTC)).total_seconds()) + 1)
        note = f"judge unavailable (circuit open); will be retried at {exc.retry_at.isoformat(timespec='seconds')}"
        return "release", JobOutcome.retry(note, min(until_open, MAX_RETRY_DELAY_SECONDS))
    kind = "transient" if isinstance(exc, TransientError) else "unexpected"
    delay = backoff_seconds(receive_count, 30.0)
    if isinstance(exc, JudgeTransientError) and exc.retry_after_seconds is not None:
        delay = max(delay, exc.retry_after_seconds)
    delay_seconds = min(math.ceil(delay), MAX_RETRY_DELAY_SECONDS)
    return "release", JobOutcome.retry(
        f"{kind} failure, will retry in about {delay_seconds} s: {reason}", delay_seconds
    )


class Scorer:
    def __init__(
        self,
        config: ScoringConfig,
        repository: ScoreRepository,
        source: SessionSource,
        judge: Callable[[], Judge],
        policy: ScorerPolicy,
        breaker: JudgeBreaker | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._config = config
        self._repository = repository
        self._source = source
        self._judge = judge
        """Built on first use, inside the job's error handling: a judge that cannot be built (no API key, the
        secret unreadable) fails the attempt with the reason instead of failing every delivery silently."""
        self._policy = policy
        self._breaker = breaker or NoBreaker()
        self._clock = clock

    def process(self, job: ScoringJob, receive_count: int, remaining_seconds: float) -> JobOutcome:
        """Score one job within ``remaining_seconds`` (the Lambda's remaining time)."""
        deadline = self._clock() + remaining_seconds - STORE_MARGIN_SECONDS
        try:
            claim = self._repository.claim(job.score_id, self._policy.lease_seconds)
        except DatabaseUnavailableError as exc:
            # Nothing was claimed, so there is no attempt to update; the message comes back (and, after the
            # allowed receives, waits in the dead-letter queue with the attempt still pending for the redrive).
            logger.warning("could not claim the attempt", extra={"score_id": str(job.score_id), "error": exc.message})
            return JobOutcome.retry(f"could not claim the attempt: {exc.message}", 30)
        if not claim.claimed:
            return self._not_claimed(job, claim.status, claim.lease_expires_at)
        assert claim.claim_token is not None
        try:
            verdict, prompt = self._score(job, deadline)
            stored = self._repository.complete(
                job.score_id, claim.claim_token, self._config.criteria_hash, verdict, _stats(prompt)
            )
        except Exception as exc:  # noqa: BLE001 - every failure must end in a readable record
            return self._failed(job, claim.claim_token, exc, receive_count)
        if not stored:
            return JobOutcome.ack("another scorer took over this attempt after our lease expired")
        logger.info(
            "score stored",
            extra={
                "score_id": str(job.score_id),
                "session_id": job.session_id,
                "total_score": verdict.output.total_score,
            },
        )
        return JobOutcome.ack("completed")

    def _not_claimed(
        self, job: ScoringJob, status: ScoreStatus | None, lease_expires_at: datetime | None
    ) -> JobOutcome:
        if status is None:
            logger.error("job for an unknown attempt acknowledged", extra={"score_id": str(job.score_id)})
            return JobOutcome.ack("no such score attempt")
        if status in (ScoreStatus.COMPLETED, ScoreStatus.FAILED, ScoreStatus.CANCELLED):
            return JobOutcome.ack(f"duplicate delivery of an attempt that is already {status.value}")
        delay = 30
        if lease_expires_at is not None:
            delay = max(1, int((lease_expires_at - datetime.now(UTC)).total_seconds()) + 1)
        return JobOutcome.retry("another scorer holds this attempt; retry when its lease expires", delay)

    def _score(self, job: ScoringJob, deadline: float) -> tuple[JudgeVerdict, JudgePrompt]:
        session = self._source.get_session(job.session_id)
        prompt = build_prompt(self._config, session, budget_tokens=self._policy.input_budget_tokens)

        def attempt(time_left: float) -> JudgeVerdict:
            request = JudgeRequest(
                session=session,
                prompt=prompt,
                timeout_seconds=min(self._policy.judge_timeout_seconds, time_left),
                budget_seconds=time_left,
            )
            judge = self._judge()
            return self._breaker.call(lambda: judge.evaluate(request))

        verdict = call_with_retries(
            attempt,
            deadline=deadline,
            max_retries=self._policy.judge_max_retries,
            base_seconds=self._policy.judge_retry_base_seconds,
            clock=self._clock,
        )
        return verdict, prompt

    def _failed(self, job: ScoringJob, token: uuid.UUID, exc: Exception, receive_count: int) -> JobOutcome:
        action, outcome = outcome_for_error(exc, receive_count, self._policy)
        log = logger.error if action == "fail" else logger.warning
        log(
            "scoring failed",
            extra={
                "score_id": str(job.score_id),
                "session_id": job.session_id,
                "action": action,
                "reason": outcome.reason,
            },
            exc_info=not isinstance(exc, ScoringError),  # an unexpected error needs its traceback
        )
        try:
            if action == "fail":
                # Failing while leaving the message means SQS moves it to the dead-letter queue.
                self._repository.fail(job.score_id, token, outcome.reason, dead_lettered=not outcome.done)
            elif action == "release":
                self._repository.release(job.score_id, token, outcome.reason)
        except DatabaseUnavailableError as db_exc:
            return JobOutcome.retry(f"{outcome.reason}; and the attempt could not be updated: {db_exc.message}", 30)
        return outcome


def _stats(prompt: JudgePrompt) -> PromptStats:
    return PromptStats(
        compacted=prompt.compacted,
        tokens_before=prompt.tokens_before_compaction if prompt.compacted else prompt.estimated_tokens,
        tokens_after=prompt.estimated_tokens,
    )
