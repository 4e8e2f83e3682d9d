"""Batch-mode scoring runs: the scheduled poller that submits attempts to Message Batches and collects verdicts.

A batch-mode run is planned like an online one but sends no queue job. Each tick of the poller **collects** the ended
batches (a verdict is validated and stored as online; a transient error or an expired batch puts the attempt into the
next batch, up to ``max_submissions``; anything else fails it) and **submits** the attempts waiting for a batch, each
prompt rendered as the online scorer renders it. A poller killed between creating a batch and recording it leaves its
claims to lapse (``SUBMIT_LEASE_SECONDS``) and be submitted again; collecting is idempotent. See docs/runs.md.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.errors import (
    DatabaseUnavailableError,
    JudgeOutputError,
    PermanentError,
    QueueUnavailableError,
    TransientError,
)
from session_scoring.judge.base import JudgePrompt, prompt_stats
from session_scoring.judge.batches import TRANSIENT_ERROR_TYPES, BatchRequest, BatchResult, chunk_requests
from session_scoring.judge.rendering import build_prompt
from session_scoring.log import logger
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.judge import JudgeVerdict
from session_scoring.models.masked import mask_reference, mask_verdict
from session_scoring.models.records import PromptStats
from session_scoring.repositories.runs import BatchAttempt
from session_scoring.services.references import ReferenceResolver
from session_scoring.sources.base import SessionSource

SUBMIT_LEASE_SECONDS = 900
"""How long a claim for submission holds: past it, attempts claimed by a poller that died are submitted again."""
STUCK_PLANNING_SECONDS = 900
"""A run still planning this long after it was created counts in ``runs_stuck_planning`` (the alarm's metric)."""
TIME_MARGIN_SECONDS = 30.0
"""Time kept back from the function's remaining time: a tick stops collecting or submitting before it."""

WRITEBACK_REQUESTER = "batch-poller"
"""``requested_by`` of the job that carries a batch verdict's write-back to the scorer."""

if TYPE_CHECKING:  # ports' declarations only
    from session_scoring.infrastructure.queue import JobQueue
    from session_scoring.services.scorer import VerdictStore


class Batches(Protocol):
    """What the poller needs of a batch API (``judge.batches.MessageBatches``, ``judge.openai_batches.OpenAIBatches``,
    ``judge.google_batches.GoogleBatches``)."""

    @property
    def max_batch_bytes(self) -> int:
        """The request bodies one batch may carry (each API has its own limit)."""
        ...

    def request(self, score_id: uuid.UUID, prompt: JudgePrompt) -> BatchRequest: ...

    def submit(self, requests: list[BatchRequest]) -> str: ...

    def ended(self, batch_id: str) -> bool: ...

    def results(self, batch_id: str) -> Iterator[BatchResult]: ...

    def verdict(
        self, prompt: Callable[[], JudgePrompt], result: BatchResult, reference_given: bool
    ) -> JudgeVerdict: ...


@dataclass
class PollResult:
    submitted: int = 0
    batches_created: int = 0
    completed: int = 0
    failed: int = 0
    resubmitted: int = 0
    writebacks_queued: int = 0
    batches_waiting: int = 0
    runs_stuck_planning: int = 0
    notes: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """The tick's figures, as its log line and the poller function's answer show them."""
        return {name: value for name, value in asdict(self).items() if name != "notes"}


@dataclass(frozen=True)
class BatchPolicy:
    max_requests: int
    """Requests per batch (``SCORING_BATCH_MAX_REQUESTS``)."""
    submit_limit: int
    """Attempts submitted per tick at most (``SCORING_BATCH_SUBMIT_LIMIT``)."""
    max_submissions: int
    """Submissions of one attempt before a transient batch failure fails it (``SCORING_MAX_RECEIVE_COUNT``)."""
    input_budget_tokens: int | None


class BatchRuns(Protocol):
    """The batch-mode runs' attempts and batches (``repositories.runs``)."""

    def batch_attempts(self, batch_id: str) -> dict[str, BatchAttempt]: ...
    def claim_for_batch(self, limit: int, lease_seconds: int) -> list[BatchAttempt]: ...
    def mark_submitted(
        self, batch_id: str, claim_token: uuid.UUID, prompts: Mapping[uuid.UUID, PromptStats]
    ) -> None: ...
    def open_batches(self) -> list[str]: ...
    def return_to_batch(self, score_id: uuid.UUID, claim_token: uuid.UUID, note: str) -> bool: ...
    def settle(self, run_id: uuid.UUID) -> int: ...
    def stuck_planning(self, older_than_seconds: int) -> int: ...


@dataclass(eq=False)
class BatchPoller:
    config: ScoringConfig
    runs: BatchRuns
    scores: VerdictStore
    source: SessionSource
    batches: Callable[[], Batches]
    """Built on first use: a tick with nothing to do builds no Anthropic client."""
    policy: BatchPolicy
    references: ReferenceResolver
    clock: Callable[[], float] = time.monotonic
    writeback_jobs: JobQueue | None = None
    """The scoring queue, when write-back is on: each verdict stored is written back by the scorer, which takes
    a job for a completed attempt as its write-back (with the same retries and record as an online score)."""

    def poll(self, remaining_seconds: float) -> PollResult:
        """One tick: collect ended batches, submit waiting attempts, settle the runs touched."""
        deadline = self.clock() + remaining_seconds - TIME_MARGIN_SECONDS
        result = PollResult()
        touched: set[uuid.UUID] = set()
        self._collect(result, touched, deadline)
        self._submit(result, touched, deadline)
        for run_id in touched:
            self.runs.settle(run_id)
        result.runs_stuck_planning = self.runs.stuck_planning(STUCK_PLANNING_SECONDS)
        if result.submitted or result.completed or result.failed or result.resubmitted:
            logger.info("batch poller tick", extra=result.counts())
        return result

    # --- collecting ------------------------------------------------------------------------------------------

    def _collect(self, result: PollResult, touched: set[uuid.UUID], deadline: float) -> None:
        open_batches = self.runs.open_batches()
        if not open_batches:
            return
        batches = self.batches()
        for batch_id in open_batches:
            if self.clock() >= deadline:
                result.notes.append("time budget used up: the remaining batches are read at the next tick")
                return
            try:
                ended = batches.ended(batch_id)
            except TransientError as exc:
                result.notes.append(f"{batch_id}: status not read ({exc.message}); the next tick tries again")
                continue
            except PermanentError as exc:  # e.g. the batch is gone: its attempts can never get a result
                reason = f"the Message Batch {batch_id} cannot be read: {exc.message}"
                self._fail_all(self.runs.batch_attempts(batch_id).values(), reason, touched, result)
                continue
            if not ended:
                result.batches_waiting += 1
                continue
            waiting = self.runs.batch_attempts(batch_id)
            try:
                for line in batches.results(batch_id):
                    attempt = waiting.pop(line.custom_id, None)
                    if attempt is None:
                        continue  # already collected, or its run was cancelled
                    touched.add(attempt.run_id)
                    self._settle_result(batches, attempt, line, result)
                    if self.clock() >= deadline:
                        result.notes.append(f"{batch_id}: time budget used up; the rest is collected next tick")
                        return
            except TransientError as exc:
                result.notes.append(f"{batch_id}: results not read ({exc.message}); the next tick tries again")
                continue
            except PermanentError as exc:
                reason = f"the results of Message Batch {batch_id} cannot be read: {exc.message}"
            else:
                reason = f"the Message Batch {batch_id} ended without a result for this request"
            self._fail_all(waiting.values(), reason, touched, result)

    def _fail_all(
        self, attempts: Iterable[BatchAttempt], reason: str, touched: set[uuid.UUID], result: PollResult
    ) -> None:
        for attempt in attempts:
            touched.add(attempt.run_id)
            self._fail(attempt, reason, result)

    def _settle_result(self, batches: Batches, attempt: BatchAttempt, line: BatchResult, result: PollResult) -> None:
        if line.kind == "succeeded":
            try:
                verdict = batches.verdict(
                    lambda: self._render(attempt.session_id)[0],
                    line,
                    reference_given=attempt.prompt.reference_source is not None,
                )
            except JudgeOutputError as exc:
                self._fail(attempt, exc.message, result)
                return
            except PermanentError as exc:
                self._fail(attempt, f"the repair turn of an invalid batch answer failed: {exc.message}", result)
                return
            except TransientError as exc:
                self._again(attempt, f"the repair turn of an invalid batch answer failed: {exc.message}", result)
                return
            if self.scores.complete(
                attempt.score_id,
                attempt.claim_token,
                self.config.criteria_hash,
                mask_verdict(verdict, self.config.masker),  # a judge's output is untrusted text, as online
                attempt.prompt,
                maxima=self.config.rubric.maxima,
            ):
                result.completed += 1
                self._queue_writeback(attempt, result)
            return
        if line.kind == "expired":
            self._again(attempt, "the Message Batch expired (24 h) before this request was processed", result)
        elif line.kind == "errored" and line.error_type in TRANSIENT_ERROR_TYPES:
            self._again(attempt, f"the Message Batches API errored ({line.error_type}: {line.error_message})", result)
        elif line.kind == "errored":
            self._fail(
                attempt,
                f"the Message Batches API rejected the request ({line.error_type}: {line.error_message})",
                result,
            )
        else:
            self._fail(attempt, "the Message Batch was cancelled outside this service before this request ran", result)

    def _queue_writeback(self, attempt: BatchAttempt, result: PollResult) -> None:
        """Send the stored verdict's write-back to the scorer. The score stands whatever happens here; a queue that
        refuses the job leaves the attempt without a write-back, said in the log and the tick's notes."""
        if self.writeback_jobs is None:
            return
        job = ScoringJob(
            score_id=attempt.score_id,
            session_id=attempt.session_id,
            requested_by=WRITEBACK_REQUESTER,
            requested_at=datetime.now(UTC),
        )
        try:
            self.writeback_jobs.send(job)
        except QueueUnavailableError as exc:
            logger.warning(
                "write-back of a batch verdict not queued",
                extra={"score_id": str(attempt.score_id), "session_id": attempt.session_id, "reason": exc.message},
            )
            result.notes.append(f"score {attempt.score_id}: completed; its write-back was not queued: {exc.message}")
            return
        result.writebacks_queued += 1

    def _again(self, attempt: BatchAttempt, reason: str, result: PollResult) -> None:
        """A transient failure: into the next batch, unless the attempt was submitted too often already."""
        if attempt.delivery_count >= self.policy.max_submissions:
            self._fail(attempt, f"{reason}; gave up after {attempt.delivery_count} submissions", result)
            return
        if self.runs.return_to_batch(attempt.score_id, attempt.claim_token, f"{reason}; submitted again"):
            result.resubmitted += 1

    def _fail(self, attempt: BatchAttempt, reason: str, result: PollResult) -> None:
        logger.error("batch attempt failed", extra={"score_id": str(attempt.score_id), "reason": reason})
        if self.scores.fail(attempt.score_id, attempt.claim_token, reason):
            result.failed += 1

    def _render(self, session_id: str) -> tuple[JudgePrompt, PromptStats]:
        """The session's request, with its reference (resolved now and masked, as online), and what the score
        stores of it (the secrets masked in the session among it)."""
        session = self.source.get_session(session_id)
        reference = mask_reference(self.references.for_session(session), self.config.masker)
        prompt = build_prompt(self.config, session, budget_tokens=self.policy.input_budget_tokens, reference=reference)
        return prompt, prompt_stats(prompt, reference, session.masked_values)

    # --- submitting ------------------------------------------------------------------------------------------

    def _submit(self, result: PollResult, touched: set[uuid.UUID], deadline: float) -> None:
        left = self.policy.submit_limit
        while left > 0 and self.clock() < deadline:
            claimed = self.runs.claim_for_batch(min(left, self.policy.max_requests), SUBMIT_LEASE_SECONDS)
            if not claimed:
                return
            left -= len(claimed)
            touched.update(a.run_id for a in claimed)
            requests, by_id = self._requests(claimed, result)
            if not self._send(requests, by_id, result):
                return

    def _requests(
        self, claimed: list[BatchAttempt], result: PollResult
    ) -> tuple[list[BatchRequest], dict[str, tuple[BatchAttempt, PromptStats]]]:
        batches = self.batches()
        requests: list[BatchRequest] = []
        by_id: dict[str, tuple[BatchAttempt, PromptStats]] = {}
        for attempt in claimed:
            if attempt.delivery_count > self.policy.max_submissions:
                self._fail(attempt, f"submitted {attempt.delivery_count - 1} times without a result", result)
                continue
            try:
                prompt, stats = self._render(attempt.session_id)
            except PermanentError as exc:
                self._fail(attempt, exc.message, result)
                continue
            except TransientError as exc:
                # Left claimed: submitted again once the claim's lease runs out.
                result.notes.append(f"{attempt.score_id}: session not read ({exc.message}); submitted later")
                continue
            request = batches.request(attempt.score_id, prompt)
            requests.append(request)
            by_id[request.custom_id] = (attempt, stats)
        return requests, by_id

    def _send(
        self, requests: list[BatchRequest], by_id: dict[str, tuple[BatchAttempt, PromptStats]], result: PollResult
    ) -> bool:
        """Create the batches; False when the API is unavailable (the claims lapse and the next tick retries)."""
        batches = self.batches()
        for chunk in chunk_requests(requests, self.policy.max_requests, batches.max_batch_bytes):
            try:
                batch_id = batches.submit(chunk)
            except PermanentError as exc:
                for request in chunk:
                    self._fail(by_id[request.custom_id][0], f"the batch was refused: {exc.message}", result)
                continue
            except (TransientError, DatabaseUnavailableError) as exc:
                result.notes.append(f"batch not created ({exc.message}); submitted again after the claim lapses")
                return False
            token = by_id[chunk[0].custom_id][0].claim_token
            self.runs.mark_submitted(
                batch_id, token, {by_id[r.custom_id][0].score_id: by_id[r.custom_id][1] for r in chunk}
            )
            result.batches_created += 1
            result.submitted += len(chunk)
            logger.info("message batch created", extra={"batch_id": batch_id, "requests": len(chunk)})
        return True
