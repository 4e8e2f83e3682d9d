"""Score write-backs: a completed attempt's verdict written to the trace store its session came from.

Adds ``score_writebacks``, one row per attempt whose write-back started: the sink (``phoenix``, ``mlflow``), the
status (``writing``, ``written``, ``retrying``, ``failed``), how many tries, what was written, the last error, and
when it changed and was written. The attempt itself stays completed whatever happens to its write-back.

Revision ID: 0017_score_writebacks
Revises: 0016_comparison_pairs
Create Date: 2026-11-26
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0017_score_writebacks"
down_revision = "0016_comparison_pairs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "score_writebacks",
        sa.Column(
            "score_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("session_scores.score_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("sink", sa.String(20), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("tries", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("detail", sa.Text()),
        sa.Column("error_message", sa.Text()),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("written_at", sa.DateTime(timezone=True)),
        sa.CheckConstraint("status IN ('writing', 'written', 'retrying', 'failed')", name="ck_score_writebacks_status"),
    )


def downgrade() -> None:
    op.drop_table("score_writebacks")
