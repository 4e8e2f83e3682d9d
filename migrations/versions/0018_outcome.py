"""Outcome: whether an investigation found the session's known root cause (its reference), per score and in the
analytics.

- ``session_scores``: ``outcome`` (``found``, ``partly_found``, ``missed``, ``no_reference``; null for a score made
  before outcomes were judged, and until completed), ``outcome_reason`` (the judge's one sentence) and
  ``reference_source`` (where the reference the judge was given came from: ``label``, ``import``, ``source``; null:
  none), with a partial index for the fleet query's outcome filter, newest first.
- ``session_references``: the references set through the labels API, every revision kept with who set it and when
  (a revision without a root cause withdraws the reference).
- ``latest_scores`` and ``trend_members``: the outcome of each latest score.
- ``trend_histograms``: the sessions found, partly found and missed per bucket and group (0 for existing rows, whose
  scores have no outcome).
- ``outcome_counts``: per criteria hash (and ``*``), agent, alert type and outcome, the latest scores and the sum of
  their totals (``GET /analytics/outcome``), kept by the verdict statement.
- ``comparison_pairs.with_reference`` (either latest score judged against a reference) with partial indexes for the
  movers and the scatter of a restricted comparison, and ``comparison_cells`` kinds prefixed ``ref_`` (the same
  histograms over those sessions; ``kind`` widened to 32 characters for them).

Existing scores have no outcome, so nothing is backfilled: every new table starts empty and every new count at 0.

Revision ID: 0018_outcome
Revises: 0017_score_writebacks
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0018_outcome"
down_revision = "0017_score_writebacks"
branch_labels = None
depends_on = None

OUTCOMES = "('found', 'partly_found', 'missed', 'no_reference')"
DIMENSIONS = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")
HISTOGRAM_OUTCOMES = ("outcome_found", "outcome_partly_found", "outcome_missed")
KINDS = ("total", *DIMENSIONS)


def _kinds(prefixes: tuple[str, ...]) -> str:
    return "kind IN (" + ", ".join(f"'{prefix}{kind}'" for prefix in prefixes for kind in KINDS) + ")"


def upgrade() -> None:
    op.add_column("session_scores", sa.Column("outcome", sa.String(20)))
    op.add_column("session_scores", sa.Column("outcome_reason", sa.Text()))
    op.add_column("session_scores", sa.Column("reference_source", sa.String(10)))
    op.create_check_constraint(
        "ck_session_scores_outcome", "session_scores", f"outcome IS NULL OR outcome IN {OUTCOMES}"
    )
    op.create_check_constraint(
        "ck_session_scores_reference_source",
        "session_scores",
        "reference_source IS NULL OR reference_source IN ('label', 'import', 'source')",
    )
    op.create_index(
        "ix_session_scores_fleet_outcome",
        "session_scores",
        ["criteria_hash", "outcome", "scored_at", "score_id"],
        postgresql_where=sa.text("status = 'completed'"),
    )

    op.create_table(
        "session_references",
        sa.Column("reference_id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column("session_id", sa.String(255), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("root_cause", sa.Text()),
        sa.Column("remediation", sa.Text()),
        sa.Column("set_by", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint("revision > 0", name="ck_session_references_revision"),
        sa.CheckConstraint(
            "root_cause IS NOT NULL OR remediation IS NULL", name="ck_session_references_remediation_with_cause"
        ),
        sa.UniqueConstraint("session_id", "revision", name="uq_session_references_revision"),
    )

    op.add_column("latest_scores", sa.Column("outcome", sa.String(20)))
    op.add_column("trend_members", sa.Column("outcome", sa.String(20)))
    for name in HISTOGRAM_OUTCOMES:
        op.add_column("trend_histograms", sa.Column(name, sa.Integer(), nullable=False, server_default=sa.text("0")))

    op.create_table(
        "outcome_counts",
        sa.Column("criteria_hash", sa.String(64), primary_key=True),
        sa.Column("agent_unknown", sa.Boolean(), primary_key=True),
        sa.Column("agent", sa.String(255), primary_key=True),
        sa.Column("alert_type_unknown", sa.Boolean(), primary_key=True),
        sa.Column("alert_type", sa.String(255), primary_key=True),
        sa.Column("outcome", sa.String(20), primary_key=True),
        sa.Column("sessions", sa.Integer(), nullable=False),
        sa.Column("total_sum", sa.BigInteger(), nullable=False),
        sa.CheckConstraint(f"outcome IN {OUTCOMES}", name="ck_outcome_counts_outcome"),
    )

    op.add_column(
        "comparison_pairs",
        sa.Column("with_reference", sa.Boolean(), nullable=False, server_default=sa.text("false")),
    )
    where = {"postgresql_where": sa.text("with_reference")}
    op.create_index(
        "ix_comparison_pairs_reference_rising",
        "comparison_pairs",
        ["low_hash", "high_hash", "delta", "session_id"],
        **where,
    )
    op.create_index(
        "ix_comparison_pairs_reference_falling",
        "comparison_pairs",
        ["low_hash", "high_hash", sa.text("delta DESC"), "session_id"],
        **where,
    )
    op.create_index(
        "ix_comparison_pairs_reference_sessions",
        "comparison_pairs",
        ["low_hash", "high_hash", "session_id"],
        postgresql_include=["low_total", "high_total"],
        **where,
    )
    op.alter_column("comparison_cells", "kind", type_=sa.String(32), existing_type=sa.String(20))
    op.drop_constraint("ck_comparison_cells_kind", "comparison_cells", type_="check")
    op.create_check_constraint("ck_comparison_cells_kind", "comparison_cells", _kinds(("", "ref_")))


def downgrade() -> None:
    op.execute("DELETE FROM comparison_cells WHERE kind LIKE 'ref\\_%'")
    op.drop_constraint("ck_comparison_cells_kind", "comparison_cells", type_="check")
    op.create_check_constraint("ck_comparison_cells_kind", "comparison_cells", _kinds(("",)))
    op.alter_column("comparison_cells", "kind", type_=sa.String(20), existing_type=sa.String(32))
    for name in ("sessions", "falling", "rising"):
        op.drop_index(f"ix_comparison_pairs_reference_{name}", table_name="comparison_pairs")
    op.drop_column("comparison_pairs", "with_reference")
    op.drop_table("outcome_counts")
    for name in reversed(HISTOGRAM_OUTCOMES):
        op.drop_column("trend_histograms", name)
    op.drop_column("trend_members", "outcome")
    op.drop_column("latest_scores", "outcome")
    op.drop_table("session_references")
    op.drop_index("ix_session_scores_fleet_outcome", table_name="session_scores")
    op.drop_constraint("ck_session_scores_reference_source", "session_scores", type_="check")
    op.drop_constraint("ck_session_scores_outcome", "session_scores", type_="check")
    op.drop_column("session_scores", "reference_source")
    op.drop_column("session_scores", "outcome_reason")
    op.drop_column("session_scores", "outcome")
