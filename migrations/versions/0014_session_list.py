"""The sessions list's scored pages as index scans: ``latest_scores`` by total score and by newest score within a
criteria key (``services/session_list.py``). Without them a page sorted by score, or the newest scores of no single
band, sorts every scored session of the key (about 1-2 s at a million).

Revision ID: 0014_session_list
Revises: 0013_export_jobs
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_session_list"
down_revision = "0013_export_jobs"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_latest_scores_by_total", "latest_scores", ["criteria_hash", "total_score", "session_id"])
    op.create_index(
        "ix_latest_scores_newest",
        "latest_scores",
        ["criteria_hash", sa.text("scored_at DESC"), sa.text("session_id DESC")],
    )


def downgrade() -> None:
    op.drop_index("ix_latest_scores_newest", table_name="latest_scores")
    op.drop_index("ix_latest_scores_by_total", table_name="latest_scores")
