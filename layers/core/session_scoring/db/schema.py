"""ORM rows of the scoring tables. Only repositories use these; nothing returns them past that layer.

Departures from the design, on purpose: ``session_scores`` keeps every attempt (a partial unique index allows one
active attempt per session instead of a unique ``session_id``), and there is no foreign key to TARSy's
``alert_sessions`` because scores live in their own database.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Computed,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    Numeric,
    PrimaryKeyConstraint,
    String,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from session_scoring.models.scores import ACTIVE_STATUSES, DIMENSIONS, MAX_SCORE, MIN_SCORE, ScoreStatus


def _sql_list(values: tuple[str, ...]) -> str:
    """``('a', 'b')``: a literal SQL list of the statuses, for check constraints and partial-index predicates."""
    return "(" + ", ".join(f"'{value}'" for value in values) + ")"


RUN_STATUSES = ("planning", "running", "completed", "cancelled", "failed")
RUN_MODES = ("online", "batch")
SAMPLE_KINDS = ("repeatability", "robustness")
LABEL_SOURCES = ("api", "import")
EXPORT_KINDS = ("training",)
EXPORT_STATUSES = ("queued", "running", "completed", "failed")


class Base(DeclarativeBase):
    pass


class ScoringCriteriaDefinitionRow(Base):
    __tablename__ = "scoring_criteria_definitions"

    criteria_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    criteria_content: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, server_default=func.now())

    __table_args__ = (Index("ix_scoring_criteria_definitions_created_at", "created_at"),)


class SessionScoreRow(Base):
    __tablename__ = "session_scores"

    score_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(255), nullable=False)
    criteria_hash: Mapped[str] = mapped_column(
        String(64), ForeignKey("scoring_criteria_definitions.criteria_hash"), nullable=False
    )
    status: Mapped[str] = mapped_column(String(20), nullable=False, server_default=ScoreStatus.PENDING.value)
    total_score: Mapped[int | None] = mapped_column(Integer)
    score_breakdown: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    score_reasoning: Mapped[str | None] = mapped_column(Text)
    scored_triggered_by: Mapped[str] = mapped_column(String(255), nullable=False)
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, server_default=func.now())
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    scored_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    error_message: Mapped[str | None] = mapped_column(Text)
    judge_provider: Mapped[str | None] = mapped_column(String(64))
    judge_model: Mapped[str | None] = mapped_column(String(255))
    input_tokens: Mapped[int | None] = mapped_column(Integer)
    output_tokens: Mapped[int | None] = mapped_column(Integer)
    cache_read_tokens: Mapped[int | None] = mapped_column(Integer)
    cache_write_tokens: Mapped[int | None] = mapped_column(Integer)
    judge_latency_ms: Mapped[int | None] = mapped_column(Integer)
    prompt_compacted: Mapped[bool] = mapped_column(nullable=False, server_default=text("false"))
    prompt_tokens_before: Mapped[int | None] = mapped_column(Integer)
    prompt_tokens_after: Mapped[int | None] = mapped_column(Integer)
    judging_ms: Mapped[int | None] = mapped_column(Integer)
    """The whole judging of the delivery that completed the attempt: every retry and wait included."""
    estimated_cost_usd: Mapped[Decimal | None] = mapped_column(Numeric(12, 6))
    """The verdict's tokens priced with the configuration's ``pricing:`` table; null when the model has no price."""
    claim_token: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True))
    lease_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    delivery_count: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    dead_lettered_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """Set when the attempt failed on its last allowed delivery, its message left for the dead-letter queue: a
    redriven message may claim it again (cleared when it is reopened or claimed)."""
    run_id: Mapped[uuid.UUID | None] = mapped_column(UUID(as_uuid=True), ForeignKey("scoring_runs.run_id"))
    """The scoring run that created this attempt (none for a single request)."""
    # Migration 0007_session_facts: the session as it was when the attempt was created (see models/records.py).
    session_agent: Mapped[str | None] = mapped_column(String(255))
    session_alert_type: Mapped[str | None] = mapped_column(String(255))
    session_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    session_ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    session_stages: Mapped[int | None] = mapped_column(Integer)
    session_tool_calls: Mapped[int | None] = mapped_column(Integer)
    session_source: Mapped[str | None] = mapped_column(String(64))
    facts_captured_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    """When the facts were taken (null: not yet; ``session-scoring facts backfill`` fills them)."""
    sample_kind: Mapped[str | None] = mapped_column(String(20))
    """Migration 0010_judge_labels: NULL for a real score; ``repeatability``/``robustness`` for a judge-quality
    sample, stored completed (never active, never the session's score, never in analytics)."""
    score_spread: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    """The spread of an ensemble score's samples (``scoring.samples`` > 1); NULL for a single verdict."""
    batch_id: Mapped[str | None] = mapped_column(String(128))
    """The Message Batch this attempt was submitted in (a batch-mode run; migration 0008_run_batches)."""

    missing_tools: Mapped[list[MissingToolRow]] = relationship(
        back_populates="score", cascade="all, delete-orphan", order_by="MissingToolRow.position"
    )
    alternative_approaches: Mapped[list[AlternativeApproachRow]] = relationship(
        back_populates="score", cascade="all, delete-orphan", order_by="AlternativeApproachRow.position"
    )

    __table_args__ = (
        CheckConstraint(
            f"total_score IS NULL OR (total_score >= {MIN_SCORE} AND total_score <= {MAX_SCORE})",
            name="ck_session_scores_total_score_range",
        ),
        CheckConstraint(f"status IN {_sql_list(tuple(s.value for s in ScoreStatus))}", name="ck_session_scores_status"),
        CheckConstraint(
            f"status <> '{ScoreStatus.COMPLETED.value}' OR total_score IS NOT NULL",
            name="ck_session_scores_completed_has_score",
        ),
        Index("ix_session_scores_session_id", "session_id"),
        Index("ix_session_scores_criteria_hash", "criteria_hash"),
        Index("ix_session_scores_total_score", "total_score"),
        Index("ix_session_scores_scored_at", "scored_at"),
        Index("ix_session_scores_session_requested", "session_id", "requested_at"),
        Index(
            "uq_session_scores_one_active_attempt",
            "session_id",
            unique=True,
            postgresql_where=text(f"status IN {_sql_list(tuple(s.value for s in ACTIVE_STATUSES))}"),
        ),
        # Migration 0002_analytics: the latest completed attempt of each session as an index-only scan.
        Index(
            "ix_session_scores_latest_completed",
            "session_id",
            text("scored_at DESC"),
            text("score_id DESC"),
            postgresql_include=["total_score"],
            postgresql_where=text("status = 'completed'"),
        ),
        Index(
            "ix_session_scores_latest_completed_by_criteria",
            "criteria_hash",
            "session_id",
            text("scored_at DESC"),
            text("score_id DESC"),
            postgresql_include=["total_score"],
            postgresql_where=text("status = 'completed'"),
        ),
        Index("ix_session_scores_run_id", "run_id"),
        Index(
            "uq_session_scores_one_per_run",
            "run_id",
            "session_id",
            unique=True,
            postgresql_where=text("run_id IS NOT NULL"),
        ),
        # Migration 0007_session_facts: the fleet query's sorts and filters over completed attempts.
        *(
            Index(name, *columns, postgresql_where=text("status = 'completed'"))
            for name, columns in (
                ("ix_session_scores_fleet_total", ("criteria_hash", "total_score", "score_id")),
                ("ix_session_scores_fleet_scored_at", ("criteria_hash", "scored_at", "score_id")),
                ("ix_session_scores_fleet_session_started", ("criteria_hash", "session_started_at", "score_id")),
                ("ix_session_scores_fleet_agent", ("session_agent", "criteria_hash")),
                ("ix_session_scores_fleet_alert_type", ("session_alert_type", "criteria_hash")),
            )
        ),
        *(
            Index(
                f"ix_session_scores_fleet_{dimension}",
                "criteria_hash",
                text(f"((score_breakdown ->> '{dimension}'::text))::integer"),
                "score_id",
                postgresql_where=text("status = 'completed'"),
            )
            for dimension in DIMENSIONS
        ),
        Index("ix_session_scores_facts_missing", "score_id", postgresql_where=text("facts_captured_at IS NULL")),
        CheckConstraint(
            f"sample_kind IS NULL OR sample_kind IN {_sql_list(SAMPLE_KINDS)}", name="ck_session_scores_sample_kind"
        ),
        Index(
            "ix_session_scores_samples",
            "sample_kind",
            "session_id",
            postgresql_where=text("sample_kind IS NOT NULL"),
        ),
        # Migration 0008_run_batches: the batch poller's open batches (attempts submitted and not yet ended).
        Index(
            "ix_session_scores_open_batch",
            "batch_id",
            postgresql_where=text("batch_id IS NOT NULL AND status = 'in_progress'"),
        ),
    )


class ScoringRunRow(Base):
    """A scoring run: its request (selection, limits), its planning cursor and counts, and its lifecycle times."""

    __tablename__ = "scoring_runs"

    run_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False, server_default="planning")
    mode: Mapped[str] = mapped_column(String(20), nullable=False, server_default="online")
    selection: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    max_sessions: Mapped[int] = mapped_column(Integer, nullable=False)
    max_cost_usd: Mapped[Decimal | None] = mapped_column(Numeric(12, 4))
    criteria_hash: Mapped[str] = mapped_column(String(64), nullable=False)
    judge_model: Mapped[str] = mapped_column(String(255), nullable=False)
    started_by: Mapped[str] = mapped_column(String(255), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, server_default=func.now())
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    planned_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    next_page: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("1"))
    """The planning cursor: the next page of the session source to read (a resumed planner starts there)."""
    sessions_seen: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    sessions_selected: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    skipped: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False, server_default=text("'{}'::jsonb"))
    estimated_input_tokens: Mapped[int | None] = mapped_column(Integer)
    estimated_output_tokens: Mapped[int | None] = mapped_column(Integer)
    estimated_cost_per_session_usd: Mapped[Decimal | None] = mapped_column(Numeric(12, 6))
    stop_reason: Mapped[str | None] = mapped_column(Text)
    error_message: Mapped[str | None] = mapped_column(Text)

    __table_args__ = (
        CheckConstraint(f"status IN {RUN_STATUSES!r}", name="ck_scoring_runs_status"),
        CheckConstraint(f"mode IN {RUN_MODES!r}", name="ck_scoring_runs_mode"),
        CheckConstraint("max_sessions > 0", name="ck_scoring_runs_max_sessions"),
        Index("ix_scoring_runs_created_at", "created_at"),
        Index("ix_scoring_runs_status", "status"),
    )


