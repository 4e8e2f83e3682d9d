"""Judge quality: human labels, and score attempts marked as measurement samples.

Adds ``judge_labels`` (a human's score of a session; every revision kept: a labeller's current label is their
highest revision), ``session_scores.sample_kind`` (NULL for a real score; ``repeatability`` or ``robustness`` for
an attempt stored by a judge-quality study, which is never a session's score and never counted by analytics) and
``session_scores.score_spread`` (the spread of an ensemble score's samples).

Revision ID: 0010_judge_labels
Revises: 0005_scoring_runs
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0010_judge_labels"
down_revision = "0009_judging_time"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "judge_labels",
        sa.Column("label_id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column("session_id", sa.String(255), nullable=False),
        sa.Column("labeller", sa.String(255), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("total_score", sa.Integer(), nullable=False),
        sa.Column("score_breakdown", postgresql.JSONB()),
        sa.Column("band", sa.String(20), nullable=False),
        sa.Column("notes", sa.Text()),
        sa.Column("source", sa.String(20), nullable=False, server_default="api"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.CheckConstraint("total_score >= 0 AND total_score <= 100", name="ck_judge_labels_total_score_range"),
        sa.CheckConstraint("revision > 0", name="ck_judge_labels_revision"),
        sa.CheckConstraint("source IN ('api', 'import')", name="ck_judge_labels_source"),
        sa.UniqueConstraint("session_id", "labeller", "revision", name="uq_judge_labels_revision"),
    )
    op.create_index("ix_judge_labels_session_id", "judge_labels", ["session_id"])
    op.add_column("session_scores", sa.Column("sample_kind", sa.String(20), nullable=True))
    op.add_column("session_scores", sa.Column("score_spread", postgresql.JSONB(), nullable=True))
    op.create_check_constraint(
        "ck_session_scores_sample_kind",
        "session_scores",
        "sample_kind IS NULL OR sample_kind IN ('repeatability', 'robustness')",
    )
    op.create_index(
        "ix_session_scores_samples",
        "session_scores",
        ["sample_kind", "session_id"],
        postgresql_where=sa.text("sample_kind IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_session_scores_samples", table_name="session_scores")
    op.drop_constraint("ck_session_scores_sample_kind", "session_scores", type_="check")
    # Samples were never scores: without the column they would become ones, so they go.
    op.execute("DELETE FROM session_scores WHERE sample_kind IS NOT NULL")
    op.drop_column("session_scores", "score_spread")
    op.drop_column("session_scores", "sample_kind")
    op.drop_index("ix_judge_labels_session_id", table_name="judge_labels")
    op.drop_table("judge_labels")
