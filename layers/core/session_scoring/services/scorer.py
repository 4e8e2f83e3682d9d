"""The scoring job: claim the attempt, load the session and its reference root cause, judge it, store the verdict.

The claim's lease is kept renewed while the job works (``services/leases.py``); a job whose claim is lost meanwhile
stores nothing. :func:`outcome_for_error` is the one place that decides what each kind of failure does to the attempt
and its message (docs/resilience.md).
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from session_scoring.configuration.criteria import JURY, ScoringConfig
from session_scoring.configuration.providers import JudgeTarget, families_of, model_family
from session_scoring.errors import (
    DatabaseUnavailableError,
    JudgeTransientError,
    JudgeUnavailableError,
    PermanentError,
    ScoringError,
    TransientError,
)
from session_scoring.judge.base import Judge, JudgePrompt, JudgeRequest, prompt_stats
from session_scoring.judge.ensemble import median_verdict
from session_scoring.judge.jury import JurorResult, excluded_reason, jury_verdict
from session_scoring.judge.rendering import prompt_for_judge
from session_scoring.log import logger
from session_scoring.masking import Masker, default_masker
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.judge import JudgeVerdict
from session_scoring.models.masked import mask_reference, mask_verdict
from session_scoring.models.records import ClaimResult, PromptStats
from session_scoring.models.scores import ScoreStatus
from session_scoring.observability import (
    FailureCategory,
    Metric,
    count,
    record_estimated_cost,
    record_judging,
    record_score_failed,
    subsegment,
)
from session_scoring.resilience.breaker import JudgeBreaker, NoBreaker
from session_scoring.resilience.retry import backoff_seconds, call_with_retries
from session_scoring.services.leases import Hold, LeaseKeeper, LeaseStore
from session_scoring.services.references import resolve_reference
from session_scoring.sources.base import SessionSource

if TYPE_CHECKING:
    from session_scoring.services.writeback import VerdictWriteBack

STORE_MARGIN_SECONDS = 10.0
"""Time kept back from the Lambda's remaining time to store the result."""


@dataclass(frozen=True)
class JobOutcome:
    """``done``: acknowledge the message. ``retry``: leave it for a later delivery after ``delay_seconds``.
    ``defer``: the judge was busy; the job service sends a fresh copy of the message delayed by ``delay_seconds`` and
    acknowledges this one, so the hand-back uses none of the queue's receives (if the copy cannot be sent, the
    message is left for a later delivery, as ``retry``)."""

    done: bool
    reason: str
    delay_seconds: int | None = None
    deferrable: bool = False

    @classmethod
    def ack(cls, reason: str) -> JobOutcome:
        return cls(True, reason)

    @classmethod
    def retry(cls, reason: str, delay_seconds: int | None = None) -> JobOutcome:
        return cls(False, reason, delay_seconds)

    @classmethod
    def defer(cls, reason: str, delay_seconds: int) -> JobOutcome:
        return cls(False, reason, delay_seconds, deferrable=True)


@dataclass(frozen=True)
class ScorerPolicy:
    lease_seconds: int
    max_receive_count: int
    judge_timeout_seconds: float
    judge_max_retries: int
    judge_retry_base_seconds: float
    input_budget_tokens: int | None = None
    max_retry_wait_seconds: float = 5.0
    """Longest wait slept inside an invocation; a longer retry-after gives the message back with that delay."""
    max_deferrals: int = 0
    """Hand-backs for a busy judge sent as fresh, delayed copies of the message (``SCORING_MAX_DEFERRALS``); past
    it they count towards ``max_receive_count``. 0: every hand-back counts."""


DEAD_LETTER_NOTE = "the job is in the dead-letter queue; `make redrive` (session-scoring redrive) retries it"
MAX_RETRY_DELAY_SECONDS = 900
MAX_DEFER_SECONDS = 900
"""SQS's longest ``DelaySeconds``: a busy judge asking for a longer wait keeps the counted path."""


def _seconds_until(moment: datetime) -> int:
    return max(1, int((moment - datetime.now(UTC)).total_seconds()) + 1)