#: The ``criteria_hash`` of the ``latest_scores`` rows and counters that span every criteria: a session's latest
#: completed score under any criteria (what the analytics count when no criteria hash is given).
ANY_CRITERIA = "*"


class LatestScoreRow(Base):
    """A session's latest completed score within one criteria hash (or ``ANY_CRITERIA``), kept by the statement that
    stores a verdict (migration 0006_latest_scores): what the analytics read instead of every attempt."""

    __tablename__ = "latest_scores"

    session_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    criteria_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    score_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), nullable=False)
    total_score: Mapped[int] = mapped_column(Integer, nullable=False)
    band: Mapped[str] = mapped_column(String(20), nullable=False)
    logical_flow: Mapped[int | None] = mapped_column(Integer)
    consistency: Mapped[int | None] = mapped_column(Integer)
    tool_relevance: Mapped[int | None] = mapped_column(Integer)
    synthesis_quality: Mapped[int | None] = mapped_column(Integer)
    scored_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    missing_tools: Mapped[list[str]] = mapped_column(ARRAY(Text), nullable=False, server_default=text("'{}'"))
    """The distinct tool names the score says were missing, sorted."""
    previous_band: Mapped[str | None] = mapped_column(String(20))
    """What the last update replaced (band and tools), read back by the verdict statement to update the counters."""
    previous_missing_tools: Mapped[list[str] | None] = mapped_column(ARRAY(Text))
    tool_facets: Mapped[list[Any]] = mapped_column(JSONB, nullable=False, server_default=text("'[]'::jsonb"))
    """The ``latest_tool_counts`` keys this row counts in, ``[tool, facet, value]`` each (migration 0011)."""
    previous_tool_facets: Mapped[list[Any] | None] = mapped_column(JSONB)

    __table_args__ = (
        # The newest sessions of a band (the ids listed beside a count).
        Index(
            "ix_latest_scores_band_newest",
            "criteria_hash",
            "band",
            text("scored_at DESC"),
            text("score_id DESC"),
            postgresql_include=["session_id"],
        ),
        # 0012_trend_buckets, for the criteria comparison's join; since 0016 the comparison reads comparison_cells,
        # and a criteria compared with itself can read one criteria's rows from it index-only.
        Index(
            "ix_latest_scores_criteria_session",
            "criteria_hash",
            "session_id",
            postgresql_include=["total_score", *DIMENSIONS],
        ),
        # Migration 0014_session_list: the sessions list's scored pages, by score and newest first.
        Index("ix_latest_scores_by_total", "criteria_hash", "total_score", "session_id"),
        Index("ix_latest_scores_newest", "criteria_hash", text("scored_at DESC"), text("session_id DESC")),
    )


