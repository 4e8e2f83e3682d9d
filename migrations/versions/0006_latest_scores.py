"""Each session's latest completed score per criteria hash, and counters over it, for analytics at any scale.

``latest_scores`` holds one row per (session, criteria hash) with what the analytics need (score, band, the
four dimensions, when, the distinct missing tool names), plus one row per session under the criteria hash ``'*'``:
the session's latest completed score under any criteria. ``latest_score_tools`` has one row per tool such a score
names missing (so the newest sessions naming a tool are an index scan). ``latest_score_counts`` holds, per
criteria hash (and ``'*'``), the number of sessions in each band and naming each missing tool. All three are
maintained by the statement that stores a verdict (``ScoreRepository.complete``), so a distribution or a
missing-tools top list reads a handful of counter rows instead of sorting every attempt.

``previous_band`` and ``previous_missing_tools`` are what the last update of a row replaced: the verdict statement
reads them back (``RETURNING``) to take the replaced score out of the counters, under the row lock the upsert holds.

The upgrade backfills the three tables from the completed attempts already stored.

Revision ID: 0006_latest_scores
Revises: 0005_scoring_runs
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0006_latest_scores"
down_revision = "0005_scoring_runs"
branch_labels = None
depends_on = None

# The band bounds are the design's (models.scores.SCORE_BANDS) as of this revision: a migration keeps its own copy.
BACKFILL_LATEST = """
INSERT INTO latest_scores (session_id, criteria_hash, score_id, total_score, band, logical_flow, consistency,
                           tool_relevance, synthesis_quality, scored_at, missing_tools)
SELECT s.session_id, s.criteria_hash, s.score_id, s.total_score,
       CASE WHEN s.total_score <= 44 THEN 'failed' WHEN s.total_score <= 59 THEN 'weak'
            WHEN s.total_score <= 74 THEN 'adequate' WHEN s.total_score <= 89 THEN 'good' ELSE 'near_perfect' END,
       (s.score_breakdown ->> 'logical_flow')::int, (s.score_breakdown ->> 'consistency')::int,
       (s.score_breakdown ->> 'tool_relevance')::int, (s.score_breakdown ->> 'synthesis_quality')::int, s.scored_at,
       ARRAY(SELECT DISTINCT t.tool_name FROM score_missing_tools t WHERE t.score_id = s.score_id ORDER BY 1)
FROM (SELECT DISTINCT ON (criteria_hash, session_id) *
      FROM session_scores WHERE status = 'completed'
      ORDER BY criteria_hash, session_id, scored_at DESC, score_id DESC) AS s
"""

BACKFILL_ANY_CRITERIA = """
INSERT INTO latest_scores (session_id, criteria_hash, score_id, total_score, band, logical_flow, consistency,
                           tool_relevance, synthesis_quality, scored_at, missing_tools)
SELECT DISTINCT ON (session_id) session_id, '*', score_id, total_score, band, logical_flow, consistency,
       tool_relevance, synthesis_quality, scored_at, missing_tools
FROM latest_scores
ORDER BY session_id, scored_at DESC, score_id DESC
"""

BACKFILL_TOOLS = """
INSERT INTO latest_score_tools (criteria_hash, session_id, tool_name, scored_at, score_id)
SELECT l.criteria_hash, l.session_id, t.tool_name, l.scored_at, l.score_id
FROM latest_scores l CROSS JOIN LATERAL unnest(l.missing_tools) AS t(tool_name)
"""

BACKFILL_COUNTS = """
INSERT INTO latest_score_counts (criteria_hash, kind, name, sessions)
SELECT criteria_hash, 'band', band, count(*) FROM latest_scores GROUP BY criteria_hash, band
UNION ALL
SELECT l.criteria_hash, 'tool', t.tool_name, count(*)
FROM latest_scores l CROSS JOIN LATERAL unnest(l.missing_tools) AS t(tool_name)
GROUP BY l.criteria_hash, t.tool_name
"""


def upgrade() -> None:
    op.create_table(
        "latest_scores",
        sa.Column("session_id", sa.String(255), primary_key=True),
        sa.Column("criteria_hash", sa.String(64), primary_key=True),
        sa.Column("score_id", postgresql.UUID(as_uuid=True), nullable=False),
        sa.Column("total_score", sa.Integer(), nullable=False),
        sa.Column("band", sa.String(20), nullable=False),
        sa.Column("logical_flow", sa.Integer()),
        sa.Column("consistency", sa.Integer()),
        sa.Column("tool_relevance", sa.Integer()),
        sa.Column("synthesis_quality", sa.Integer()),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("missing_tools", postgresql.ARRAY(sa.Text()), nullable=False, server_default=sa.text("'{}'")),
        sa.Column("previous_band", sa.String(20)),
        sa.Column("previous_missing_tools", postgresql.ARRAY(sa.Text())),
    )
    op.create_index(
        "ix_latest_scores_band_newest",
        "latest_scores",
        ["criteria_hash", "band", sa.text("scored_at DESC"), sa.text("score_id DESC")],
        postgresql_include=["session_id"],
    )
    op.create_table(
        "latest_score_tools",
        sa.Column("criteria_hash", sa.String(64), primary_key=True),
        sa.Column("session_id", sa.String(255), primary_key=True),
        sa.Column("tool_name", sa.String(255), primary_key=True),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("score_id", postgresql.UUID(as_uuid=True), nullable=False),
    )
    op.create_index(
        "ix_latest_score_tools_newest",
        "latest_score_tools",
        ["criteria_hash", "tool_name", sa.text("scored_at DESC"), sa.text("score_id DESC")],
        postgresql_include=["session_id"],
    )
    op.create_table(
        "latest_score_counts",
        sa.Column("criteria_hash", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(8), primary_key=True),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("sessions", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("kind IN ('band', 'tool')", name="ck_latest_score_counts_kind"),
    )
    op.execute(BACKFILL_LATEST)
    op.execute(BACKFILL_ANY_CRITERIA)
    op.execute(BACKFILL_TOOLS)
    op.execute(BACKFILL_COUNTS)


def downgrade() -> None:
    op.drop_table("latest_score_counts")
    op.drop_index("ix_latest_score_tools_newest", table_name="latest_score_tools")
    op.drop_table("latest_score_tools")
    op.drop_index("ix_latest_scores_band_newest", table_name="latest_scores")
    op.drop_table("latest_scores")