def _busy_judge_delay(exc: Exception, receive_count: int, deferrals: int) -> int | None:
    """The hand-back delay when the judge is busy: until the circuit lets a probe through, or the judge's
    ``retry-after`` or the growing delay (hand-backs so far, deferrals included), whichever is longer. None for the
    job's own failures (a timeout, a dropped connection, a 5xx without ``retry-after``, anything else)."""
    if isinstance(exc, JudgeUnavailableError):
        return _seconds_until(exc.retry_at)
    if isinstance(exc, JudgeTransientError) and exc.retry_after_seconds is not None:
        growing = min(backoff_seconds(receive_count + deferrals, 30.0), float(MAX_DEFER_SECONDS))
        return math.ceil(max(growing, exc.retry_after_seconds))
    return None


def outcome_for_error(
    exc: Exception, receive_count: int, policy: ScorerPolicy, deferrals: int = 0
) -> tuple[str, JobOutcome]:
    """Decide what a failure means: ('fail'|'release', outcome). The single error -> ack/retry mapping.

    - ``PermanentError``: fail the attempt, ack the message;
    - the judge busy, deferred fewer than ``policy.max_deferrals`` times and the wait at most 900 s: back to pending,
      deferred (the job service sends a fresh, delayed copy of the message), on any receive, the last included;
    - on the last allowed receive: fail the attempt *and* leave the message, so SQS moves it to the dead-letter queue;
    - circuit open: back to pending; the message returns when the circuit lets a probe through;
    - ``TransientError`` or anything unexpected: back to pending; the message returns after a growing delay (or the
      judge's ``retry-after`` when longer).
    """
    reason = exc.message if isinstance(exc, ScoringError) else f"unexpected error: {type(exc).__name__}: {exc}"
    if isinstance(exc, PermanentError):
        return "fail", JobOutcome.ack(reason)
    busy_delay = _busy_judge_delay(exc, receive_count, deferrals)
    if busy_delay is not None and busy_delay <= MAX_DEFER_SECONDS and deferrals < policy.max_deferrals:
        until = (datetime.now(UTC) + timedelta(seconds=busy_delay)).isoformat(timespec="seconds")
        count = f"deferral {deferrals + 1} of {policy.max_deferrals}, no delivery used"
        if isinstance(exc, JudgeUnavailableError):
            note = f"judge unavailable (circuit open); deferred until {until} ({count})"
        else:
            note = f"judge busy; deferred until {until}, will retry in about {busy_delay} s ({count}): {reason}"
        return "release", JobOutcome.defer(note, busy_delay)
    if receive_count >= policy.max_receive_count:
        return "fail", JobOutcome.retry(f"{reason} (gave up after {receive_count} deliveries; {DEAD_LETTER_NOTE})")
    if isinstance(exc, JudgeUnavailableError):
        note = f"judge unavailable (circuit open); will be retried at {exc.retry_at.isoformat(timespec='seconds')}"
        return "release", JobOutcome.retry(note, min(_seconds_until(exc.retry_at), MAX_RETRY_DELAY_SECONDS))
    kind = "transient" if isinstance(exc, TransientError) else "unexpected"
    delay = backoff_seconds(receive_count, 30.0)
    if isinstance(exc, JudgeTransientError) and exc.retry_after_seconds is not None:
        delay = max(delay, exc.retry_after_seconds)
    delay_seconds = min(math.ceil(delay), MAX_RETRY_DELAY_SECONDS)
    return "release", JobOutcome.retry(
        f"{kind} failure, will retry in about {delay_seconds} s: {reason}", delay_seconds
    )


class VerdictStore(Protocol):
    """Where a verdict, or the failure of its attempt, is stored (``repositories.scores``); the batch poller's too."""

    def complete(
        self,
        score_id: uuid.UUID,
        claim_token: uuid.UUID,
        criteria_hash: str,
        verdict: JudgeVerdict,
        prompt: PromptStats,
        spread: dict[str, Any] | None = None,
        *,
        judging_ms: int | None = None,
        estimated_cost_usd: float | None = None,
        available_tools: Sequence[str] = (),
        maxima: Mapping[str, int] | None = None,
    ) -> bool: ...
    def fail(
        self, score_id: uuid.UUID, claim_token: uuid.UUID | None, message: str, *, dead_lettered: bool = False
    ) -> bool: ...


class AttemptClaims(VerdictStore, LeaseStore, Protocol):
    """A job's attempt: claimed, completed, failed or released (``repositories.scores``)."""

    def claim(self, score_id: uuid.UUID, lease_seconds: int) -> ClaimResult: ...


