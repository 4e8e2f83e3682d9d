"""Scoring runs: a named, capped set of attempts an operator starts, watches and can cancel.

Adds ``scoring_runs``, a nullable ``run_id`` on ``session_scores`` (one attempt per session per run, enforced by a
partial unique index so a planner resumed after a crash cannot create a duplicate) and the terminal ``cancelled``
attempt status (an attempt of a cancelled run that no scorer had claimed; never a score, never active).

Revision ID: 0005_scoring_runs
Revises: 0004_dead_lettered
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0005_scoring_runs"
down_revision = "0004_dead_lettered"
branch_labels = None
depends_on = None

OLD_STATUSES = "status IN ('pending', 'in_progress', 'completed', 'failed')"
NEW_STATUSES = "status IN ('pending', 'in_progress', 'completed', 'failed', 'cancelled')"


def upgrade() -> None:
    op.create_table(
        "scoring_runs",
        sa.Column("run_id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("status", sa.String(20), nullable=False, server_default="planning"),
        sa.Column("mode", sa.String(20), nullable=False, server_default="online"),
        sa.Column("selection", postgresql.JSONB(), nullable=False),
        sa.Column("max_sessions", sa.Integer(), nullable=False),
        sa.Column("max_cost_usd", sa.Numeric(12, 4)),
        sa.Column("criteria_hash", sa.String(64), nullable=False),
        sa.Column("judge_model", sa.String(255), nullable=False),
        sa.Column("started_by", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("planned_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.Column("next_page", sa.Integer(), nullable=False, server_default=sa.text("1")),
        sa.Column("sessions_seen", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("sessions_selected", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("skipped", postgresql.JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb")),
        sa.Column("estimated_input_tokens", sa.Integer()),
        sa.Column("estimated_output_tokens", sa.Integer()),
        sa.Column("estimated_cost_per_session_usd", sa.Numeric(12, 6)),
        sa.Column("stop_reason", sa.Text()),
        sa.Column("error_message", sa.Text()),
        sa.CheckConstraint(
            "status IN ('planning', 'running', 'completed', 'cancelled', 'failed')", name="ck_scoring_runs_status"
        ),
        sa.CheckConstraint("mode IN ('online', 'batch')", name="ck_scoring_runs_mode"),
        sa.CheckConstraint("max_sessions > 0", name="ck_scoring_runs_max_sessions"),
    )
    op.create_index("ix_scoring_runs_created_at", "scoring_runs", ["created_at"])
    op.create_index("ix_scoring_runs_status", "scoring_runs", ["status"])

    op.add_column(
        "session_scores",
        sa.Column("run_id", postgresql.UUID(as_uuid=True), sa.ForeignKey("scoring_runs.run_id"), nullable=True),
    )
    op.create_index("ix_session_scores_run_id", "session_scores", ["run_id"])
    op.create_index(
        "uq_session_scores_one_per_run",
        "session_scores",
        ["run_id", "session_id"],
        unique=True,
        postgresql_where=sa.text("run_id IS NOT NULL"),
    )
    op.drop_constraint("ck_session_scores_status", "session_scores", type_="check")
    op.create_check_constraint("ck_session_scores_status", "session_scores", NEW_STATUSES)


def downgrade() -> None:
    # The old constraint has no 'cancelled': keep those attempts, as failed with the reason.
    op.execute(
        "UPDATE session_scores SET status = 'failed', error_message = coalesce(error_message, 'cancelled') "
        "WHERE status = 'cancelled'"
    )
    op.drop_constraint("ck_session_scores_status", "session_scores", type_="check")
    op.create_check_constraint("ck_session_scores_status", "session_scores", OLD_STATUSES)
    op.drop_index("uq_session_scores_one_per_run", table_name="session_scores")
    op.drop_index("ix_session_scores_run_id", table_name="session_scores")
    op.drop_column("session_scores", "run_id")
    op.drop_index("ix_scoring_runs_status", table_name="scoring_runs")
    op.drop_index("ix_scoring_runs_created_at", table_name="scoring_runs")
    op.drop_table("scoring_runs")
