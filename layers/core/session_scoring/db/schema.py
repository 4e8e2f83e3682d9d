"""The scoring tables, as SQLAlchemy Core tables (no ORM mapper: about 100 ms of a Lambda's cold start): what every
repository's statements are built from and what the migrations are checked against (``metadata``). The read models
(``latest_*``, ``trend_*``, ``comparison_*``, ``outcome_counts``) are kept by ``repositories/read_models/``.

``session_scores`` keeps every attempt (a partial unique index allows one active attempt per session), and has no
foreign key to TARSy's ``alert_sessions``: scores live in their own database.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Computed,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Numeric,
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

from session_scoring.models.scores import (
    ACTIVE_STATUSES,
    MAX_SCORE,
    MIN_SCORE,
    REFERENCE_SOURCES,
    REFERENCED_OUTCOMES,
    Outcome,
    ScoreStatus,
)

_FLEET_INDEXED_DIMENSIONS = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")
"""The dimensions migration 0007 gave a fleet sort index, as they are in the database: the default rubric's keys when
it ran. Frozen like the migration; a sort on any other rubric's key runs without an index (docs/criteria.md)."""


def _sql_list(values: tuple[str, ...]) -> str:
    """``('a', 'b')``: a literal SQL list of the statuses, for check constraints and partial-index predicates."""
    return "(" + ", ".join(f"'{value}'" for value in values) + ")"


RUN_STATUSES = ("planning", "running", "completed", "cancelled", "failed")
RUN_MODES = ("online", "batch")
SAMPLE_KINDS = ("repeatability", "robustness")
LABEL_SOURCES = ("api", "import")
EXPORT_KINDS = ("training",)
EXPORT_STATUSES = ("queued", "running", "completed", "failed")
WRITEBACK_STATUSES = ("writing", "written", "retrying", "failed")
OUTCOMES = tuple(outcome.value for outcome in Outcome)
COMPARISON_KIND_PATTERN = "^(ref_)?(total|dim:[a-z][a-z0-9_]{0,62})$"
"""The kinds of ``comparison_cells``: the joint histogram ('total') and each dimension's deltas ('dim:' and the
dimension's key, whatever the rubric), over every session and (prefixed ``ref_``) over the sessions judged against a
reference."""


metadata = MetaData()
"""Every table of the service's database (alembic's ``target_metadata``)."""


