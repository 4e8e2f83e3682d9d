"""Covering indexes for the analytics and the latest completed score of each session.

The analytics count the latest completed attempt of each session (optionally within one criteria hash). Without
these, that step is a sequential scan and an on-disk sort of every attempt; with them it is an index-only scan in
the order DISTINCT ON needs. ``criteria_hash, session_id`` also serves the sessions completed per criteria.

Revision ID: 0002_analytics
Revises: 0001_scoring_tables
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002_analytics"
down_revision = "0001_scoring_tables"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "ix_session_scores_latest_completed",
        "session_scores",
        ["session_id", sa.text("scored_at DESC"), sa.text("score_id DESC")],
        postgresql_include=["total_score"],
        postgresql_where=sa.text("status = 'completed'"),
    )
    op.create_index(
        "ix_session_scores_latest_completed_by_criteria",
        "session_scores",
        ["criteria_hash", "session_id", sa.text("scored_at DESC"), sa.text("score_id DESC")],
        postgresql_include=["total_score"],
        postgresql_where=sa.text("status = 'completed'"),
    )
    op.create_index("ix_score_missing_tools_score_tool", "score_missing_tools", ["score_id", "tool_name"])


def downgrade() -> None:
    op.drop_index("ix_score_missing_tools_score_tool", table_name="score_missing_tools")
    op.drop_index("ix_session_scores_latest_completed_by_criteria", table_name="session_scores")
    op.drop_index("ix_session_scores_latest_completed", table_name="session_scores")
