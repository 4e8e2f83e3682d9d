"""Scoring runs: create (or estimate) a run, plan it page by page, watch it, cancel it.

``POST /runs`` stores the run (``planning``) and queues a planning message for page 1, reading no session. Each
planning message plans one page of the session source (:meth:`RunService.plan_page`): it applies the selection,
inserts the page's attempts, queues their jobs on the runs queue and the next page's message; a page is redone without
duplicates when its message comes back. After each of its jobs a run with no active attempt left is completed.
``max_sessions`` caps the attempts and ``max_cost_usd`` the actual plus estimated cost. See docs/runs.md.
"""

from __future__ import annotations

import math
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import KW_ONLY, asdict, dataclass, fields
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Protocol

from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.errors import (
    InvalidRequestError,
    PermanentError,
    QueueUnavailableError,
    RunNotFoundError,
    ScoringDisabledError,
    ScoringError,
)
from session_scoring.judge.rendering import build_prompt
from session_scoring.log import logger
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.records import SessionFacts
from session_scoring.models.runs import (
    CostEstimate,
    DryRunResult,
    RunBandCount,
    RunCounts,
    RunPage,
    RunPlanningJob,
    RunRequest,
    RunScoreMove,
    RunSelection,
    RunSessionPage,
    RunSessionScore,
    RunStatus,
    RunSummary,
    RunUsage,
    ScoringRun,
    Which,
)
from session_scoring.models.scores import SCORE_BANDS, ScoreStatus, band_for
from session_scoring.models.session import SessionPage, SessionSummary, is_terminal_status
from session_scoring.observability import Metric, count, record_scores_cancelled
from session_scoring.repositories.runs import (
    TOKENS,
    InsertedAttempts,
    RunAttempt,
    RunAttemptPage,
    RunRecord,
    RunScoreChange,
    SessionScoreState,
)
from session_scoring.services.facts import facts_of_summary
from session_scoring.services.references import ReferenceResolver
from session_scoring.services.scorer import JobOutcome
from session_scoring.sources.base import SessionSource

DEFAULT_OUTPUT_TOKENS = 1_500
"""Output tokens per verdict assumed before any score with the model exists (a verdict is typically 1-2k tokens)."""
DEFAULT_LATENCY_SECONDS = 30.0
"""Judge time per session assumed before any score with the model exists."""
ESTIMATE_SAMPLE = 3
"""Selected sessions rendered to estimate a run's input tokens per session."""
SAMPLE_IDS = 10
_ENDED = ("completed", "failed", "cancelled")
MOVERS = 10
"""The largest changes a run's summary lists."""
_RECORD_FIELDS = ScoringRun.model_fields.keys() & {f.name for f in fields(RunRecord)} - {"selection", "counts", "usage"}
"""The API's fields a run record holds under the same name (the run's status and amounts converted on validation)."""


class BatchCanceller(Protocol):
    def cancel(self, batch_id: str) -> None: ...


class RunQueue(Protocol):
    """The runs queue: run jobs and planning messages."""

    def send_many(self, jobs: list[ScoringJob]) -> None: ...

    def send_planning(self, job: RunPlanningJob) -> None: ...


@dataclass(frozen=True)
class Estimate:
    input_tokens: int
    output_tokens: int
    cost_usd: Decimal | None
    latency_seconds: float
    method: str


@dataclass
class PageDecision:
    """What the selection made of one page of the source."""

    candidates: list[str]
    skipped: Counter[str]
    in_run_pending: list[tuple[uuid.UUID, str]]
    """(score_id, session_id) of this run's pending attempts on the page (a resumed page sends their jobs again)."""


def _matches(selection: RunSelection, summary: SessionSummary) -> bool:
    if selection.session_ids is not None and summary.session_id not in selection.session_ids:
        return False
    if selection.agent is not None and summary.agent_type != selection.agent:
        return False
    if selection.alert_type is not None and summary.alert_type != selection.alert_type:
        return False
    started = summary.started_at
    if selection.submitted_after is not None and (started is None or started < selection.submitted_after):
        return False
    return not (selection.submitted_before is not None and (started is None or started >= selection.submitted_before))


