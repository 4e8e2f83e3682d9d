"""What the repositories return: plain, frozen domain records (never ORM rows, never API models).

The services map these to the API models explicitly, so the storage shape and the wire shape can change apart.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from session_scoring.models.scores import ScoreStatus
from session_scoring.models.session import Session


@dataclass(frozen=True)
class MissingToolRecord:
    tool_name: str
    rationale: str
    canonical_name: str | None = None
    """What the missing-tools analytics count it as (``models.tools``), stored with the verdict."""


@dataclass(frozen=True)
class ApproachRecord:
    name: str
    description: str
    steps: tuple[str, ...] = ()


@dataclass(frozen=True)
class SessionFacts:
    """The session as it was when an attempt was created: what scores are sliced by without asking the source.

    ``stages`` and ``tool_calls`` are None when only the session's summary was read (a run's planner lists
    summaries); ``session-scoring facts backfill`` completes them from the whole session.
    """

    agent: str | None
    alert_type: str | None
    started_at: datetime | None
    ended_at: datetime | None
    stages: int | None
    tool_calls: int | None
    source: str | None
    captured_at: datetime | None = None


WriteBackStatus = Literal["writing", "written", "retrying", "failed"]


@dataclass(frozen=True)
class WriteBackRecord:
    """A completed attempt's write-back to the trace store its session came from."""

    sink: str
    status: WriteBackStatus
    """``writing``, ``written``, ``retrying`` (the job comes back to try again) or ``failed`` (for good)."""
    tries: int
    updated_at: datetime
    detail: str | None = None
    """What was written (e.g. the span and how many annotations)."""
    error_message: str | None = None
    written_at: datetime | None = None


def facts_of(session: Session) -> SessionFacts:
    """Every fact of a whole session."""
    chain = next((stage.agent for stage in session.stages if stage.agent), None)
    return SessionFacts(
        agent=session.agent_type or chain,
        alert_type=session.alert_type,
        started_at=session.started_at,
        ended_at=session.completed_at,
        stages=len(session.stages),
        tool_calls=len(session.tool_calls),
        source=session.source,
    )


@dataclass(frozen=True)
class SessionOutline:
    """What a score request needs of a session: that it exists, its status (can it be scored?) and the facts its
    attempt keeps; never its stages, steps or document (an upload's are megabytes)."""

    session_id: str
    status: str
    facts: SessionFacts


def outline_of(session: Session) -> SessionOutline:
    return SessionOutline(session.session_id, session.status, facts_of(session))


@dataclass(frozen=True)
class ScoreRecord:
    """One scoring attempt as stored, its missing tools and alternative approaches in their stored order."""

    score_id: uuid.UUID
    session_id: str
    criteria_hash: str
    status: ScoreStatus
    scored_triggered_by: str
    requested_at: datetime
    total_score: int | None = None
    score_breakdown: dict[str, Any] | None = None
    score_reasoning: str | None = None
    missing_tools: tuple[MissingToolRecord, ...] = ()
    alternative_approaches: tuple[ApproachRecord, ...] = ()
    started_at: datetime | None = None
    scored_at: datetime | None = None
    error_message: str | None = None
    judge_provider: str | None = None
    judge_model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    judge_latency_ms: int | None = None
    prompt_compacted: bool = False
    prompt_tokens_before: int | None = None
    prompt_tokens_after: int | None = None
    facts: SessionFacts | None = None
    """None when the attempt has no snapshot yet (created before migration 0007 and not backfilled)."""
    score_spread: dict[str, Any] | None = None
    """How an ensemble score's samples spread (``scoring.samples`` > 1); None for a single verdict."""
    run_id: uuid.UUID | None = None
    """The scoring run this attempt belongs to (None for a single request)."""
    judging_ms: int | None = None
    estimated_cost_usd: float | None = None
    writeback: WriteBackRecord | None = None
    """The write-back of a completed score to its trace store; None when none started (none configured, an uploaded
    session, or not yet)."""
    outcome: str | None = None
    """Whether the conclusion found the reference root cause (``models.scores.Outcome``); None until completed, and
    for a score stored before outcomes were judged."""
    outcome_reason: str | None = None
    reference_source: str | None = None
    """Where the reference the judge was given came from (label, import, source); None: it was given none."""
    ceiling_value: str | None = None
    """The answer of the rubric's ceiling field (e.g. ``correct``); None when the rubric has none."""
    failure_tags: tuple[str, ...] = ()
    """The failure tags the judge gave, from the rubric's closed vocabulary."""
    claims: list[dict[str, Any]] | None = None
    """The verdict's claims, each with the timeline event it cites (rubrics with ``claims_cite_events``)."""
    masked_values: Mapping[str, int] | None = None
    """How many secrets were masked in the session the judge saw, by group; None for a score stored before masking."""


@dataclass(frozen=True)
class LatestScoreRecord:
    """A session's score as the session list shows it, without its children: its latest completed attempt (else its
    latest attempt), and the status of a later attempt that did not complete (cancelled, failed, still going)."""

    session_id: str
    score_id: uuid.UUID
    status: ScoreStatus
    total_score: int | None
    criteria_hash: str
    later_attempt_status: ScoreStatus | None = None


@dataclass(frozen=True)
class StoredCriteria:
    criteria_hash: str
    criteria_content: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True)
class StrandedAttempt:
    """An active attempt that no scorer holds and whose queue message may be gone (see ``ScoreRepository.stranded``)."""

    score_id: uuid.UUID
    session_id: str
    status: ScoreStatus
    delivery_count: int
    requested_by: str
    requested_at: datetime
    run_id: uuid.UUID | None = None
    """The scoring run the attempt belongs to: its requeued job carries it, so the run settles when it ends."""


@dataclass(frozen=True)
class ClaimResult:
    """Outcome of trying to claim an attempt for scoring."""

    claimed: bool
    claim_token: uuid.UUID | None = None
    status: ScoreStatus | None = None
    lease_expires_at: datetime | None = None
    delivery_count: int = 0
    reference_root_cause: str | None = None
    """The session's reference root cause set through the labels API, read by the claim itself (no statement of its
    own per job); None when none is set, or the last revision withdrew it."""
    reference_remediation: str | None = None


@dataclass(frozen=True)
class PromptStats:
    """What a score stores of the request it was judged on."""

    compacted: bool
    tokens_before: int | None
    tokens_after: int | None
    reference_source: str | None = None
    """Where the reference the request carried came from (label, import, source); None: it carried none."""
    masked_values: Mapping[str, int] | None = None
    """How many secrets the masking step replaced in the session the judge saw, by group (docs/masking.md)."""


@dataclass(frozen=True)
class NewAttempt:
    """Outcome of asking for a new attempt: the attempt, and whether this call created it."""

    attempt: ScoreRecord
    created: bool = True
