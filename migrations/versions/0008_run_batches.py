"""Batch-mode scoring runs: the Message Batch each attempt was submitted in.

Adds ``session_scores.batch_id`` (set by the batch poller when it submits the attempt; the attempt is then
``in_progress`` until the batch's result for it is collected) and a partial index on the attempts still waiting in a
batch, which the poller reads on every tick.

Revision ID: 0008_run_batches
Revises: 0005_scoring_runs
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_run_batches"
down_revision = "0007_session_facts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("session_scores", sa.Column("batch_id", sa.String(128), nullable=True))
    op.create_index(
        "ix_session_scores_open_batch",
        "session_scores",
        ["batch_id"],
        postgresql_where=sa.text("batch_id IS NOT NULL AND status = 'in_progress'"),
    )


def downgrade() -> None:
    op.drop_index("ix_session_scores_open_batch", table_name="session_scores")
    op.drop_column("session_scores", "batch_id")