class LatestScoreToolRow(Base):
    """One tool a ``latest_scores`` row names missing: the newest sessions naming a tool are an index-only scan."""

    __tablename__ = "latest_score_tools"

    criteria_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    tool_name: Mapped[str] = mapped_column(String(255), primary_key=True)
    scored_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    score_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), nullable=False)

    __table_args__ = (
        Index(
            "ix_latest_score_tools_newest",
            "criteria_hash",
            "tool_name",
            text("scored_at DESC"),
            text("score_id DESC"),
            postgresql_include=["session_id"],
        ),
    )


class LatestScoreCountRow(Base):
    """Sessions per band (``kind`` 'band') and per missing tool (``kind`` 'tool') among ``latest_scores`` of a
    criteria hash, maintained in the same statement as those rows."""

    __tablename__ = "latest_score_counts"

    criteria_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), primary_key=True)
    sessions: Mapped[int] = mapped_column(BigInteger, nullable=False)

    __table_args__ = (CheckConstraint("kind IN ('band', 'tool')", name="ck_latest_score_counts_kind"),)


class LatestToolCountRow(Base):
    """Per missing tool (canonical name) of a criteria hash's ``latest_scores``: sessions per day of ``scored_at``
    (``facet`` 'day', ``value`` 'YYYY-MM-DD', UTC), per week ('week', its Monday), per agent ('agent', '' for none),
    per spelling the judge wrote ('spelling') and how many had the tool available ('available', value ''). Kept by
    the statement storing a verdict from each row's ``tool_facets`` (migration 0011_canonical_tools)."""

    __tablename__ = "latest_tool_counts"

    criteria_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    tool_name: Mapped[str] = mapped_column(String(255), primary_key=True)
    facet: Mapped[str] = mapped_column(String(10), primary_key=True)
    value: Mapped[str] = mapped_column(String(255), primary_key=True)
    sessions: Mapped[int] = mapped_column(BigInteger, nullable=False)

    __table_args__ = (
        CheckConstraint(
            "facet IN ('day', 'week', 'agent', 'spelling', 'available')", name="ck_latest_tool_counts_facet"
        ),
        # The report reads a tool's counters as index-only range scans (the rows of one tool are scattered).
        Index(
            "ix_latest_tool_counts_covering",
            "criteria_hash",
            "tool_name",
            "facet",
            "value",
            postgresql_include=["sessions"],
        ),
    )


