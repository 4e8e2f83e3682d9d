"""Trend histograms: a trend reads one row per bucket and group, whatever the number of scores.

``trend_histograms`` replaces ``trend_buckets`` (0012): one row per criteria hash, bucket (``day``: a UTC day;
``week``: the Monday of its week), grouping (``none``, ``agent``, ``alert_type``) and group, holding the number of
sessions, ``totals`` (an ``int[]`` of 101 cells: the sessions with each total score 0-100, the histogram
``percentile_cont``'s exact answer comes from) and the sum and count of each dimension. A day trend at a million
scores reads about 900 rows instead of about 55,000 (one per total). The verdict statement keeps it, as it kept
``trend_buckets``; ``trend_members`` is unchanged.

The upgrade builds the histograms from ``trend_buckets`` (set-based: its rows per key folded into one array), then
drops it. The downgrade rebuilds ``trend_buckets`` from ``trend_members`` (its per-total dimension sums are not in
the histograms), as 0012's backfill does, and drops ``trend_histograms``.

Revision ID: 0015_trend_histograms
Revises: 0014_session_list
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_trend_histograms"
down_revision = "0014_session_list"
branch_labels = None
depends_on = None

DIMENSIONS = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")
HISTOGRAM_KEY = ("criteria_hash", "bucket", "group_by", "bucket_start", "group_unknown", "group_value")
SUMS = tuple(f"{d}_{part}" for d in DIMENSIONS for part in ("sum", "n"))

# Each key's non-empty cells (total, sessions) folded into the 101-cell array by a join with 0-100.
BACKFILL_HISTOGRAMS = """
INSERT INTO trend_histograms (criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value, sessions,
                              totals, logical_flow_sum, logical_flow_n, consistency_sum, consistency_n,
                              tool_relevance_sum, tool_relevance_n, synthesis_quality_sum, synthesis_quality_n)
SELECT k.criteria_hash, k.bucket, k.group_by, k.bucket_start, k.group_unknown, k.group_value, k.sessions,
       ARRAY(SELECT coalesce(c.n, 0) FROM generate_series(0, 100) AS g(t)
             LEFT JOIN unnest(k.cell_totals, k.cell_sessions) AS c(t, n) ON c.t = g.t ORDER BY g.t),
       k.logical_flow_sum, k.logical_flow_n, k.consistency_sum, k.consistency_n, k.tool_relevance_sum,
       k.tool_relevance_n, k.synthesis_quality_sum, k.synthesis_quality_n
FROM (SELECT criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value, sum(sessions)::int AS sessions,
             array_agg(total_score) FILTER (WHERE sessions <> 0) AS cell_totals,
             array_agg(sessions) FILTER (WHERE sessions <> 0) AS cell_sessions,
             sum(logical_flow_sum)::int AS logical_flow_sum, sum(logical_flow_n)::int AS logical_flow_n,
             sum(consistency_sum)::int AS consistency_sum, sum(consistency_n)::int AS consistency_n,
             sum(tool_relevance_sum)::int AS tool_relevance_sum, sum(tool_relevance_n)::int AS tool_relevance_n,
             sum(synthesis_quality_sum)::int AS synthesis_quality_sum,
             sum(synthesis_quality_n)::int AS synthesis_quality_n
      FROM trend_buckets
      GROUP BY criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value) AS k
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


def _key_columns() -> list[sa.Column[object]]:
    return [
        sa.Column("criteria_hash", sa.String(64), nullable=False),
        sa.Column("bucket", sa.String(4), nullable=False),
        sa.Column("group_by", sa.String(10), nullable=False),
        sa.Column("bucket_start", sa.Date(), nullable=False),
        sa.Column("group_unknown", sa.Boolean(), nullable=False),
        sa.Column("group_value", sa.String(255), nullable=False),
    ]


def _sum_columns() -> list[sa.Column[object]]:
    return [sa.Column(name, sa.Integer(), nullable=False) for name in SUMS]


def upgrade() -> None:
    op.create_table(
        "trend_histograms",
        *_key_columns(),
        sa.Column("sessions", sa.Integer(), nullable=False),
        sa.Column("totals", sa.ARRAY(sa.Integer()), nullable=False),
        *_sum_columns(),
        sa.CheckConstraint("bucket IN ('day', 'week')", name="ck_trend_histograms_bucket"),
        sa.CheckConstraint("group_by IN ('none', 'agent', 'alert_type')", name="ck_trend_histograms_group_by"),
        sa.CheckConstraint("cardinality(totals) = 101", name="ck_trend_histograms_totals"),
        sa.PrimaryKeyConstraint(*HISTOGRAM_KEY, name="trend_histograms_pkey"),
    )
    # Room on each page for the new version of a row the verdict statement increments: a HOT update (no indexed
    # column changes, so no index entry to add).
    op.execute("ALTER TABLE trend_histograms SET (fillfactor = 70)")
    op.execute(BACKFILL_HISTOGRAMS)
    op.drop_table("trend_buckets")


def downgrade() -> None:
    op.create_table(
        "trend_buckets",
        *_key_columns(),
        sa.Column("total_score", sa.Integer(), nullable=False),
        sa.Column("sessions", sa.Integer(), nullable=False),
        *_sum_columns(),
        sa.CheckConstraint("bucket IN ('day', 'week')", name="ck_trend_buckets_bucket"),
        sa.CheckConstraint("group_by IN ('none', 'agent', 'alert_type')", name="ck_trend_buckets_group_by"),
        sa.PrimaryKeyConstraint(
            *HISTOGRAM_KEY, "total_score", name="trend_buckets_pkey", postgresql_include=["sessions", *SUMS]
        ),
    )
    op.execute(BACKFILL_BUCKETS)
    op.drop_table("trend_histograms")
