"""Session facts on each attempt: what the session looked like when the attempt was created.

Adds the snapshot columns (agent, alert type, start and end time, stages, tool calls, source) to
``session_scores``, filled when an attempt is created and by ``session-scoring facts backfill`` for older attempts,
so scores can be filtered and sorted without the session source being reachable. ``facts_captured_at`` says when
the snapshot was taken (null: not yet). Adds the indexes of the fleet query (``GET /scores``): completed attempts
per criteria ordered by total, by each dimension, by scoring time and by session start, and the agent / alert type
filters.

Revision ID: 0007_session_facts
Revises: 0005_scoring_runs
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_session_facts"
down_revision: str | None = "0006_latest_scores"
branch_labels = None
depends_on = None

COMPLETED = sa.text("status = 'completed'")

FLEET_INDEXES: tuple[tuple[str, list[str]], ...] = (
    ("ix_session_scores_fleet_total", ["criteria_hash", "total_score", "score_id"]),
    ("ix_session_scores_fleet_scored_at", ["criteria_hash", "scored_at", "score_id"]),
    ("ix_session_scores_fleet_session_started", ["criteria_hash", "session_started_at", "score_id"]),
    ("ix_session_scores_fleet_agent", ["session_agent", "criteria_hash"]),
    ("ix_session_scores_fleet_alert_type", ["session_alert_type", "criteria_hash"]),
)
DIMENSIONS = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")


def upgrade() -> None:
    op.add_column("session_scores", sa.Column("session_agent", sa.String(255)))
    op.add_column("session_scores", sa.Column("session_alert_type", sa.String(255)))
    op.add_column("session_scores", sa.Column("session_started_at", sa.DateTime(timezone=True)))
    op.add_column("session_scores", sa.Column("session_ended_at", sa.DateTime(timezone=True)))
    op.add_column("session_scores", sa.Column("session_stages", sa.Integer()))
    op.add_column("session_scores", sa.Column("session_tool_calls", sa.Integer()))
    op.add_column("session_scores", sa.Column("session_source", sa.String(64)))
    op.add_column("session_scores", sa.Column("facts_captured_at", sa.DateTime(timezone=True)))
    for name, columns in FLEET_INDEXES:
        op.create_index(name, "session_scores", columns, postgresql_where=COMPLETED)
    for dimension in DIMENSIONS:  # sorting by a dimension: its points as an integer, per criteria
        op.create_index(
            f"ix_session_scores_fleet_{dimension}",
            "session_scores",
            ["criteria_hash", sa.text(f"((score_breakdown ->> '{dimension}')::integer)"), "score_id"],
            postgresql_where=COMPLETED,
        )
    # The backfill's work list: attempts without a snapshot, in score_id order (it resumes from the last one done).
    op.create_index(
        "ix_session_scores_facts_missing",
        "session_scores",
        ["score_id"],
        postgresql_where=sa.text("facts_captured_at IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("ix_session_scores_facts_missing", table_name="session_scores")
    for dimension in DIMENSIONS:
        op.drop_index(f"ix_session_scores_fleet_{dimension}", table_name="session_scores")
    for name, _columns in reversed(FLEET_INDEXES):
        op.drop_index(name, table_name="session_scores")
    for column in (
        "facts_captured_at",
        "session_source",
        "session_tool_calls",
        "session_stages",
        "session_ended_at",
        "session_started_at",
        "session_alert_type",
        "session_agent",
    ):
        op.drop_column("session_scores", column)