class TrendMemberRow(Base):
    """A session's latest completed score within one criteria hash (or ``ANY_CRITERIA``) as the trends count it: the
    bucket it is in (UTC day, agent, alert type, total) and its dimensions (migration 0012_trend_buckets). Kept by
    the statement that stores a verdict, like ``latest_scores``; ``previous`` is what the last update replaced."""

    __tablename__ = "trend_members"

    criteria_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(255), primary_key=True)
    score_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), nullable=False)
    scored_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    session_agent: Mapped[str | None] = mapped_column(String(255))
    session_alert_type: Mapped[str | None] = mapped_column(String(255))
    total_score: Mapped[int] = mapped_column(Integer, nullable=False)
    logical_flow: Mapped[int | None] = mapped_column(Integer)
    consistency: Mapped[int | None] = mapped_column(Integer)
    tool_relevance: Mapped[int | None] = mapped_column(Integer)
    synthesis_quality: Mapped[int | None] = mapped_column(Integer)
    previous: Mapped[dict[str, Any] | None] = mapped_column(JSONB)


class TrendHistogramRow(Base):
    """Per criteria hash, bucket (a UTC day, or the Monday of its week), grouping and group among ``trend_members``
    (migration 0015_trend_histograms): the sessions, ``totals`` (sessions per total score 0-100, index = total) and
    each dimension's sum and count. A trend reads one row per bucket and group; its exact percentiles, means and band
    shares come from the histogram."""

    __tablename__ = "trend_histograms"

    criteria_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    bucket: Mapped[str] = mapped_column(String(4), primary_key=True)
    group_by: Mapped[str] = mapped_column(String(10), primary_key=True)
    bucket_start: Mapped[date] = mapped_column(Date, primary_key=True)
    group_unknown: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    """True when the score's attempt has no such fact (the value is then ''; for ``group_by`` 'none' False, '')."""
    group_value: Mapped[str] = mapped_column(String(255), primary_key=True)
    sessions: Mapped[int] = mapped_column(Integer, nullable=False)
    totals: Mapped[list[int]] = mapped_column(ARRAY(Integer), nullable=False)
    logical_flow_sum: Mapped[int] = mapped_column(Integer, nullable=False)
    logical_flow_n: Mapped[int] = mapped_column(Integer, nullable=False)
    consistency_sum: Mapped[int] = mapped_column(Integer, nullable=False)
    consistency_n: Mapped[int] = mapped_column(Integer, nullable=False)
    tool_relevance_sum: Mapped[int] = mapped_column(Integer, nullable=False)
    tool_relevance_n: Mapped[int] = mapped_column(Integer, nullable=False)
    synthesis_quality_sum: Mapped[int] = mapped_column(Integer, nullable=False)
    synthesis_quality_n: Mapped[int] = mapped_column(Integer, nullable=False)

    __table_args__ = (
        CheckConstraint("bucket IN ('day', 'week')", name="ck_trend_histograms_bucket"),
        CheckConstraint("group_by IN ('none', 'agent', 'alert_type')", name="ck_trend_histograms_group_by"),
        CheckConstraint(f"cardinality(totals) = {MAX_SCORE - MIN_SCORE + 1}", name="ck_trend_histograms_totals"),
    )


