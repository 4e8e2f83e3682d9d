"""Scoring runs at their boundaries: the API's request and answers, and the planning message on the runs queue.

A run is a named, capped set of ordinary scoring attempts (each carrying the run's id) that an operator starts,
watches and can cancel. The request is validated here; limits that depend on settings (the session cap) and on the
configuration (pricing) are checked by the run service, which says what to change.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, Strict, TypeAdapter, model_validator

from session_scoring.models.ids import is_session_id
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.request import JsonDateTime, RequestBody
from session_scoring.models.scores import ScoreStatus


class RunStatus(StrEnum):
    PLANNING = "planning"
    """Selecting sessions (paging through the source) and queueing their attempts."""
    RUNNING = "running"
    """Every attempt is queued; waiting for them to end."""
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    FAILED = "failed"
    """Planning failed for good (the reason is in ``error_message``)."""


FINISHED_RUN_STATUSES = frozenset({RunStatus.COMPLETED, RunStatus.CANCELLED, RunStatus.FAILED})


class Which(StrEnum):
    UNSCORED = "unscored"
    """Sessions with no completed score under any criteria."""
    NOT_CURRENT_CRITERIA = "not_current_criteria"
    """Sessions with no completed score under the current criteria (re-score after a criteria change)."""
    FAILED = "failed"
    """Sessions whose latest attempt failed."""
    ALL = "all"
    SCORE_BELOW = "score_below"
    """Sessions whose latest completed score under the current criteria is below ``score_below``."""
    WITH_REFERENCE = "with_reference"
    """Sessions with a reference root cause (set through the labels API, in their imported document, or from the
    source when an earlier score was judged against it): a benchmark re-scored in one go."""


MAX_COST_USD = 99_999_999.9999
"""The largest ``max_cost_usd`` its column holds (``NUMERIC(12,4)``)."""

MAX_INTEGER = 2_147_483_647
"""The largest value of a PostgreSQL ``integer`` column (``max_sessions``)."""


class RunSelection(RequestBody):
    """Which sessions a run scores. Every filter given must match; sessions are read from the session source."""

    which: Annotated[Which, Strict(False)] = Which.UNSCORED
    score_below: int | None = Field(default=None, ge=1, le=100, description="Required with which=score_below")
    session_ids: list[str] | None = Field(
        default=None,
        max_length=100,
        description="Only these sessions (read from the source; at most 100: the request body is limited to 4 KiB)",
    )
    statuses: list[str] | None = Field(
        default=None, description="Session statuses to read; default: the configured scorable statuses"
    )
    submitted_after: JsonDateTime | None = Field(default=None, description="Sessions started at or after this time")
    submitted_before: JsonDateTime | None = Field(default=None, description="Sessions started before this time")
    agent: str | None = Field(default=None, max_length=255, description="Only sessions of this agent type")
    alert_type: str | None = Field(default=None, max_length=255, description="Only sessions of this alert type")

    @model_validator(mode="after")
    def _check(self) -> RunSelection:
        if self.which == Which.SCORE_BELOW and self.score_below is None:
            raise ValueError("which=score_below needs score_below (1-100): the score a session must be below")
        if self.which != Which.SCORE_BELOW and self.score_below is not None:
            raise ValueError("score_below is only used with which=score_below")
        if self.submitted_after and self.submitted_before and self.submitted_after >= self.submitted_before:
            raise ValueError("submitted_after must be earlier than submitted_before")
        for session_id in self.session_ids or []:
            if not is_session_id(session_id):
                raise ValueError(f"session_ids: {session_id!r} is not a valid session id")
        return self


class RunRequest(RequestBody):
    """Body of ``POST /api/v1/scoring/runs``. Strict JSON types: ``"dry_run": "no"`` or ``0`` is refused, never read
    as a real, paid run."""

    selection: RunSelection = Field(default_factory=RunSelection)
    max_sessions: int = Field(
        ge=1, le=MAX_INTEGER, description="Required: at most this many attempts (capped by the service)"
    )
    max_cost_usd: float | None = Field(
        default=None,
        gt=0,
        le=MAX_COST_USD,
        allow_inf_nan=False,
        description="Stop queueing once actual plus in-flight estimated cost would pass this (a finite number of "
        "USD above 0, at most 99,999,999.9999)",
    )
    mode: Literal["online", "batch"] = "online"
    dry_run: bool = Field(default=False, description="Estimate only: nothing is stored or queued")
    name: str | None = Field(default=None, max_length=255)


class _Response(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CostEstimate(_Response):
    """What a run is expected to use, and how the figures were made."""

    estimated_input_tokens: int
    estimated_output_tokens: int
    estimated_cost_usd: float | None = Field(description="None when the pricing table has no entry for the model")
    estimated_duration_seconds: float
    per_session_input_tokens: int
    per_session_output_tokens: int
    method: str = Field(description="How the per-session figures were estimated")


class DryRunResult(_Response):
    """Answer of a dry run: what a run would select and cost. Nothing was stored or queued."""

    sessions_selected: int
    sessions_skipped: int
    skipped_by_reason: dict[str, int]
    sessions_read: int
    sample_session_ids: list[str]
    stop_reason: str | None = Field(
        description="Why the selection would stop before the source is exhausted (max_sessions or max_cost_usd)"
    )
    estimate: CostEstimate


class RunCounts(_Response):
    """Attempts of the run by status, and the sessions the selection skipped."""

    pending: int = 0
    in_progress: int = 0
    completed: int = 0
    failed: int = 0
    cancelled: int = 0
    skipped: int = 0
    skipped_by_reason: dict[str, int] = Field(default_factory=dict)


class RunUsage(_Response):
    """Tokens and cost so far, from the judge usage stored on the run's completed attempts."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = None


