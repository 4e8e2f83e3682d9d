"""Scoring use cases behind the REST API: request a score, read scores, criteria, health (the sessions list is
``services/session_list.py``)."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol, cast, get_args

from session_scoring.configuration.criteria import ScoringConfig, default_rubric, rubric_of
from session_scoring.errors import (
    CriteriaNotFoundError,
    QueueUnavailableError,
    ScoreNotFoundError,
    ScoringDisabledError,
    SessionNotScorableError,
)
from session_scoring.log import logger
from session_scoring.models.api import (
    AlternativeApproach,
    CeilingInfo,
    Claim,
    CriteriaDefinition,
    DimensionScore,
    JudgeInfo,
    JurorInfo,
    JuryInfo,
    MissingTool,
    RubricCeilingInfo,
    RubricCeilingValue,
    RubricDimensionInfo,
    RubricFailureTag,
    RubricInfo,
    SessionFactsInfo,
    SessionScore,
    SessionScoring,
    TotalSpread,
    WriteBackInfo,
)
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.records import (
    NewAttempt,
    ScoreRecord,
    SessionFacts,
    SessionOutline,
    StoredCriteria,
    WriteBackRecord,
)
from session_scoring.models.reference import ReferenceSource
from session_scoring.models.rubric import Rubric
from session_scoring.models.scores import Outcome, ScoreStatus
from session_scoring.models.session import is_terminal_status
from session_scoring.models.tools import canonical_tool_name
from session_scoring.observability import Metric, emit_now

if TYPE_CHECKING:  # the queue's module (and the run messages it sends) is imported by a POST, not by a read
    from session_scoring.infrastructure.queue import JobQueue


def rubric_info(rubric: Rubric) -> RubricInfo:
    """Explicit mapping from a rubric to what the API says of it."""
    ceilings = rubric.ceilings
    return RubricInfo(
        name=rubric.name,
        description=rubric.description,
        total=rubric.total,
        dimensions=[
            RubricDimensionInfo(key=d.key, label=d.label, max_points=d.max_points, description=d.description)
            for d in rubric.dimensions
        ],
        ceiling=None
        if ceilings is None
        else RubricCeilingInfo(
            field=ceilings.field,
            label=ceilings.label,
            description=ceilings.description,
            values=[
                RubricCeilingValue(value=v, min_score=r.min, max_score=r.max, description=r.description)
                for v, r in ceilings.values.items()
            ],
        ),
        failure_tags=[RubricFailureTag(tag=t.tag, description=t.description) for t in rubric.failure_tags],
        claims_cite_events=rubric.claims_cite_events,
    )


def _dimensions(record: ScoreRecord, rubric: Rubric) -> list[DimensionScore] | None:
    breakdown = record.score_breakdown
    if not breakdown:
        return None
    labels = {d.key: d.label for d in rubric.dimensions}
    order = [*[k for k in rubric.keys if k in breakdown], *[k for k in breakdown if k not in rubric.maxima]]
    return [
        DimensionScore(
            key=key,
            label=labels.get(key, key),
            points=int(breakdown[key]),
            max_points=rubric.maxima.get(key, int(breakdown[key])),
        )
        for key in order
    ]


def _ceiling(record: ScoreRecord, rubric: Rubric) -> CeilingInfo | None:
    allowed = rubric.ceiling_range(record.ceiling_value)
    if allowed is None or rubric.ceilings is None or record.ceiling_value is None:
        return None
    return CeilingInfo(
        field=rubric.ceilings.field,
        label=rubric.ceilings.label,
        value=record.ceiling_value,
        min_score=allowed.min,
        max_score=allowed.max,
        description=allowed.description,
    )


def to_jury_info(spread: dict[str, Any] | None) -> JuryInfo | None:
    """A jury's spread (as ``judge/jury.py`` stores it in ``score_spread``) as the API model; None when the score
    was not a jury's."""
    if not spread or "jurors" not in spread:
        return None
    total = spread["total"]
    return JuryInfo(
        jurors=[
            JurorInfo(
                provider=j["provider"],
                model=j["model"],
                name=j.get("name"),
                total=j.get("total"),
                failed=j.get("failed"),
                excluded=j.get("excluded"),
                same_family_as_agent=bool(j.get("same_family_as_agent", False)),
            )
            for j in spread["jurors"]
        ],
        quorum=spread["quorum"],
        verdicts=spread["samples"],
        total_spread=TotalSpread(min=total["min"], max=total["max"], stdev=total["stdev"]),
    )