class MissingToolRow(Base):
    __tablename__ = "score_missing_tools"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    score_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("session_scores.score_id", ondelete="CASCADE"), nullable=False
    )
    position: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    tool_name: Mapped[str] = mapped_column(String(255), nullable=False)
    """As the judge wrote it."""
    canonical_name: Mapped[str | None] = mapped_column(String(255))
    """What it is counted as (``models.tools``; migration 0011): set by the statement storing the verdict, null
    only in a row written by hand without it."""
    rationale: Mapped[str] = mapped_column(Text, nullable=False)

    score: Mapped[SessionScoreRow] = relationship(back_populates="missing_tools")

    __table_args__ = (
        Index("ix_score_missing_tools_score_id", "score_id"),
        Index("ix_score_missing_tools_tool_name", "tool_name"),
        Index("ix_score_missing_tools_score_tool", "score_id", "tool_name"),  # 0002_analytics
    )


class AlternativeApproachRow(Base):
    __tablename__ = "score_alternative_approaches"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    score_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("session_scores.score_id", ondelete="CASCADE"), nullable=False
    )
    position: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    name: Mapped[str] = mapped_column(String(255), nullable=False)
    description: Mapped[str] = mapped_column(Text, nullable=False)

    score: Mapped[SessionScoreRow] = relationship(back_populates="alternative_approaches")
    steps: Mapped[list[AlternativeApproachStepRow]] = relationship(
        back_populates="approach", cascade="all, delete-orphan", order_by="AlternativeApproachStepRow.step_order"
    )

    __table_args__ = (
        Index("ix_score_alternative_approaches_score_id", "score_id"),
        Index("ix_score_alternative_approaches_name", "name"),
    )