def _wanted(selection: RunSelection, state: SessionScoreState | None, has_reference: bool) -> bool:
    """Does the score history (or, for ``with_reference``, the session's reference) make the session one the
    selection asks for?"""
    if selection.which == Which.ALL:
        return True
    if selection.which == Which.WITH_REFERENCE:
        return has_reference
    if selection.which == Which.UNSCORED:
        return state is None or not state.any_completed
    if selection.which == Which.NOT_CURRENT_CRITERIA:
        return state is None or not state.current_completed
    if selection.which == Which.FAILED:
        return state is not None and state.latest_status == "failed"
    assert selection.score_below is not None
    return (
        state is not None
        and state.latest_current_score is not None
        and state.latest_current_score < selection.score_below
    )


def decide_page(
    selection: RunSelection,
    summaries: Sequence[SessionSummary],
    states: dict[str, SessionScoreState],
    scorable_statuses: set[str],
    referenced: Collection[str] = frozenset(),
) -> PageDecision:
    """Apply the selection to one page (``referenced``: the page's sessions with a reference, what ``with_reference``
    selects). Sessions this run already has are not selected again (a resumed page)."""
    decision = PageDecision([], Counter(), [])
    for summary in summaries:
        state = states.get(summary.session_id)
        if state is not None and state.in_run is not None:
            if state.in_run == "pending" and state.in_run_score_id is not None:
                decision.in_run_pending.append((state.in_run_score_id, summary.session_id))
            continue
        wanted = _wanted(selection, state, summary.session_id in referenced)
        if not _matches(selection, summary) or not wanted:
            continue
        if not (is_terminal_status(summary.status) and summary.status in scorable_statuses):
            decision.skipped["not_completed"] += 1
        elif state is not None and state.active:
            decision.skipped["already_active"] += 1
        else:
            decision.candidates.append(summary.session_id)
    return decision


def _paging(page: int, page_size: int, total: int) -> dict[str, int]:
    return {
        "page": page,
        "page_size": page_size,
        "total_items": total,
        "total_pages": max(1, math.ceil(total / page_size)),
    }


def _attempt_to_api(attempt: RunAttempt) -> RunSessionScore:
    score = attempt.total_score if attempt.status == ScoreStatus.COMPLETED else None
    return RunSessionScore(**asdict(attempt), band=None if score is None else band_for(score).band)


def _counts_to_api(counts: Mapping[str, int], skipped: Mapping[str, int]) -> RunCounts:
    """A run's attempts by status and the sessions its selection skipped (by reason), as the API shows them."""
    return RunCounts(
        **{status: counts.get(status, 0) for status in ("pending", "in_progress", *_ENDED)},
        skipped=sum(skipped.values()),
        skipped_by_reason=dict(skipped),
    )


class RunStore(Protocol):
    """Scoring runs, their attempts and counts (``repositories.runs``)."""

    def advance(
        self,
        run_id: uuid.UUID,
        page: int,
        *,
        sessions_seen: int,
        skipped: Mapping[str, int],
        finished: bool,
        stop_reason: str | None = None,
        estimate: tuple[int, int, Decimal | None] | None = None,
    ) -> bool: ...
    def average_usage(self, model: str) -> tuple[float | None, float | None]: ...
    def cancel(self, run_id: uuid.UUID, note: str) -> int | None: ...
    def create(self, run_id: uuid.UUID, criteria_content: dict[str, Any], **columns: Any) -> None: ...
    def fail(self, run_id: uuid.UUID, message: str) -> None: ...
    def get(self, run_id: uuid.UUID) -> RunRecord | None: ...
    def insert_attempts(
        self, run_id: uuid.UUID, criteria_hash: str, triggered_by: str, facts: Mapping[str, SessionFacts]
    ) -> InsertedAttempts: ...
    def list_attempts(
        self, run_id: uuid.UUID, page: int, page_size: int, status: str | None = None
    ) -> RunAttemptPage | None: ...
    def list_page(self, page: int, page_size: int) -> tuple[list[RunRecord], int]: ...
    def score_changes(self, run_id: uuid.UUID) -> list[RunScoreChange] | None: ...
    def run_batches(self, run_id: uuid.UUID) -> list[str]: ...
    def session_states(
        self, run_id: uuid.UUID, session_ids: Sequence[str], current_hash: str
    ) -> dict[str, SessionScoreState]: ...
    def sessions_with_reference(self, session_ids: Sequence[str]) -> set[str]: ...
    def settle(self, run_id: uuid.UUID) -> int: ...