class ScoringRun(_Response):
    """A scoring run as the API shows it."""

    run_id: UUID
    name: str
    status: RunStatus
    mode: str
    selection: RunSelection
    max_sessions: int
    max_cost_usd: float | None
    criteria_hash: str
    judge_model: str
    started_by: str
    created_at: datetime
    started_at: datetime | None
    planned_at: datetime | None = Field(description="When the selection finished and every attempt was queued")
    finished_at: datetime | None
    sessions_read: int = Field(description="Sessions read from the source so far")
    counts: RunCounts
    usage: RunUsage
    estimated_cost_per_session_usd: float | None
    eta_seconds: float | None = Field(description="Time left, from the run's pace so far; None until one attempt ends")
    stop_reason: str | None = Field(description="Why the selection stopped before the source was exhausted")
    error_message: str | None


class RunPage(_Response):
    items: list[ScoringRun]
    page: int
    page_size: int
    total_items: int
    total_pages: int


class RunSessionScore(_Response):
    """One attempt of a run: the session it scored, how it ended (or that it has not yet), its score and band."""

    score_id: UUID
    session_id: str
    status: ScoreStatus
    total_score: int | None = Field(description="Null until the attempt is completed")
    band: str | None = Field(description="The score band of the total (null until completed)")
    error_message: str | None = Field(description="Why the attempt failed or was cancelled")
    requested_at: datetime = Field(description="When the run queued the attempt")
    scored_at: datetime | None = Field(description="When the attempt ended")


class RunSessionPage(_Response):
    """One page of a run's attempts, by session id (a stable order while the run is under way)."""

    items: list[RunSessionScore]
    counts: RunCounts = Field(
        description="The run's counts (all its attempts by status, whatever the filter), read in the same snapshot "
        "as the items: a page never lists an attempt as ended that its counts do not count"
    )
    page: int
    page_size: int
    total_items: int
    total_pages: int


class RunBandCount(_Response):
    band: str
    sessions: int


class RunScoreMove(_Response):
    """A session whose score this run changed: its score now and the one before it."""

    session_id: str
    total_score: int
    band: str
    previous_score: int
    previous_band: str
    change: int = Field(description="total_score - previous_score")
    same_criteria: bool = Field(description="Whether the previous score was made under the same criteria")


class RunSummary(_Response):
    """What a run's completed scores say: how they spread over the bands and how they moved against each session's
    previous completed score (under any criteria; a session scored for the first time has none)."""

    run_id: UUID
    completed: int = Field(description="The run's completed attempts summarised here")
    average_score: float | None = Field(description="Their mean total (null with none)")
    bands: list[RunBandCount] = Field(
        description="Every band, worst first, with how many of the run's scores fell in it"
    )
    first_scores: int = Field(description="Sessions with no completed score before this run's")
    improved: int
    worsened: int
    unchanged: int
    movers: list[RunScoreMove] = Field(
        description="The largest changes (up or down) against the previous score, largest first, at most 10"
    )


class RunPlanningJob(BaseModel):
    """The message that plans one page of a run; on the runs queue, handled by the scorer function."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["plan_run"] = "plan_run"
    run_id: UUID
    page: int = Field(ge=1)


QueueMessage = TypeAdapter(Annotated[ScoringJob | RunPlanningJob, Field(union_mode="left_to_right")])
"""A message on the runs queue: a scoring job or a planning message (each model forbids the other's fields)."""