def to_session_score(record: ScoreRecord, current_criteria_hash: str, rubric: Rubric | None = None) -> SessionScore:
    """Explicit mapping from the stored attempt to the API model; ``rubric``: the one its criteria judged by (its
    dimensions' labels and maxima, its ceiling), the default rubric when not given."""
    rubric = rubric or default_rubric()
    return SessionScore(
        score_id=record.score_id,
        session_id=record.session_id,
        criteria_hash=record.criteria_hash,
        status=record.status,
        total_score=record.total_score,
        score_breakdown=record.score_breakdown,
        rubric=rubric.name if record.score_breakdown else None,
        dimensions=_dimensions(record, rubric),
        ceiling=_ceiling(record, rubric),
        failure_tags=list(record.failure_tags),
        claims=[Claim(claim=c["claim"], event=c["event"]) for c in record.claims or ()],
        score_reasoning=record.score_reasoning,
        missing_tools=[
            MissingTool(
                tool_name=t.tool_name,
                rationale=t.rationale,
                canonical_name=t.canonical_name or canonical_tool_name(t.tool_name),
            )
            for t in record.missing_tools
        ],
        alternative_approaches=[
            AlternativeApproach(name=a.name, description=a.description, steps=list(a.steps))
            for a in record.alternative_approaches
        ],
        scored_triggered_by=record.scored_triggered_by,
        requested_at=record.requested_at,
        started_at=record.started_at,
        scored_at=record.scored_at,
        error_message=record.error_message,
        is_current_criteria=record.criteria_hash == current_criteria_hash,
        session_facts=None if record.facts is None else to_session_facts(record.facts),
        judge=JudgeInfo(
            provider=record.judge_provider,
            model=record.judge_model,
            input_tokens=record.input_tokens,
            output_tokens=record.output_tokens,
            cache_read_tokens=record.cache_read_tokens,
            cache_write_tokens=record.cache_write_tokens,
            latency_ms=record.judge_latency_ms,
            prompt_compacted=record.prompt_compacted,
            prompt_tokens_before=record.prompt_tokens_before,
            prompt_tokens_after=record.prompt_tokens_after,
            judging_ms=record.judging_ms,
            estimated_cost_usd=record.estimated_cost_usd,
        ),
        score_spread=record.score_spread,
        jury=to_jury_info(record.score_spread),
        run_id=record.run_id,
        writeback=None if record.writeback is None else to_writeback_info(record.writeback),
        outcome=None if record.outcome is None else Outcome(record.outcome),
        outcome_reason=record.outcome_reason,
        reference_source=to_reference_source(record.reference_source),
        masked_values=None if record.masked_values is None else dict(record.masked_values),
    )


def to_reference_source(value: str | None) -> ReferenceSource | None:
    """A stored reference source as its type (the column's check constraint allows only these)."""
    if value is None:
        return None
    for source in get_args(ReferenceSource):
        if source == value:
            return cast(ReferenceSource, source)
    raise ValueError(f"unknown reference source {value!r}")


def to_writeback_info(writeback: WriteBackRecord) -> WriteBackInfo:
    """Explicit mapping from the stored write-back to the API model."""
    return WriteBackInfo(
        sink=writeback.sink,
        status=writeback.status,
        tries=writeback.tries,
        detail=writeback.detail,
        error_message=writeback.error_message,
        updated_at=writeback.updated_at,
        written_at=writeback.written_at,
    )


def to_session_facts(facts: SessionFacts) -> SessionFactsInfo:
    """Explicit mapping from the stored snapshot to the API model."""
    return SessionFactsInfo(
        agent=facts.agent,
        alert_type=facts.alert_type,
        started_at=facts.started_at,
        ended_at=facts.ended_at,
        stages=facts.stages,
        tool_calls=facts.tool_calls,
        source=facts.source,
        captured_at=facts.captured_at,
    )


