"""Create the five scoring tables.

Revision ID: 0001_scoring_tables
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001_scoring_tables"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "scoring_criteria_definitions",
        sa.Column("criteria_hash", sa.String(64), primary_key=True),
        sa.Column("criteria_content", postgresql.JSONB(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
    )
    op.create_index("ix_scoring_criteria_definitions_created_at", "scoring_criteria_definitions", ["created_at"])

    op.create_table(
        "session_scores",
        sa.Column("score_id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column("session_id", sa.String(255), nullable=False),
        sa.Column(
            "criteria_hash",
            sa.String(64),
            sa.ForeignKey("scoring_criteria_definitions.criteria_hash"),
            nullable=False,
        ),
        sa.Column("status", sa.String(20), nullable=False, server_default="pending"),
        sa.Column("total_score", sa.Integer()),
        sa.Column("score_breakdown", postgresql.JSONB()),
        sa.Column("score_reasoning", sa.Text()),
        sa.Column("scored_triggered_by", sa.String(255), nullable=False),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("scored_at", sa.DateTime(timezone=True)),
        sa.Column("error_message", sa.Text()),
        sa.Column("judge_provider", sa.String(64)),
        sa.Column("judge_model", sa.String(255)),
        sa.Column("input_tokens", sa.Integer()),
        sa.Column("output_tokens", sa.Integer()),
        sa.Column("cache_read_tokens", sa.Integer()),
        sa.Column("cache_write_tokens", sa.Integer()),
        sa.Column("judge_latency_ms", sa.Integer()),
        sa.Column("prompt_compacted", sa.Boolean(), nullable=False, server_default=sa.text("false")),
        sa.Column("prompt_tokens_before", sa.Integer()),
        sa.Column("prompt_tokens_after", sa.Integer()),
        sa.Column("claim_token", postgresql.UUID(as_uuid=True)),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True)),
        sa.Column("delivery_count", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.CheckConstraint(
            "total_score IS NULL OR (total_score >= 0 AND total_score <= 100)",
            name="ck_session_scores_total_score_range",
        ),
        sa.CheckConstraint(
            "status IN ('pending', 'in_progress', 'completed', 'failed')", name="ck_session_scores_status"
        ),
        sa.CheckConstraint(
            "status <> 'completed' OR total_score IS NOT NULL", name="ck_session_scores_completed_has_score"
        ),
    )
    op.create_index("ix_session_scores_session_id", "session_scores", ["session_id"])
    op.create_index("ix_session_scores_criteria_hash", "session_scores", ["criteria_hash"])
    op.create_index("ix_session_scores_total_score", "session_scores", ["total_score"])
    op.create_index("ix_session_scores_scored_at", "session_scores", ["scored_at"])
    op.create_index("ix_session_scores_session_requested", "session_scores", ["session_id", "requested_at"])
    op.create_index(
        "uq_session_scores_one_active_attempt",
        "session_scores",
        ["session_id"],
        unique=True,
        postgresql_where=sa.text("status IN ('pending', 'in_progress')"),
    )

    op.create_table(
        "score_missing_tools",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column(
            "score_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("session_scores.score_id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("tool_name", sa.String(255), nullable=False),
        sa.Column("rationale", sa.Text(), nullable=False),
    )
    op.create_index("ix_score_missing_tools_score_id", "score_missing_tools", ["score_id"])
    op.create_index("ix_score_missing_tools_tool_name", "score_missing_tools", ["tool_name"])

    op.create_table(
        "score_alternative_approaches",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column(
            "score_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("session_scores.score_id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
    )
    op.create_index("ix_score_alternative_approaches_score_id", "score_alternative_approaches", ["score_id"])
    op.create_index("ix_score_alternative_approaches_name", "score_alternative_approaches", ["name"])

    op.create_table(
        "score_alternative_approach_steps",
        sa.Column("id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column(
            "approach_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("score_alternative_approaches.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("step_order", sa.Integer(), nullable=False),
        sa.Column("step_description", sa.Text(), nullable=False),
    )
    op.create_index(
        "ix_score_alternative_approach_steps_approach_id", "score_alternative_approach_steps", ["approach_id"]
    )


def downgrade() -> None:
    op.drop_table("score_alternative_approach_steps")
    op.drop_table("score_alternative_approaches")
    op.drop_table("score_missing_tools")
    op.drop_table("session_scores")
    op.drop_table("scoring_criteria_definitions")
