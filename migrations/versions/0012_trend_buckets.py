"""Trend buckets: the score trends and the criteria comparison answer from a few thousand rows at any scale.

``trend_members`` holds, per (criteria hash or ``'*'``, session), the latest completed score as the trends count it:
when, agent, alert type (the attempt's session facts), total and dimensions. ``trend_buckets`` holds, per criteria
hash, bucket (``day``: a UTC day; ``week``: the Monday of its week), grouping (``none``, ``agent``, ``alert_type``),
group and total score, the number of such sessions and the sum and count of each dimension (carried in the primary
key's index as included columns, so a trend is an index-only scan in output order): a trend's percentiles
(totals are integers 0-100, so a histogram gives ``percentile_cont``'s exact answer), means and band shares are sums
over it. Both are kept by the statement
that stores a verdict, as ``latest_scores`` is; ``previous`` is what the last update of a member replaced, read
back to take it out of its bucket.

``ix_latest_scores_criteria_session`` makes both sides of the criteria comparison's join index-only scans in
session order (a merge join), so the comparison aggregates the pairs in PostgreSQL and returns histograms.

The upgrade backfills both tables from ``latest_scores`` and the attempts' facts.

Revision ID: 0012_trend_buckets
Revises: 0011_canonical_tools
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0012_trend_buckets"
down_revision = "0011_canonical_tools"
branch_labels = None
depends_on = None

DIMENSIONS = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")
BUCKET_KEY = ("criteria_hash", "bucket", "group_by", "bucket_start", "group_unknown", "group_value", "total_score")

BACKFILL_MEMBERS = """
INSERT INTO trend_members (criteria_hash, session_id, score_id, scored_at, session_agent, session_alert_type,
                           total_score, logical_flow, consistency, tool_relevance, synthesis_quality)
SELECT l.criteria_hash, l.session_id, l.score_id, l.scored_at, s.session_agent, s.session_alert_type,
       l.total_score, l.logical_flow, l.consistency, l.tool_relevance, l.synthesis_quality
FROM latest_scores l JOIN session_scores s ON s.score_id = l.score_id
"""

BACKFILL_BUCKETS = """
INSERT INTO trend_buckets (criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value, total_score,
                           sessions,
                           logical_flow_sum, logical_flow_n, consistency_sum, consistency_n,
                           tool_relevance_sum, tool_relevance_n, synthesis_quality_sum, synthesis_quality_n)
SELECT m.criteria_hash, u.bucket, g.group_by, date_trunc(u.bucket, m.scored_at AT TIME ZONE 'UTC')::date,
       g.group_unknown, g.group_value, m.total_score, count(*), coalesce(sum(m.logical_flow), 0), count(m.logical_flow),
       coalesce(sum(m.consistency), 0), count(m.consistency), coalesce(sum(m.tool_relevance), 0),
       count(m.tool_relevance), coalesce(sum(m.synthesis_quality), 0), count(m.synthesis_quality)
FROM trend_members m
CROSS JOIN (VALUES ('day'), ('week')) AS u(bucket)
CROSS JOIN LATERAL (VALUES ('none', false, ''),
                           ('agent', m.session_agent IS NULL, coalesce(m.session_agent, '')),
                           ('alert_type', m.session_alert_type IS NULL, coalesce(m.session_alert_type, '')))
     AS g(group_by, group_unknown, group_value)
GROUP BY 1, 2, 3, 4, 5, 6, 7
"""


def upgrade() -> None:
    op.create_table(
        "trend_members",
        sa.Column("criteria_hash", sa.String(64), primary_key=True),
        sa.Column("session_id", sa.String(255), primary_key=True),
        sa.Column("score_id", postgresql.UUID(as_uuid=True), nullable=False),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("session_agent", sa.String(255)),
        sa.Column("session_alert_type", sa.String(255)),
        sa.Column("total_score", sa.Integer(), nullable=False),
        *(sa.Column(d, sa.Integer()) for d in DIMENSIONS),
        sa.Column("previous", postgresql.JSONB()),
    )
    op.create_table(
        "trend_buckets",
        sa.Column("criteria_hash", sa.String(64), nullable=False),
        sa.Column("bucket", sa.String(4), nullable=False),
        sa.Column("group_by", sa.String(10), nullable=False),
        sa.Column("bucket_start", sa.Date(), nullable=False),
        sa.Column("group_unknown", sa.Boolean(), nullable=False),
        sa.Column("group_value", sa.String(255), nullable=False),
        sa.Column("total_score", sa.Integer(), nullable=False),
        sa.Column("sessions", sa.Integer(), nullable=False),
        *(
            column
            for d in DIMENSIONS
            for column in (
                sa.Column(f"{d}_sum", sa.Integer(), nullable=False),
                sa.Column(f"{d}_n", sa.Integer(), nullable=False),
            )
        ),
        sa.CheckConstraint("bucket IN ('day', 'week')", name="ck_trend_buckets_bucket"),
        sa.CheckConstraint("group_by IN ('none', 'agent', 'alert_type')", name="ck_trend_buckets_group_by"),
        # The sums ride in the key's index: a trend is an index-only scan already in its output order (no heap
        # visits, no sort), which the planner then prefers to a bitmap scan plus a sort even for ~55,000 day rows.
        sa.PrimaryKeyConstraint(
            *BUCKET_KEY,
            name="trend_buckets_pkey",
            postgresql_include=[
                "sessions",
                *(f"{d}_{part}" for d in DIMENSIONS for part in ("sum", "n")),
            ],
        ),
    )
    op.create_index(
        "ix_latest_scores_criteria_session",
        "latest_scores",
        ["criteria_hash", "session_id"],
        postgresql_include=["total_score", *DIMENSIONS],
    )
    op.execute(BACKFILL_MEMBERS)
    op.execute(BACKFILL_BUCKETS)


def downgrade() -> None:
    op.drop_index("ix_latest_scores_criteria_session", table_name="latest_scores")
    op.drop_table("trend_buckets")
    op.drop_table("trend_members")