class SessionOutlines(Protocol):
    """Where a score request reads what it needs of a session (``sources.composite.CompositeSessionSource``)."""

    def outline(self, session_id: str) -> SessionOutline:
        """The session's status and facts; raises SessionNotFoundError when no source has it."""
        ...


class ScoreStore(Protocol):
    """Score attempts and criteria as the API reads and requests them (``repositories.scores``)."""

    def active_or_latest_completed(self, session_id: str) -> ScoreRecord | None: ...
    def create_attempt(
        self, score_id: uuid.UUID, session_id: str, criteria_hash: str, triggered_by: str, facts: SessionFacts | None
    ) -> NewAttempt: ...
    def ensure_criteria(self, criteria_hash: str, criteria_content: dict[str, Any]) -> None: ...
    def fail(
        self, score_id: uuid.UUID, claim_token: uuid.UUID | None, message: str, *, dead_lettered: bool = False
    ) -> bool: ...
    def get_criteria(self, criteria_hash: str) -> StoredCriteria | None: ...
    def last_scored_session(self) -> str | None: ...
    def latest(self, session_id: str) -> ScoreRecord | None: ...
    def list_for_session(self, session_id: str) -> list[ScoreRecord]: ...


@dataclass(eq=False)
class ScoringService:
    """``source`` is called when a session is first read and ``queue`` when a job is first sent: a process that
    only reads scores builds neither (nor imports the trace formats)."""

    config: ScoringConfig
    repository: ScoreStore
    source: Callable[[], SessionOutlines]
    queue: Callable[[], JobQueue]
    _rubrics: dict[str, Rubric] = field(default_factory=dict, init=False, repr=False)

    @property
    def criteria_hash(self) -> str:
        return self.config.criteria_hash

    def request_score(self, session_id: str, force_rescore: bool, triggered_by: str) -> SessionScore:
        """Return the latest completed score, or the active attempt, or queue a new attempt (200 for a completed
        attempt, 202 otherwise); never more than one active attempt per session, even with ``force_rescore``."""
        if not self.config.enabled:
            raise ScoringDisabledError(
                "scoring is disabled (scoring.enabled is false); set SCORING_ENABLED=true to request scores"
            )
        current = self.config.criteria_hash
        if not force_rescore:
            existing = self.repository.active_or_latest_completed(session_id)
            if existing is not None:
                return self._score(existing)
        # A forced request reads no attempt first: the insert below finds an active attempt itself (the partial unique
        # index decides) and that attempt is answered instead, so a new attempt costs one statement. Of the session
        # it reads only its outline (status and facts), never an upload's stored document.
        session = self.source().outline(session_id)
        self._check_scorable(session)
        self.repository.ensure_criteria(current, self.config.criteria_content)
        score_id = uuid.uuid4()
        new = self.repository.create_attempt(score_id, session_id, current, triggered_by, session.facts)
        if not new.created:
            return self._score(new.attempt)
        job = ScoringJob(
            score_id=score_id, session_id=session_id, requested_by=triggered_by, requested_at=datetime.now(UTC)
        )
        try:
            self.queue().send(job)
        except QueueUnavailableError as exc:
            self.repository.fail(score_id, None, f"could not queue the scoring job: {exc.message}")
            raise
        logger.info("scoring queued", extra={"score_id": str(score_id), "session_id": session_id})
        emit_now(Metric.SCORES_REQUESTED)
        return self._score(new.attempt)

    def check_known(self, session_id: str) -> None:
        """Raise SessionNotFoundError unless the session has an attempt or a source (the configured one, or the
        uploads) has it: what a label needs (a session the source no longer has keeps its scores, and can still
        be labelled)."""
        if self.repository.latest(session_id) is not None:
            return
        self.source().outline(session_id)

    def _check_scorable(self, session: SessionOutline) -> None:
        allowed = set(self.config.session_source.scorable_statuses)
        terminal = is_terminal_status(session.status)
        if not terminal or session.status not in allowed:
            raise SessionNotScorableError(
                f"session '{session.session_id}' is {session.status}; only sessions that are "
                f"{' or '.join(sorted(allowed))} can be scored" + ("" if terminal else " (wait until it finishes)"),
                status=session.status,
            )

    def latest_score(self, session_id: str) -> SessionScore:
        """The session's latest attempt (the hot read: one statement, mapped as every other read is)."""
        record = self.repository.latest(session_id)
        if record is None:
            raise ScoreNotFoundError(
                f"session '{session_id}' has never been scored; POST to this URL to request a score"
            )
        return self._score(record)

    def last_scored_session(self) -> str | None:
        """The id of the session scored last (None before the first score): the score a client most likely asks
        for next, which a warm-up reads."""
        return self.repository.last_scored_session()

    def warm_up(self) -> SessionScore | None:
        """Read the latest score of the session scored last (None before the first score), as a GET would: opens
        the pool's connection, runs the hot read and validates its answer (after a SnapStart restore, so that the
        first request does not pay for doing each of these the first time)."""
        try:
            return self.latest_score(self.last_scored_session() or "")
        except ScoreNotFoundError:
            return None

    def score_history(self, session_id: str) -> list[SessionScore]:
        records = self.repository.list_for_session(session_id)
        if not records:
            raise ScoreNotFoundError(f"session '{session_id}' has never been scored")
        return [self._score(record) for record in records]

    def session_scoring(self, session_id: str) -> SessionScoring:
        """Every attempt of the session with the one under the criteria in force picked out (its latest completed,
        as the fleet query and the analytics count it); empty for a session never scored, which is an answer, not
        an error."""
        records = self.repository.list_for_session(session_id)
        attempts = [self._score(record) for record in records]
        in_force = [a for a in attempts if a.is_current_criteria and a.status == ScoreStatus.COMPLETED]
        current = max(in_force, key=lambda a: (a.scored_at or a.requested_at, str(a.score_id)), default=None)
        return SessionScoring(
            session_id=session_id, current=current, latest=attempts[0] if attempts else None, attempts=attempts
        )

    def current_criteria(self) -> CriteriaDefinition:
        self.repository.ensure_criteria(self.config.criteria_hash, self.config.criteria_content)
        stored = self.repository.get_criteria(self.config.criteria_hash)
        return CriteriaDefinition(
            criteria_hash=self.config.criteria_hash,
            llm_provider=self.config.llm_provider,
            llm_model=self.config.llm_model,
            criteria_content=self.config.criteria_content,
            created_at=stored.created_at if stored else None,
            rubric=rubric_info(self.config.rubric),
        )

    def criteria(self, criteria_hash: str) -> CriteriaDefinition:
        """A stored criteria definition with the rubric its scores were judged by (CriteriaNotFoundError if none)."""
        if criteria_hash == self.config.criteria_hash:
            return self.current_criteria()
        stored = self.repository.get_criteria(criteria_hash)
        if stored is None:
            raise CriteriaNotFoundError(
                f"no criteria have the hash '{criteria_hash}'; GET /api/v1/scoring/analytics/criteria lists those "
                "with scores"
            )
        scoring = stored.criteria_content.get("scoring") or {}
        return CriteriaDefinition(
            criteria_hash=criteria_hash,
            llm_provider=str(scoring.get("llm_provider", "")),
            llm_model=str(scoring.get("llm_model", "")),
            criteria_content=stored.criteria_content,
            created_at=stored.created_at,
            rubric=rubric_info(self.rubric_for(criteria_hash)),
        )

    def rubric_for(self, criteria_hash: str) -> Rubric:
        """The rubric scores of ``criteria_hash`` were judged by: the configuration's for the criteria in force
        (no I/O), else read once from the stored definition and kept (a definition never changes)."""
        if criteria_hash == self.config.criteria_hash:
            return self.config.rubric
        known = self._rubrics.get(criteria_hash)
        if known is None:
            stored = self.repository.get_criteria(criteria_hash)
            if stored is None:
                return default_rubric()  # not kept: any caller may name a hash that was never stored
            known = rubric_of(stored.criteria_content)
            self._rubrics[criteria_hash] = known
        return known

    def _score(self, record: ScoreRecord) -> SessionScore:
        return to_session_score(record, self.config.criteria_hash, self.rubric_for(record.criteria_hash))