scoring_criteria_definitions = Table(
    "scoring_criteria_definitions",
    metadata,
    Column("criteria_hash", String(64), primary_key=True),
    Column("criteria_content", JSONB, nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Index("ix_scoring_criteria_definitions_created_at", "created_at"),
)


session_scores = Table(
    "session_scores",
    metadata,
    Column("score_id", UUID(as_uuid=True), primary_key=True),
    Column("session_id", String(255), nullable=False),
    Column("criteria_hash", String(64), ForeignKey("scoring_criteria_definitions.criteria_hash"), nullable=False),
    Column("status", String(20), nullable=False, server_default=ScoreStatus.PENDING.value),
    Column("total_score", Integer),
    Column("score_breakdown", JSONB),
    Column("score_reasoning", Text),
    Column("scored_triggered_by", String(255), nullable=False),
    Column("requested_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("started_at", DateTime(timezone=True)),
    Column("scored_at", DateTime(timezone=True)),
    Column("error_message", Text),
    Column("judge_provider", String(64)),
    Column("judge_model", String(255)),
    Column("input_tokens", Integer),
    Column("output_tokens", Integer),
    Column("cache_read_tokens", Integer),
    Column("cache_write_tokens", Integer),
    Column("judge_latency_ms", Integer),
    Column("prompt_compacted", Boolean(), nullable=False, server_default=text("false")),
    Column("prompt_tokens_before", Integer),
    Column("prompt_tokens_after", Integer),
    # The whole judging of the delivery that completed the attempt: every retry and wait included.
    Column("judging_ms", Integer),
    # The verdict's tokens priced with the configuration's ``pricing:`` table; null when the model has no price.
    Column("estimated_cost_usd", Numeric(12, 6)),
    Column("claim_token", UUID(as_uuid=True)),
    Column("lease_expires_at", DateTime(timezone=True)),
    Column("delivery_count", Integer, nullable=False, server_default=text("0")),
    # The attempt failed on its last allowed delivery: a redriven message may claim it again.
    Column("dead_lettered_at", DateTime(timezone=True)),
    # The scoring run that created this attempt (none for a single request).
    Column("run_id", UUID(as_uuid=True), ForeignKey("scoring_runs.run_id")),
    # Migration 0007_session_facts: the session as it was when the attempt was created (see models/records.py).
    Column("session_agent", String(255)),
    Column("session_alert_type", String(255)),
    Column("session_started_at", DateTime(timezone=True)),
    Column("session_ended_at", DateTime(timezone=True)),
    Column("session_stages", Integer),
    Column("session_tool_calls", Integer),
    Column("session_source", String(64)),
    # When the facts were taken (null: not yet; ``session-scoring facts backfill`` fills them).
    Column("facts_captured_at", DateTime(timezone=True)),
    # NULL for a real score; ``repeatability``/``robustness`` for a judge-quality sample (never the session's score).
    Column("sample_kind", String(20)),
    # The spread of an ensemble score's samples (``scoring.samples`` > 1); NULL for a single verdict.
    Column("score_spread", JSONB),
    # The Message Batch this attempt was submitted in (a batch-mode run; migration 0008_run_batches).
    Column("batch_id", String(128)),
    # Whether the conclusion found the session's reference root cause, the judge's reason, and where the reference
    # came from (null: none given).
    Column("outcome", String(20)),
    Column("outcome_reason", Text),
    Column("reference_source", String(10)),
    # Migration 0019_rubric: the rubric's ceiling field's answer (null: the rubric has none), the failure tags of its
    # closed vocabulary (also in score_failure_tags, for analytics) and the claims with the events they cite.
    Column("ceiling_value", String(64)),
    Column("failure_tags", ARRAY(Text), nullable=False, server_default=text("'{}'")),
    Column("claims", JSONB),
    # How many secrets the masking step replaced in the judged session, by group (migration 0020_masking); null for
    # a score stored before masking existed.
    Column("masked_values", JSONB),
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
    # Migration 0002_analytics: the latest completed attempt of each session (under a criteria) as an index-only scan.
    *(
        Index(
            f"ix_session_scores_latest_completed{suffix}",
            *scope,
            "session_id",
            text("scored_at DESC"),
            text("score_id DESC"),
            postgresql_include=["total_score"],
            postgresql_where=text("status = 'completed'"),
        )
        for suffix, scope in (("", ()), ("_by_criteria", ("criteria_hash",)))
    ),
    Index("ix_session_scores_run_id", "run_id"),
    Index(
        "uq_session_scores_one_per_run",
        "run_id",
        "session_id",
        unique=True,
        postgresql_where=text("run_id IS NOT NULL"),
    ),
    # Migration 0007_session_facts: the fleet query's sorts and filters over completed attempts (0018_outcome: its
    # outcome filter, newest first).
    *(
        Index(name, *columns, postgresql_where=text("status = 'completed'"))
        for name, columns in (
            ("ix_session_scores_fleet_total", ("criteria_hash", "total_score", "score_id")),
            ("ix_session_scores_fleet_scored_at", ("criteria_hash", "scored_at", "score_id")),
            ("ix_session_scores_fleet_session_started", ("criteria_hash", "session_started_at", "score_id")),
            ("ix_session_scores_fleet_agent", ("session_agent", "criteria_hash")),
            ("ix_session_scores_fleet_alert_type", ("session_alert_type", "criteria_hash")),
            ("ix_session_scores_fleet_outcome", ("criteria_hash", "outcome", "scored_at", "score_id")),
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
        for dimension in _FLEET_INDEXED_DIMENSIONS
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
    CheckConstraint(f"outcome IS NULL OR outcome IN {_sql_list(OUTCOMES)}", name="ck_session_scores_outcome"),
    CheckConstraint(
        f"reference_source IS NULL OR reference_source IN {_sql_list(REFERENCE_SOURCES)}",
        name="ck_session_scores_reference_source",
    ),
)


# A completed attempt's write-back to the trace store its session came from (made when the write-back starts).
score_writebacks = Table(
    "score_writebacks",
    metadata,
    Column("score_id", UUID(as_uuid=True), ForeignKey("session_scores.score_id", ondelete="CASCADE"), primary_key=True),
    Column("sink", String(20), nullable=False),
    Column("status", String(20), nullable=False),
    Column("tries", Integer, nullable=False, server_default=text("0")),
    Column("detail", Text),
    Column("error_message", Text),
    Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("written_at", DateTime(timezone=True)),
    CheckConstraint(f"status IN {_sql_list(WRITEBACK_STATUSES)}", name="ck_score_writebacks_status"),
)


# A scoring run: its request (selection, limits), its planning cursor and counts, and its lifecycle times.
scoring_runs = Table(
    "scoring_runs",
    metadata,
    Column("run_id", UUID(as_uuid=True), primary_key=True),
    Column("name", String(255), nullable=False),
    Column("status", String(20), nullable=False, server_default="planning"),
    Column("mode", String(20), nullable=False, server_default="online"),
    Column("selection", JSONB, nullable=False),
    Column("max_sessions", Integer, nullable=False),
    Column("max_cost_usd", Numeric(12, 4)),
    Column("criteria_hash", String(64), nullable=False),
    Column("judge_model", String(255), nullable=False),
    Column("started_by", String(255), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("started_at", DateTime(timezone=True)),
    Column("planned_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    # The planning cursor: the next page of the session source to read (a resumed planner starts there).
    Column("next_page", Integer, nullable=False, server_default=text("1")),
    Column("sessions_seen", Integer, nullable=False, server_default=text("0")),
    Column("sessions_selected", Integer, nullable=False, server_default=text("0")),
    Column("skipped", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("estimated_input_tokens", Integer),
    Column("estimated_output_tokens", Integer),
    Column("estimated_cost_per_session_usd", Numeric(12, 6)),
    Column("stop_reason", Text),
    Column("error_message", Text),
    CheckConstraint(f"status IN {RUN_STATUSES!r}", name="ck_scoring_runs_status"),
    CheckConstraint(f"mode IN {RUN_MODES!r}", name="ck_scoring_runs_mode"),
    CheckConstraint("max_sessions > 0", name="ck_scoring_runs_max_sessions"),
    Index("ix_scoring_runs_created_at", "created_at"),
    Index("ix_scoring_runs_status", "status"),
)


#: The ``criteria_hash`` of the ``latest_scores`` rows and counters that span every criteria: a session's latest
#: completed score under any criteria (what the analytics count when no criteria hash is given).
ANY_CRITERIA = "*"


def criteria_scope(criteria_hash: str | None) -> str:
    """The ``criteria_hash`` key of the read models' rows for ``criteria_hash``, ``ANY_CRITERIA`` for None."""
    return ANY_CRITERIA if criteria_hash is None else criteria_hash


# A session's latest completed score within one criteria hash (or ``ANY_CRITERIA``): what the analytics read.
latest_scores = Table(
    "latest_scores",
    metadata,
    Column("session_id", String(255), primary_key=True),
    Column("criteria_hash", String(64), primary_key=True),
    Column("score_id", UUID(as_uuid=True), nullable=False),
    Column("total_score", Integer, nullable=False),
    Column("band", String(20), nullable=False),
    # Migration 0021_dimension_maps: the score's points per dimension of its rubric (key: points).
    Column("dimensions", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("scored_at", DateTime(timezone=True), nullable=False),
    # The distinct tool names the score says were missing, sorted.
    Column("missing_tools", ARRAY(Text), nullable=False, server_default=text("'{}'")),
    # What the last update replaced (band and tools), read back by the verdict statement to update the counters.
    Column("previous_band", String(20)),
    Column("previous_missing_tools", ARRAY(Text)),
    # The ``latest_tool_counts`` keys this row counts in, ``[tool, facet, value]`` each (migration 0011).
    Column("tool_facets", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    Column("previous_tool_facets", JSONB),
    # Migration 0018_outcome: the score's outcome (null for a score made before outcomes were judged).
    Column("outcome", String(20)),
    # The newest sessions of a band (the ids listed beside a count).
    Index(
        "ix_latest_scores_band_newest",
        "criteria_hash",
        "band",
        text("scored_at DESC"),
        text("score_id DESC"),
        postgresql_include=["session_id"],
    ),
    # A criteria compared with itself reads its rows index-only.
    Index(
        "ix_latest_scores_criteria_session",
        "criteria_hash",
        "session_id",
        postgresql_include=["total_score", "dimensions"],
    ),
    # Migration 0014_session_list: the sessions list's scored pages, by score and newest first.
    Index("ix_latest_scores_by_total", "criteria_hash", "total_score", "session_id"),
    Index("ix_latest_scores_newest", "criteria_hash", text("scored_at DESC"), text("session_id DESC")),
)


# One tool a ``latest_scores`` row names missing: the newest sessions naming a tool are an index-only scan.
latest_score_tools = Table(
    "latest_score_tools",
    metadata,
    Column("criteria_hash", String(64), primary_key=True),
    Column("session_id", String(255), primary_key=True),
    Column("tool_name", String(255), primary_key=True),
    Column("scored_at", DateTime(timezone=True), nullable=False),
    Column("score_id", UUID(as_uuid=True), nullable=False),
    Index(
        "ix_latest_score_tools_newest",
        "criteria_hash",
        "tool_name",
        text("scored_at DESC"),
        text("score_id DESC"),
        postgresql_include=["session_id"],
    ),
)


# Sessions per band (``kind`` 'band') and per missing tool (``kind`` 'tool') among ``latest_scores`` of a criteria.
latest_score_counts = Table(
    "latest_score_counts",
    metadata,
    Column("criteria_hash", String(64), primary_key=True),
    Column("kind", String(8), primary_key=True),
    Column("name", String(255), primary_key=True),
    Column("sessions", BigInteger, nullable=False),
    CheckConstraint("kind IN ('band', 'tool')", name="ck_latest_score_counts_kind"),
)


# Per missing tool (canonical name) of a criteria hash's ``latest_scores``: sessions per day of ``scored_at``
# (``facet`` 'day', ``value`` 'YYYY-MM-DD', UTC), per week ('week', its Monday), per agent ('agent', '' for none),
# per spelling the judge wrote ('spelling') and how many had the tool available ('available', value '').
latest_tool_counts = Table(
    "latest_tool_counts",
    metadata,
    Column("criteria_hash", String(64), primary_key=True),
    Column("tool_name", String(255), primary_key=True),
    Column("facet", String(10), primary_key=True),
    Column("value", String(255), primary_key=True),
    Column("sessions", BigInteger, nullable=False),
    CheckConstraint("facet IN ('day', 'week', 'agent', 'spelling', 'available')", name="ck_latest_tool_counts_facet"),
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


# A session's latest completed score within one criteria hash (or ``ANY_CRITERIA``) as the trends count it: the
# bucket it is in (UTC day, agent, alert type, total), its dimensions; ``previous`` is what the last update replaced.
trend_members = Table(
    "trend_members",
    metadata,
    Column("criteria_hash", String(64), primary_key=True),
    Column("session_id", String(255), primary_key=True),
    Column("score_id", UUID(as_uuid=True), nullable=False),
    Column("scored_at", DateTime(timezone=True), nullable=False),
    Column("session_agent", String(255)),
    Column("session_alert_type", String(255)),
    Column("total_score", Integer, nullable=False),
    # Migration 0021_dimension_maps: the score's points per dimension of its rubric (key: points).
    Column("dimensions", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("previous", JSONB),
    Column("outcome", String(20)),  # migration 0018_outcome
)


# Per criteria hash, bucket (a UTC day, or the Monday of its week), grouping and group among ``trend_members``: the
# sessions, ``totals`` (sessions per total score 0-100, index = total: exact percentiles) and the sessions that found,
# partly found or missed their reference (each dimension's sum and count are ``trend_dimension_sums``).
def _trend_key() -> list[Column[Any]]:
    """The key of a trend row: criteria hash, bucket, grouping and group (new columns for each table)."""
    return [
        Column("criteria_hash", String(64), primary_key=True),
        Column("bucket", String(4), primary_key=True),
        Column("group_by", String(10), primary_key=True),
        Column("bucket_start", Date, primary_key=True),
        # True when the score's attempt has no such fact (the value is then ''; for ``group_by`` 'none' False, '').
        Column("group_unknown", Boolean, primary_key=True),
        Column("group_value", String(255), primary_key=True),
    ]


trend_histograms = Table(
    "trend_histograms",
    metadata,
    *_trend_key(),
    Column("sessions", Integer, nullable=False),
    Column("totals", ARRAY(Integer), nullable=False),
    *[
        Column(f"outcome_{outcome.value}", Integer, nullable=False, server_default=text("0"))
        for outcome in REFERENCED_OUTCOMES
    ],
    CheckConstraint("bucket IN ('day', 'week')", name="ck_trend_histograms_bucket"),
    CheckConstraint("group_by IN ('none', 'agent', 'alert_type')", name="ck_trend_histograms_group_by"),
    CheckConstraint(f"cardinality(totals) = {MAX_SCORE - MIN_SCORE + 1}", name="ck_trend_histograms_totals"),
)


# Migration 0021_dimension_maps: per ``trend_histograms`` row (its key) and dimension of the members' rubrics, the
# members' points summed and how many members had the dimension: each dimension's mean, whatever the rubric.
trend_dimension_sums = Table(
    "trend_dimension_sums",
    metadata,
    *_trend_key(),
    Column("dimension_key", String(64), primary_key=True),
    Column("points", BigInteger, nullable=False),
    Column("sessions", Integer, nullable=False),
)


score_missing_tools = Table(
    "score_missing_tools",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True, default=uuid.uuid4),
    Column("score_id", UUID(as_uuid=True), ForeignKey("session_scores.score_id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False, server_default=text("0")),
    # As the judge wrote it.
    Column("tool_name", String(255), nullable=False),
    # What it is counted as (``models.tools``): null only in a row written by hand without it.
    Column("canonical_name", String(255)),
    Column("rationale", Text, nullable=False),
    Index("ix_score_missing_tools_score_id", "score_id"),
    Index("ix_score_missing_tools_tool_name", "tool_name"),
    Index("ix_score_missing_tools_score_tool", "score_id", "tool_name"),  # 0002_analytics
)


# Migration 0019_rubric: each completed score's points per dimension of its rubric, with the dimension's maximum:
# per-dimension analytics for whatever dimensions the criteria in scope have (the breakdown stays JSONB on the attempt).
score_dimensions = Table(
    "score_dimensions",
    metadata,
    Column("score_id", UUID(as_uuid=True), ForeignKey("session_scores.score_id", ondelete="CASCADE"), primary_key=True),
    Column("dimension_key", String(64), primary_key=True),
    Column("points", Integer, nullable=False),
    Column("max_points", Integer, nullable=False),
    CheckConstraint("max_points > 0 AND points >= 0 AND points <= max_points", name="ck_score_dimensions_points"),
    Index("ix_score_dimensions_key", "dimension_key", "score_id"),
)


# Migration 0019_rubric: each completed score's failure tags (its rubric's closed vocabulary), for their frequency,
# trend and drill-down to sessions, as score_missing_tools serves missing tools.
score_failure_tags = Table(
    "score_failure_tags",
    metadata,
    Column("score_id", UUID(as_uuid=True), ForeignKey("session_scores.score_id", ondelete="CASCADE"), primary_key=True),
    Column("tag", String(64), primary_key=True),
    Index("ix_score_failure_tags_tag", "tag", "score_id"),
)


score_alternative_approaches = Table(
    "score_alternative_approaches",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True, default=uuid.uuid4),
    Column("score_id", UUID(as_uuid=True), ForeignKey("session_scores.score_id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False, server_default=text("0")),
    Column("name", String(255), nullable=False),
    Column("description", Text, nullable=False),
    Index("ix_score_alternative_approaches_score_id", "score_id"),
    Index("ix_score_alternative_approaches_name", "name"),
)


score_alternative_approach_steps = Table(
    "score_alternative_approach_steps",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True, default=uuid.uuid4),
    Column(
        "approach_id",
        UUID(as_uuid=True),
        ForeignKey("score_alternative_approaches.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("step_order", Integer, nullable=False),
    Column("step_description", Text, nullable=False),
    Index("ix_score_alternative_approach_steps_approach_id", "approach_id"),
)


# A session uploaded through the import endpoint: the normalised session, and the document as sent.
uploaded_sessions = Table(
    "uploaded_sessions",
    metadata,
    Column("session_id", String(64), primary_key=True),
    Column("trace_format", String(64), nullable=False),
    Column("file_name", String(255)),
    Column("original_session_id", String(255)),
    Column("status", String(32), nullable=False),
    Column("alert_type", String(255)),
    Column("agent_type", String(255)),
    Column("started_at", DateTime(timezone=True)),
    Column("completed_at", DateTime(timezone=True)),
    Column("tool_calls", Integer, nullable=False, server_default=text("0")),
    Column("size_bytes", Integer, nullable=False),
    Column("uploaded_by", String(255), nullable=False),
    Column("uploaded_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("session", JSONB, nullable=False),
    Column("document", Text, nullable=False),
    CheckConstraint("session_id LIKE 'upload:%'", name="ck_uploaded_sessions_id_prefix"),
    Index("ix_uploaded_sessions_uploaded_at", "uploaded_at"),
)


# A human's score of a session; a labeller's current label is their highest revision.
judge_labels = Table(
    "judge_labels",
    metadata,
    Column("label_id", UUID(as_uuid=True), primary_key=True),
    Column("session_id", String(255), nullable=False),
    Column("labeller", String(255), nullable=False),
    Column("revision", Integer, nullable=False),
    Column("total_score", Integer, nullable=False),
    Column("score_breakdown", JSONB),
    Column("band", String(20), nullable=False),
    Column("notes", Text),
    Column("source", String(20), nullable=False, server_default="api"),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    CheckConstraint("total_score >= 0 AND total_score <= 100", name="ck_judge_labels_total_score_range"),
    CheckConstraint("revision > 0", name="ck_judge_labels_revision"),
    CheckConstraint(f"source IN {_sql_list(LABEL_SOURCES)}", name="ck_judge_labels_source"),
    UniqueConstraint("session_id", "labeller", "revision", name="uq_judge_labels_revision"),
    Index("ix_judge_labels_session_id", "session_id"),
)


# A session's reference root cause set through the labels API: its highest revision's (one without a root cause
# withdraws it).
session_references = Table(
    "session_references",
    metadata,
    Column("reference_id", UUID(as_uuid=True), primary_key=True),
    Column("session_id", String(255), nullable=False),
    Column("revision", Integer, nullable=False),
    Column("root_cause", Text),
    Column("remediation", Text),
    Column("set_by", String(255), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    CheckConstraint("revision > 0", name="ck_session_references_revision"),
    CheckConstraint(
        "root_cause IS NOT NULL OR remediation IS NULL", name="ck_session_references_remediation_with_cause"
    ),
    UniqueConstraint("session_id", "revision", name="uq_session_references_revision"),
)


# Per criteria hash (and ``ANY_CRITERIA``), agent, alert type and outcome, the sessions whose latest completed score
# has that outcome and the sum of their totals. An unknown agent or alert type is '' with its ``*_unknown`` flag set;
# a score without an outcome (made before outcomes were judged) is not counted.
outcome_counts = Table(
    "outcome_counts",
    metadata,
    Column("criteria_hash", String(64), primary_key=True),
    Column("agent_unknown", Boolean, primary_key=True),
    Column("agent", String(255), primary_key=True),
    Column("alert_type_unknown", Boolean, primary_key=True),
    Column("alert_type", String(255), primary_key=True),
    Column("outcome", String(20), primary_key=True),
    Column("sessions", Integer, nullable=False),
    Column("total_sum", BigInteger, nullable=False),
    CheckConstraint(f"outcome IN {_sql_list(OUTCOMES)}", name="ck_outcome_counts_outcome"),
)


# An export written to S3 by the exporter function: what was asked, how far it got, where the file is, or why not.
export_jobs = Table(
    "export_jobs",
    metadata,
    Column("export_id", UUID(as_uuid=True), primary_key=True),
    Column("kind", String(20), nullable=False),
    Column("parameters", JSONB, nullable=False),
    Column("status", String(20), nullable=False, server_default="queued"),
    Column("rows_written", Integer),
    Column("bytes_written", BigInteger),
    Column("s3_key", String(1024)),
    Column("error_message", Text),
    Column("requested_by", String(255), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("started_at", DateTime(timezone=True)),
    Column("finished_at", DateTime(timezone=True)),
    CheckConstraint(f"kind IN {_sql_list(EXPORT_KINDS)}", name="ck_export_jobs_kind"),
    CheckConstraint(f"status IN {_sql_list(EXPORT_STATUSES)}", name="ck_export_jobs_status"),
    Index("ix_export_jobs_created_at", "created_at"),
)


# A session with a latest completed score under two criteria hashes (never ``ANY_CRITERIA``), once per unordered pair
# (``low_hash`` the lesser in code point order): the comparison's movers and sample are index scans that stop after a
# few rows. Session ids sort in code point order (collation "C"), whatever the database's default.
comparison_pairs = Table(
    "comparison_pairs",
    metadata,
    Column("low_hash", String(64), primary_key=True),
    Column("high_hash", String(64), primary_key=True),
    Column("session_id", String(255, collation="C"), primary_key=True),
    Column("low_total", Integer, nullable=False),
    Column("high_total", Integer, nullable=False),
    # The high hash's total minus the low hash's (the comparison's delta, or its negation when read flipped).
    Column("delta", Integer, Computed("high_total - low_total", persisted=True)),
    # Either latest score was judged against a reference (read through the partial indexes below).
    Column("with_reference", Boolean, nullable=False, server_default=text("false")),
    # The scatter's sample is the pair's first sessions: an index-only scan of the key.
    PrimaryKeyConstraint(
        "low_hash",
        "high_hash",
        "session_id",
        name="comparison_pairs_pkey",
        postgresql_include=["low_total", "high_total"],
    ),
    # The movers each way, ties by session id ascending, whichever hash is the base: one index per direction, over
    # every pair and (migration 0018_outcome) over those with a reference.
    *(
        Index(
            f"ix_comparison_pairs_{prefix}{direction}",
            "low_hash",
            "high_hash",
            delta,
            "session_id",
            postgresql_where=where,
        )
        for prefix, where in (("", None), ("reference_", text("with_reference")))
        for direction, delta in (("rising", "delta"), ("falling", text("delta DESC")))
    ),
    # Migration 0018_outcome: the scatter's sample over the sessions with a reference.
    Index(
        "ix_comparison_pairs_reference_sessions",
        "low_hash",
        "high_hash",
        "session_id",
        postgresql_include=["low_total", "high_total"],
        postgresql_where=text("with_reference"),
    ),
)


# The comparison's histograms per unordered pair of criteria hashes (as ``comparison_pairs``): ``kind`` 'total'
# counts sessions per (``a`` low hash's total, ``b`` high hash's total); a dimension's kind counts sessions per
# ``a`` = high minus low points (both present; ``b`` 0). The same kinds prefixed ``ref_`` count only the sessions
# judged against a reference under either hash. A cell whose sessions fall to 0 stays (readers skip it).
comparison_cells = Table(
    "comparison_cells",
    metadata,
    Column("low_hash", String(64), primary_key=True),
    Column("high_hash", String(64), primary_key=True),
    Column("kind", String(80), primary_key=True),
    Column("a", Integer, primary_key=True),
    Column("b", Integer, primary_key=True),
    Column("sessions", Integer, nullable=False),
    # A comparison reads one pair's cells: an index-only range scan.
    PrimaryKeyConstraint(
        "low_hash", "high_hash", "kind", "a", "b", name="comparison_cells_pkey", postgresql_include=["sessions"]
    ),
    CheckConstraint(f"kind ~ '{COMPARISON_KIND_PATTERN}'", name="ck_comparison_cells_kind"),
)