BATCH_PROVIDERS = ("anthropic", "openai", "google")
"""Providers whose batch API (at a discount) batch-mode runs use: Message Batches, the OpenAI Batch API, Gemini batch
mode (on the Gemini API; not on Vertex AI)."""


@dataclass(eq=False)
class RunService:
    """Runs: create or estimate, read, list, cancel, and plan one page of the session source per planning message
    (see the module docstring)."""

    config: ScoringConfig
    repository: RunStore
    source: SessionSource
    queue: Callable[[], RunQueue]
    """Built on first use: a missing SCORING_RUNS_QUEUE_URL fails a run request, not a dry run."""
    _: KW_ONLY
    max_run_sessions: int
    concurrency: int
    page_size: int
    budget_tokens: int | None
    references: ReferenceResolver
    """Each sampled prompt carries its session's reference, as the scorer's will."""
    batches: Callable[[], BatchCanceller]
    """The Message Batches client, built only to cancel a batch-mode run's batches."""

    def estimate(self, session_ids: Sequence[str], batch: bool = False) -> Estimate:
        """Per-session tokens, cost and judge time of a run, from a sample of its sessions and recent scores."""
        sample = list(session_ids[:ESTIMATE_SAMPLE])
        sizes = []
        for session_id in sample:
            try:
                session = self.source.get_session(session_id)
            except PermanentError:
                continue  # an unreadable session fails its own attempt; the others make the estimate
            reference = self.references.for_session(session)
            prompt = build_prompt(self.config, session, budget_tokens=self.budget_tokens, reference=reference)
            sizes.append(prompt.estimated_tokens)
        model = self.config.llm_model
        output, latency_ms = self.repository.average_usage(model)
        input_tokens = math.ceil(sum(sizes) / len(sizes)) if sizes else 0
        output_tokens = math.ceil(output) if output is not None else DEFAULT_OUTPUT_TOKENS
        latency = latency_ms / 1000.0 if latency_ms is not None else DEFAULT_LATENCY_SECONDS
        cost = self._estimated_cost(input_tokens, output_tokens, output is not None, batch)
        method = (
            f"input: the rendered prompt (with the session's reference, if any) of {len(sizes)} sampled session(s), "
            "averaged; output: "
            + (
                f"the average of recent {model} scores"
                if output is not None
                else f"{DEFAULT_OUTPUT_TOKENS} (no {model} score yet)"
            )
            + "; priced with "
            + " + ".join(f"pricing.{t.model}" for t in self.config.judge_targets)
            + (" (each juror's call, summed)" if self.config.jurors else "")
            + (" at the batch discount" if batch else "")
            + ("" if cost is not None else " (missing: cost unknown)")
        )
        return Estimate(input_tokens, output_tokens, cost, latency, method)

    def _estimated_cost(self, input_tokens: int, output_tokens: int, from_history: bool, batch: bool) -> Decimal | None:
        """One score's cost: one judge's call, or the sum of a jury's (each juror reads the whole prompt; a jury's
        stored output tokens are its jurors' sum, so each juror is given its share). None when a model has no
        price."""
        targets = self.config.judge_targets
        per_call_output = (
            math.ceil(output_tokens / len(targets)) if from_history and self.config.jurors else output_tokens
        )
        total = 0.0
        for target in targets:
            price = self.config.price_of(target.model)
            if price is None:
                return None
            total += price.cost_usd(input_tokens, per_call_output, batch=batch)
        return Decimal(str(round(total, 6)))

    def _validate(self, request: RunRequest) -> None:
        if not self.config.enabled:
            raise ScoringDisabledError("scoring is disabled (scoring.enabled is false); set SCORING_ENABLED=true")
        if request.max_sessions > self.max_run_sessions:
            raise InvalidRequestError(
                f"max_sessions {request.max_sessions} is above the limit of {self.max_run_sessions} "
                "(SCORING_MAX_RUN_SESSIONS); ask for fewer sessions or raise the limit"
            )
        provider = self.config.llm_provider
        on_vertex = provider == "google" and self.config.the_target.vertex_ai
        if request.mode == "batch" and (provider not in BATCH_PROVIDERS or on_vertex):
            judge = f"'{provider}' on Vertex AI" if on_vertex else f"'{provider}'"
            raise InvalidRequestError(
                f"mode=batch needs a provider with a discounted batch API, and the judge provider is {judge}; the "
                f"providers with one here: {', '.join(BATCH_PROVIDERS)} (the Message Batches API, the OpenAI Batch "
                "API, Gemini batch mode on the Gemini API; not Gemini on Vertex AI, nor juries); use mode=online"
            )
        if request.max_cost_usd is not None and self.config.price_of(self.config.llm_model) is None:
            raise InvalidRequestError(
                f"max_cost_usd needs a price for the judge model '{self.config.llm_model}': add it to the pricing: "
                "table of the scoring configuration, or leave max_cost_usd out"
            )

    def decide(
        self, run_id: uuid.UUID, selection: RunSelection, page: int, criteria_hash: str
    ) -> tuple[SessionPage, PageDecision]:
        """Read one page of the source and apply the selection to it (the references read only when it asks)."""
        statuses = selection.statuses or list(self.config.session_source.scorable_statuses)
        source_page = self.source.list_sessions(page, self.page_size, statuses)
        ids = [s.session_id for s in source_page.items]
        states = self.repository.session_states(run_id, ids, criteria_hash)
        referenced = self.repository.sessions_with_reference(ids) if selection.which == Which.WITH_REFERENCE else set()
        scorable = set(self.config.session_source.scorable_statuses)
        return source_page, decide_page(selection, source_page.items, states, scorable, referenced)

    def dry_run(self, request: RunRequest) -> DryRunResult:
        """What a run would select and cost, reading the source now; nothing is stored or queued."""
        self._validate(request)
        no_run = uuid.uuid4()  # no attempt carries it: nothing is "already in the run"
        selected: list[str] = []
        skipped: Counter[str] = Counter()
        read = 0
        page = 1
        stop_reason: str | None = None
        while True:
            source_page, decision = self.decide(no_run, request.selection, page, self.config.criteria_hash)
            read += len(source_page.items)
            skipped.update(decision.skipped)
            room = request.max_sessions - len(selected)
            selected.extend(decision.candidates[:room])
            if len(decision.candidates) > room:
                stop_reason = f"max_sessions ({request.max_sessions}) reached"
                break
            if page >= source_page.total_pages or not source_page.items:
                break
            page += 1
        estimate = self.estimate(selected, batch=request.mode == "batch")
        if request.max_cost_usd is not None and estimate.cost_usd and estimate.cost_usd > 0:
            affordable = int(Decimal(str(request.max_cost_usd)) / estimate.cost_usd)
            if affordable < len(selected):
                selected = selected[:affordable]
                stop_reason = f"max_cost_usd ({request.max_cost_usd}) reached at the estimated cost per session"
        count = len(selected)
        return DryRunResult(
            sessions_selected=count,
            sessions_skipped=sum(skipped.values()),
            skipped_by_reason=dict(skipped),
            sessions_read=read,
            sample_session_ids=selected[:SAMPLE_IDS],
            stop_reason=stop_reason,
            estimate=CostEstimate(
                estimated_input_tokens=estimate.input_tokens * count,
                estimated_output_tokens=estimate.output_tokens * count,
                estimated_cost_usd=None if estimate.cost_usd is None else float(estimate.cost_usd * count),
                estimated_duration_seconds=round(estimate.latency_seconds * count / self.concurrency, 1),
                per_session_input_tokens=estimate.input_tokens,
                per_session_output_tokens=estimate.output_tokens,
                method=estimate.method + f"; duration: judge time per session x sessions / {self.concurrency} scorers "
                "(SCORING_RUN_CONCURRENCY)"
                + (
                    "; batch mode: the Message Batches API ends a batch within 24 h (most within an hour), "
                    "collected at the poller's next tick"
                    if request.mode == "batch"
                    else ""
                ),
            ),
        )

    def create(self, request: RunRequest, started_by: str) -> ScoringRun:
        """Store the run and queue its first planning message; the selection happens asynchronously."""
        self._validate(request)
        queue = self.queue()
        run_id = uuid.uuid4()
        name = request.name or f"{request.selection.which.value} run by {started_by}"
        self.repository.create(
            run_id,
            self.config.criteria_content,
            name=name,
            mode=request.mode,
            selection=request.selection.model_dump(mode="json", exclude_none=True),
            max_sessions=request.max_sessions,
            max_cost_usd=None if request.max_cost_usd is None else Decimal(str(request.max_cost_usd)),
            criteria_hash=self.config.criteria_hash,
            judge_model=self.config.llm_model,
            started_by=started_by,
        )
        try:
            queue.send_planning(RunPlanningJob(run_id=run_id, page=1))
        except QueueUnavailableError as exc:
            self.repository.fail(run_id, f"could not queue the run's planning: {exc.message}")
            raise
        logger.info("scoring run created", extra={"run_id": str(run_id), "run_name": name})
        return self.get(run_id)

    def get(self, run_id: uuid.UUID) -> ScoringRun:
        self.settle(run_id)
        record = self.repository.get(run_id)
        if record is None:
            raise RunNotFoundError(f"no scoring run '{run_id}'; GET /api/v1/scoring/runs lists them")
        return self.to_api(record)

    def list_runs(self, page: int, page_size: int) -> RunPage:
        records, total = self.repository.list_page(page, page_size)
        return RunPage(items=[self.to_api(r) for r in records], **_paging(page, page_size, total))

    def list_sessions(
        self, run_id: uuid.UUID, page: int, page_size: int, status: ScoreStatus | None = None
    ) -> RunSessionPage:
        """One page of the run's attempts (by session id) with their scores and bands; ``status`` filters them. The
        page carries the run's counts read with its rows, so the two agree."""
        found = self.repository.list_attempts(run_id, page, page_size, None if status is None else status.value)
        if found is None:
            raise RunNotFoundError(f"no scoring run '{run_id}'; GET /api/v1/scoring/runs lists them")
        return RunSessionPage(
            items=[_attempt_to_api(a) for a in found.attempts],
            counts=_counts_to_api(found.counts, found.skipped),
            **_paging(page, page_size, found.total),
        )

    def summary(self, run_id: uuid.UUID) -> RunSummary:
        """The run's completed scores by band and against each session's previous score (the movers first)."""
        changes = self.repository.score_changes(run_id)
        if changes is None:
            raise RunNotFoundError(f"no scoring run '{run_id}'; GET /api/v1/scoring/runs lists them")
        by_band = Counter(band_for(c.total_score).band for c in changes)
        compared = [c for c in changes if c.previous_score is not None]
        moves = [
            RunScoreMove(
                session_id=c.session_id,
                total_score=c.total_score,
                band=band_for(c.total_score).band,
                previous_score=c.previous_score,
                previous_band=band_for(c.previous_score).band,
                change=c.total_score - c.previous_score,
                same_criteria=c.previous_criteria_hash == c.criteria_hash,
            )
            for c in compared
            if c.previous_score is not None and c.previous_score != c.total_score
        ]
        moves.sort(key=lambda m: (-abs(m.change), m.session_id))
        return RunSummary(
            run_id=run_id,
            completed=len(changes),
            average_score=round(sum(c.total_score for c in changes) / len(changes), 1) if changes else None,
            bands=[RunBandCount(band=b.band, sessions=by_band[b.band]) for b in SCORE_BANDS],
            first_scores=len(changes) - len(compared),
            improved=sum(1 for m in moves if m.change > 0),
            worsened=sum(1 for m in moves if m.change < 0),
            unchanged=len(compared) - len(moves),
            movers=moves[:MOVERS],
        )

    def cancel(self, run_id: uuid.UUID, cancelled_by: str) -> ScoringRun:
        record = self.repository.get(run_id)
        if record is None:
            raise RunNotFoundError(f"no scoring run '{run_id}'; GET /api/v1/scoring/runs lists them")
        batches = self.repository.run_batches(run_id) if record.mode == "batch" else []
        cancelled = self.repository.cancel(run_id, f"cancelled by {cancelled_by}")
        if cancelled is None:
            current = self.repository.get(run_id)
            if current is not None and current.status != RunStatus.CANCELLED:
                raise InvalidRequestError(f"run '{run_id}' has already ended ({current.status}); nothing to cancel")
        record_scores_cancelled(cancelled or 0)
        # Best effort: the attempts are cancelled already, so a batch left running only costs its results, which the
        # poller ignores.
        for batch_id in batches:
            try:
                self.batches().cancel(batch_id)
            except ScoringError as exc:
                logger.warning(
                    "could not cancel a batch of a cancelled run",
                    extra={"run_id": str(run_id), "batch_id": batch_id, "error": exc.message},
                )
        logger.info("scoring run cancelled", extra={"run_id": str(run_id), "by": cancelled_by})
        return self.get(run_id)

    def settle(self, run_id: uuid.UUID) -> None:
        record_scores_cancelled(self.repository.settle(run_id))

    def cost_of(self, record: RunRecord) -> float | None:
        """The actual cost of the run's completed attempts; None when a model they used has no price."""
        total = 0.0
        for usage in record.usage:
            price = self.config.price_of(usage.model or "")
            if price is None:
                return None
            total += price.cost_usd(
                usage.input_tokens,
                usage.output_tokens,
                usage.cache_read_tokens,
                usage.cache_write_tokens,
                batch=record.mode == "batch",
            )
        return round(total, 6)

    def to_api(self, record: RunRecord) -> ScoringRun:
        counts = record.counts
        terminal = sum(counts.get(s, 0) for s in _ENDED)
        eta: float | None = None
        if record.status in (RunStatus.PLANNING, RunStatus.RUNNING) and record.started_at and record.now:
            if terminal:
                elapsed = (record.now - record.started_at).total_seconds()
                eta = round(elapsed / terminal * record.active, 1)
        elif record.finished_at is not None:
            eta = 0.0
        return ScoringRun(
            **{name: getattr(record, name) for name in _RECORD_FIELDS},
            selection=RunSelection.model_validate(record.selection),
            sessions_read=record.sessions_seen,
            counts=_counts_to_api(counts, record.skipped),
            usage=RunUsage(
                **{name: sum(getattr(u, name) for u in record.usage) for name in TOKENS},
                cost_usd=self.cost_of(record),
            ),
            eta_seconds=eta,
        )

    def plan_page(self, job: RunPlanningJob) -> JobOutcome:
        """Plan ``job.page``; a transient failure leaves the message for a later delivery (the page is redone)."""
        count(Metric.RUN_PLANNING_MESSAGES)
        try:
            return self._plan(job)
        except PermanentError as exc:
            logger.error("run planning failed", extra={"run_id": str(job.run_id), "error": exc.message})
            self.repository.fail(job.run_id, f"planning page {job.page} failed: {exc.message}")
            return JobOutcome.ack(exc.message)
        except ScoringError as exc:
            logger.warning("run planning deferred", extra={"run_id": str(job.run_id), "error": exc.message})
            return JobOutcome.retry(f"planning page {job.page} will be retried: {exc.message}", 30)

    def _plan(self, job: RunPlanningJob) -> JobOutcome:
        repository = self.repository
        run = repository.get(job.run_id)
        if run is None:
            return JobOutcome.ack("no such run")
        if run.status != RunStatus.PLANNING:
            return JobOutcome.ack(f"the run is {run.status}; nothing to plan")
        if run.next_page > job.page:
            # This page was planned but its successor may not have been sent (killed in between): send it again.
            if run.next_page == job.page + 1:
                self.queue().send_planning(RunPlanningJob(run_id=run.run_id, page=run.next_page))
            return JobOutcome.ack("page already planned")
        if run.next_page < job.page:
            return JobOutcome.ack("stale planning message")
        selection = RunSelection.model_validate(run.selection)
        source_page, decision = self.decide(run.run_id, selection, job.page, run.criteria_hash)
        # A resumed page: the jobs of its pending attempts may never have been sent.
        self._send(run, decision.in_run_pending)

        estimate = None  # made once, on the first page with candidates, then stored on the run
        if run.estimated_input_tokens is None and decision.candidates:
            estimate = self.estimate(decision.candidates, batch=run.mode == "batch")
        cost = run.estimated_cost_per_session_usd if estimate is None else estimate.cost_usd
        allowed, stop_reason = self._room(run, cost, len(decision.candidates))
        chosen = decision.candidates[:allowed]
        summaries = {s.session_id: s for s in source_page.items}
        inserted = repository.insert_attempts(
            run.run_id,
            run.criteria_hash,
            f"run:{run.run_id}",
            {sid: facts_of_summary(summaries[sid]) for sid in chosen},
        )
        if not inserted.run_open:
            return JobOutcome.ack("the run was cancelled while planning")
        self._send(run, inserted.created)
        skipped = Counter(decision.skipped)
        skipped["already_active"] += len(inserted.already_active)
        exhausted = job.page >= source_page.total_pages or not source_page.items
        finished = exhausted or stop_reason is not None
        moved = repository.advance(
            run.run_id,
            job.page,
            sessions_seen=len(source_page.items),
            skipped={k: v for k, v in skipped.items() if v},
            finished=finished,
            stop_reason=stop_reason,
            estimate=None if estimate is None else (estimate.input_tokens, estimate.output_tokens, estimate.cost_usd),
        )
        if not moved:
            return JobOutcome.ack("the run changed while planning this page")
        count(Metric.RUN_ATTEMPTS_QUEUED, len(inserted.created))
        if finished:
            self.settle(run.run_id)  # a run that selected nothing is completed at once
            logger.info("scoring run planned", extra={"run_id": str(run.run_id), "stop_reason": stop_reason})
        else:
            self.queue().send_planning(RunPlanningJob(run_id=run.run_id, page=job.page + 1))
        return JobOutcome.ack(f"planned page {job.page}: {len(inserted.created)} attempt(s) queued")

    def _room(self, run: RunRecord, cost: Decimal | None, wanted: int) -> tuple[int, str | None]:
        """How many of ``wanted`` more attempts the cap and the cost limit (at ``cost`` per session) allow, and why
        the selection stops here (None: it goes on to the next page)."""
        room = max(0, run.max_sessions - run.attempts)
        allowed = min(wanted, room)
        reason = f"max_sessions ({run.max_sessions}) reached" if wanted >= room else None
        if run.max_cost_usd is not None and cost:
            actual = Decimal(str(self.cost_of(run) or 0))
            in_flight = cost * run.active
            affordable = max(0, int((run.max_cost_usd - actual - in_flight) / cost))
            if affordable < allowed:
                allowed = affordable
                reason = (
                    f"max_cost_usd ({run.max_cost_usd}) reached: actual {actual:.4f} + in flight {in_flight:.4f} "
                    f"USD, estimated {cost} per session"
                )
        return allowed, reason

    def _send(self, run: RunRecord, attempts: Sequence[tuple[uuid.UUID, str]]) -> None:
        if run.mode == "batch" or not attempts:
            return  # batch mode: no queue job, the batch poller submits the run's pending attempts in Message Batches
        now = datetime.now(UTC)
        self.queue().send_many(
            [
                ScoringJob(
                    score_id=score_id,
                    session_id=session_id,
                    requested_by=f"run:{run.run_id}",
                    requested_at=now,
                    run_id=run.run_id,
                )
                for score_id, session_id in attempts
            ]
        )