class AlternativeApproachStepRow(Base):
    __tablename__ = "score_alternative_approach_steps"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    approach_id: Mapped[uuid.UUID] = mapped_column(
        UUID(as_uuid=True), ForeignKey("score_alternative_approaches.id", ondelete="CASCADE"), nullable=False
    )
    step_order: Mapped[int] = mapped_column(Integer, nullable=False)
    step_description: Mapped[str] = mapped_column(Text, nullable=False)

    approach: Mapped[AlternativeApproachRow] = relationship(back_populates="steps")

    __table_args__ = (Index("ix_score_alternative_approach_steps_approach_id", "approach_id"),)


class UploadedSessionRow(Base):
    """A session uploaded through the import endpoint: the normalised session, and the document as sent."""

    __tablename__ = "uploaded_sessions"

    session_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    trace_format: Mapped[str] = mapped_column(String(64), nullable=False)
    file_name: Mapped[str | None] = mapped_column(String(255))
    original_session_id: Mapped[str | None] = mapped_column(String(255))
    status: Mapped[str] = mapped_column(String(32), nullable=False)
    alert_type: Mapped[str | None] = mapped_column(String(255))
    agent_type: Mapped[str | None] = mapped_column(String(255))
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    completed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    tool_calls: Mapped[int] = mapped_column(Integer, nullable=False, server_default=text("0"))
    size_bytes: Mapped[int] = mapped_column(Integer, nullable=False)
    uploaded_by: Mapped[str] = mapped_column(String(255), nullable=False)
    uploaded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, server_default=func.now())
    session: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    document: Mapped[str] = mapped_column(Text, nullable=False)

    __table_args__ = (
        CheckConstraint("session_id LIKE 'upload:%'", name="ck_uploaded_sessions_id_prefix"),
        Index("ix_uploaded_sessions_uploaded_at", "uploaded_at"),
    )


class JudgeLabelRow(Base):
    """A human's score of a session (migration 0010_judge_labels). Every revision is kept; a labeller's current
    label is their highest revision."""

    __tablename__ = "judge_labels"

    label_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(255), nullable=False)
    labeller: Mapped[str] = mapped_column(String(255), nullable=False)
    revision: Mapped[int] = mapped_column(Integer, nullable=False)
    total_score: Mapped[int] = mapped_column(Integer, nullable=False)
    score_breakdown: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    band: Mapped[str] = mapped_column(String(20), nullable=False)
    notes: Mapped[str | None] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(20), nullable=False, server_default="api")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, server_default=func.now())

    __table_args__ = (
        CheckConstraint("total_score >= 0 AND total_score <= 100", name="ck_judge_labels_total_score_range"),
        CheckConstraint("revision > 0", name="ck_judge_labels_revision"),
        CheckConstraint(f"source IN {_sql_list(LABEL_SOURCES)}", name="ck_judge_labels_source"),
        UniqueConstraint("session_id", "labeller", "revision", name="uq_judge_labels_revision"),
        Index("ix_judge_labels_session_id", "session_id"),
    )