@dataclass(frozen=True)
class JurorSeat:
    """One juror of a jury: its judge (built on first use) and the breaker of its provider and model."""

    target: JudgeTarget
    judge: Callable[[], Judge]
    breaker: JudgeBreaker


def with_self_preference(
    spread: dict[str, Any] | None, judge_model: str, agent_models: Sequence[str], agent_families: frozenset[str]
) -> dict[str, Any] | None:
    """``spread`` saying so when the judge is of the agent's model family (self-preference bias); else as it is."""
    family = model_family(judge_model)
    if family is None or family not in agent_families:
        return spread
    note = {"judge_model": judge_model, "family": family, "agent_models": list(agent_models)}
    return {**(spread or {}), "self_preference": note}


class Scorer:
    def __init__(
        self,
        config: ScoringConfig,
        repository: AttemptClaims,
        source: SessionSource,
        judge: Callable[[], Judge],
        policy: ScorerPolicy,
        breaker: JudgeBreaker | None = None,
        writeback: VerdictWriteBack | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        leases: LeaseKeeper | None = None,
        masker: Masker | None = None,
        jurors: Sequence[JurorSeat] = (),
    ) -> None:
        self._config = config
        self._masker = masker or default_masker()
        """Masks what the judge wrote before it is stored (the session was masked by the source when read)."""
        self._jurors = tuple(jurors)
        """A jury's judges (``scoring.jury``), each with its breaker; empty: the one judge ``judge``."""
        self._repository = repository
        self._source = source
        self._judge = judge
        """Built on first use, inside the job's error handling: a judge that cannot be built (no API key, the
        secret unreadable) fails the attempt with the reason instead of failing every delivery silently."""
        self._policy = policy
        self._breaker = breaker or NoBreaker()
        self._writeback = writeback
        """Writes each completed score back to its trace store (``SCORING_WRITEBACK``); None: nothing to write."""
        self._clock = clock
        self._sleep = sleep
        self.leases = leases or LeaseKeeper(repository, policy.lease_seconds)
        """Renews the leases of the jobs in flight (the heartbeat) and gives them back on shutdown."""

    def release_claims(self, reason: str) -> int:
        """Give back every claim of a job still in flight (a clean shutdown): each attempt returns to ``pending``
        with ``reason``, and its job stores nothing. Returns how many were released."""
        released = self.leases.release_all(reason)
        if released:
            logger.warning("claims released", extra={"released": released, "reason": reason})
        return released

    def process(self, job: ScoringJob, receive_count: int, remaining_seconds: float) -> JobOutcome:
        """Score one job within ``remaining_seconds`` (the Lambda's remaining time)."""
        deadline = self._clock() + remaining_seconds - STORE_MARGIN_SECONDS
        count(Metric.JOBS_RECEIVED)
        try:
            with subsegment("claim attempt"):
                claim = self._repository.claim(job.score_id, self._policy.lease_seconds)
        except DatabaseUnavailableError as exc:
            # Nothing was claimed, so there is no attempt to update; the message comes back (and, after the
            # allowed receives, waits in the dead-letter queue with the attempt still pending for the redrive).
            logger.warning("could not claim the attempt", extra={"score_id": str(job.score_id), "error": exc.message})
            return JobOutcome.retry(f"could not claim the attempt: {exc.message}", 30)
        if not claim.claimed:
            return self._not_claimed(job, claim.status, claim.lease_expires_at, receive_count)
        assert claim.claim_token is not None
        started = self._clock()
        with self.leases.holding(job.score_id, claim.claim_token) as hold:
            try:
                verdict, prompt, spread, judging_ms, available_tools, billed = self._score(job, claim, deadline)
                if hold.lost:
                    return self._lost(job, hold)
                cost = self._cost(billed)
                with subsegment("store verdict"):
                    stored = self._repository.complete(
                        job.score_id,
                        claim.claim_token,
                        self._config.criteria_hash,
                        verdict,
                        prompt,
                        spread,
                        judging_ms=judging_ms,
                        estimated_cost_usd=cost,
                        available_tools=available_tools,
                        maxima=self._config.rubric.maxima,
                    )
            except Exception as exc:  # noqa: BLE001 - every failure must end in a readable record
                if hold.lost:
                    return self._lost(job, hold)
                return self._failed(job, claim.claim_token, exc, receive_count)
            finally:
                # The breaker's reset after a successful judge call ran beside the store; the job ends with it done
                # (each juror's breaker too).
                self._breaker.settle()
                for seat in self._jurors:
                    seat.breaker.settle()
        if not stored:
            return JobOutcome.ack("another scorer took over this attempt after our lease expired")
        count(Metric.SCORES_COMPLETED)
        if cost is not None:
            record_estimated_cost(cost)
        logger.info(
            "score stored",
            extra={
                "score_id": str(job.score_id),
                "session_id": job.session_id,
                "total_score": verdict.output.total_score,
                "outcome": verdict.output.outcome.value,
                # The whole job (session load, every judge try and wait, store) beside the successful call.
                "job_ms": int((self._clock() - started) * 1000),
                "judge_latency_ms": verdict.latency_ms,
                "judging_ms": judging_ms,
                "estimated_cost_usd": cost,
            },
        )
        if self._writeback is not None:
            return self._writeback.after_completion(job, receive_count)
        return JobOutcome.ack("completed")

    @staticmethod
    def _lost(job: ScoringJob, hold: Hold) -> JobOutcome:
        """The job's claim was lost while it worked: nothing is written. Taken over: the other scorer ends the
        attempt, so this message is acknowledged. Released by this process (a shutdown): the message is left for a
        later delivery, which claims the attempt again."""
        logger.warning(
            "the claim was lost while judging; nothing stored",
            extra={"score_id": str(job.score_id), "reason": hold.reason},
        )
        if hold.released:
            return JobOutcome.retry(f"released before the verdict was stored: {hold.reason}", 1)
        return JobOutcome.ack(f"{hold.reason}; the verdict was not stored")

    def _not_claimed(
        self, job: ScoringJob, status: ScoreStatus | None, lease_expires_at: datetime | None, receive_count: int
    ) -> JobOutcome:
        if status is None:
            logger.error("job for an unknown attempt acknowledged", extra={"score_id": str(job.score_id)})
            return JobOutcome.ack("no such score attempt")
        if status is ScoreStatus.COMPLETED and self._writeback is not None:
            # The score is stored; this delivery is for its write-back (an earlier try failed, or never ran).
            return self._writeback.after_completion(job, receive_count)
        if status in (ScoreStatus.COMPLETED, ScoreStatus.FAILED, ScoreStatus.CANCELLED):
            return JobOutcome.ack(f"duplicate delivery of an attempt that is already {status.value}")
        delay = 30 if lease_expires_at is None else _seconds_until(lease_expires_at)
        return JobOutcome.retry("another scorer holds this attempt; retry when its lease expires", delay)

    def _cost(self, billed: Sequence[JudgeVerdict]) -> float | None:
        """The tokens of the verdicts paid for (a jury's: each juror's), each priced with the ``pricing:`` table for
        its model; None when a model has no price."""
        cost = 0.0
        for verdict in billed:
            price = self._config.price_of(verdict.model)
            if price is None:
                return None
            usage = verdict.usage
            cost += price.cost_usd(
                usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.cache_write_tokens
            )
        return round(cost, 6)

    def _score(
        self, job: ScoringJob, claim: ClaimResult, deadline: float
    ) -> tuple[JudgeVerdict, PromptStats, dict[str, Any] | None, int, list[str], list[JudgeVerdict]]:
        """The verdict (the median of ``scoring.samples``, with their spread), the request's prompt stats, the whole
        judging time in ms (retries and waits included) and the session's available tools. The reference is the
        claim's (set through the labels API), else the session's own."""
        with subsegment("source fetch", session_id=job.session_id):
            session = self._source.get_session(job.session_id)
        reference = mask_reference(
            resolve_reference(session, claim.reference_root_cause, claim.reference_remediation), self._masker
        )
        prompt: JudgePrompt | None = prompt_for_judge(
            self._config, session, self._policy.input_budget_tokens, reference
        )
        if prompt is not None and prompt.compacted:
            count(Metric.PROMPT_COMPACTIONS)
        calls = 0

        def judged(judge_of: Callable[[], Judge], breaker: JudgeBreaker) -> JudgeVerdict:
            """One verdict of one judge, its transient failures retried within the deadline."""

            def attempt(time_left: float) -> JudgeVerdict:
                nonlocal calls
                calls += 1
                request = JudgeRequest(
                    session=session,
                    prompt=prompt,
                    timeout_seconds=min(self._policy.judge_timeout_seconds, time_left),
                    budget_seconds=time_left,
                    reference=reference,
                )
                judge = judge_of()
                return breaker.call(lambda: judge.evaluate(request))

            return call_with_retries(
                attempt,
                deadline=deadline,
                max_retries=self._policy.judge_max_retries,
                base_seconds=self._policy.judge_retry_base_seconds,
                max_wait_seconds=self._policy.max_retry_wait_seconds,
                clock=self._clock,
                sleep=self._sleep,
            )

        started = self._clock()
        verdicts: list[JudgeVerdict] = []
        spread: dict[str, Any] | None = None
        agent_families = families_of(session.agent_models)
        try:
            with subsegment("judge"):
                if self._jurors:
                    verdict, spread, verdicts = self._jury(judged, agent_families)
                else:
                    # Ensemble samples send the same prompt: samples 2..K read its prefix from the prompt cache.
                    for _ in range(self._config.samples):
                        verdicts.append(judged(self._judge, self._breaker))
        except Exception:
            if calls > len(verdicts) + 1:
                count(Metric.JUDGE_RETRIES, calls - len(verdicts) - 1)
            raise
        if not self._jurors:
            verdict, spread = (
                (verdicts[0], None) if len(verdicts) == 1 else median_verdict(verdicts, self._config.rubric)
            )
            spread = with_self_preference(spread, verdict.model, session.agent_models, agent_families)
        usage = verdict.usage
        judging_ms = int((self._clock() - started) * 1000)
        record_judging(
            latency_ms=verdict.latency_ms,
            attempt_ms=judging_ms,
            retries=max(0, calls - len(verdicts)),
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens,
        )
        available_tools = [tool.qualified_name for tool in session.all_available_tools]
        billed = verdicts if self._jurors else [verdict]
        stats = prompt_stats(prompt, reference, session.masked_values)
        return mask_verdict(verdict, self._masker), stats, spread, judging_ms, available_tools, billed

    def _jury(
        self, judged: Callable[[Callable[[], Judge], JudgeBreaker], JudgeVerdict], agent_families: frozenset[str]
    ) -> tuple[JudgeVerdict, dict[str, Any], list[JudgeVerdict]]:
        """Each juror's verdict (one after the other, each with its own retries and breaker), then the jury's."""
        jury = self._config.jury
        assert jury is not None
        results: list[JurorResult] = []
        for seat in self._jurors:
            excluded = excluded_reason(seat.target, agent_families) if jury.exclude_same_family else None
            if excluded is not None:
                results.append(JurorResult(seat.target, excluded=excluded))
                continue
            try:
                results.append(JurorResult(seat.target, verdict=judged(seat.judge, seat.breaker)))
            except ScoringError as exc:
                logger.warning("juror failed", extra={"juror": seat.target.label, "reason": exc.message})
                results.append(JurorResult(seat.target, error=exc))
        verdict, spread, verdicts = jury_verdict(
            results, jury.effective_quorum, JURY, self._config.llm_model, self._config.rubric
        )
        for juror in spread["jurors"]:
            family = model_family(juror["model"])
            juror["same_family_as_agent"] = family is not None and family in agent_families
        return verdict, spread, verdicts

    def _failed(self, job: ScoringJob, token: uuid.UUID, exc: Exception, receive_count: int) -> JobOutcome:
        action, outcome = outcome_for_error(exc, receive_count, self._policy, job.deferrals)
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
            with subsegment(f"{action} attempt"):
                if action == "fail":
                    # Failing while leaving the message means SQS moves it to the dead-letter queue.
                    self._repository.fail(job.score_id, token, outcome.reason, dead_lettered=not outcome.done)
                elif action == "release":
                    self._repository.release(job.score_id, token, outcome.reason)
        except DatabaseUnavailableError as db_exc:
            return JobOutcome.retry(f"{outcome.reason}; and the attempt could not be updated: {db_exc.message}", 30)
        if action == "release":
            count(Metric.JOBS_DEFERRED)
        elif outcome.done:
            record_score_failed(FailureCategory.PERMANENT)
        else:  # failed on its last delivery: the message goes to the dead-letter queue
            record_score_failed(FailureCategory.TRANSIENT)
            count(Metric.JOBS_DEAD_LETTERED)
        return outcome