class ExportJobRow(Base):
    """An export written to S3 by the exporter function (migration 0013_export_jobs): what was asked, how far it got,
    where the file is, or why it failed."""

    __tablename__ = "export_jobs"

    export_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), nullable=False)
    parameters: Mapped[dict[str, Any]] = mapped_column(JSONB, nullable=False)
    status: Mapped[str] = mapped_column(String(20), nullable=False, server_default="queued")
    rows_written: Mapped[int | None] = mapped_column(Integer)
    bytes_written: Mapped[int | None] = mapped_column(BigInteger)
    s3_key: Mapped[str | None] = mapped_column(String(1024))
    error_message: Mapped[str | None] = mapped_column(Text)
    requested_by: Mapped[str] = mapped_column(String(255), nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False, server_default=func.now())
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    __table_args__ = (
        CheckConstraint(f"kind IN {_sql_list(EXPORT_KINDS)}", name="ck_export_jobs_kind"),
        CheckConstraint(f"status IN {_sql_list(EXPORT_STATUSES)}", name="ck_export_jobs_status"),
        Index("ix_export_jobs_created_at", "created_at"),
    )


class ComparisonPairRow(Base):
    """A session with a latest completed score under two criteria hashes (never ``ANY_CRITERIA``), stored once per
    unordered pair: ``low_hash`` is the lesser hash in code point order (migration 0016_comparison_pairs). Kept by the
    statement that stores a verdict; the criteria comparison reads its movers (by ``delta``, then session id) and its
    scatter's sample (by session id) as index scans that stop after a few rows. Session ids sort in code point order
    (collation "C"), whatever the database's default."""

    __tablename__ = "comparison_pairs"

    low_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    high_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(255, collation="C"), primary_key=True)
    low_total: Mapped[int] = mapped_column(Integer, nullable=False)
    high_total: Mapped[int] = mapped_column(Integer, nullable=False)
    delta: Mapped[int] = mapped_column(Integer, Computed("high_total - low_total", persisted=True))
    """The high hash's total minus the low hash's (the comparison's delta, or its negation when read flipped)."""

    __table_args__ = (
        # The scatter's sample is the pair's first sessions: an index-only scan of the key.
        PrimaryKeyConstraint(
            "low_hash",
            "high_hash",
            "session_id",
            name="comparison_pairs_pkey",
            postgresql_include=["low_total", "high_total"],
        ),
        # The movers each way, ties by session id ascending, whichever hash is the base: one index per direction.
        Index("ix_comparison_pairs_rising", "low_hash", "high_hash", "delta", "session_id"),
        Index("ix_comparison_pairs_falling", "low_hash", "high_hash", text("delta DESC"), "session_id"),
    )


class ComparisonCellRow(Base):
    """The comparison's histograms per unordered pair of criteria hashes (as ``comparison_pairs``): ``kind`` 'total'
    counts sessions per (``a`` low hash's total, ``b`` high hash's total); a dimension's kind counts sessions per
    ``a`` = high minus low points (both present; ``b`` 0). Kept by the verdict statement; a cell whose sessions
    fall to 0 stays (readers skip it)."""

    __tablename__ = "comparison_cells"

    low_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    high_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    kind: Mapped[str] = mapped_column(String(20), primary_key=True)
    a: Mapped[int] = mapped_column(Integer, primary_key=True)
    b: Mapped[int] = mapped_column(Integer, primary_key=True)
    sessions: Mapped[int] = mapped_column(Integer, nullable=False)

    __table_args__ = (
        # A comparison reads one pair's cells: an index-only range scan.
        PrimaryKeyConstraint(
            "low_hash", "high_hash", "kind", "a", "b", name="comparison_cells_pkey", postgresql_include=["sessions"]
        ),
        CheckConstraint(f"kind IN {_sql_list(('total', *DIMENSIONS))}", name="ck_comparison_cells_kind"),
    )
