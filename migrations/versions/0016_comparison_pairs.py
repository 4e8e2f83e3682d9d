"""Comparison pairs: the criteria comparison answers from one pair's histograms and a few index rows at any scale.

``comparison_pairs`` holds, per unordered pair of criteria hashes (``low_hash`` the lesser in code point order; never
``'*'``) and session scored under both, the two latest totals and their delta: the movers each way and the scatter's
sample are index scans that stop after a few rows. ``comparison_cells`` holds the pair's histograms: sessions per
(low total, high total) and, per dimension, per delta of the points (both present). Both are kept by the statement
that stores a verdict (``repositories/comparison.py``), as ``latest_scores`` is; a comparison reads its pair's rows
and flips them when the base is the higher hash.

The upgrade backfills both from ``latest_scores`` (one self-join each).

Revision ID: 0016_comparison_pairs
Revises: 0015_trend_histograms
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016_comparison_pairs"
down_revision = "0015_trend_histograms"
branch_labels = None
depends_on = None

DIMENSIONS = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")

# Each session's latest rows under two different criteria hashes (not '*'), the lesser hash (code point order) as l.
BACKFILL_PAIRS = """
INSERT INTO comparison_pairs (low_hash, high_hash, session_id, low_total, high_total)
SELECT l.criteria_hash, h.criteria_hash, l.session_id, l.total_score, h.total_score
FROM latest_scores l
JOIN latest_scores h ON h.session_id = l.session_id AND l.criteria_hash COLLATE "C" < h.criteria_hash COLLATE "C"
WHERE l.criteria_hash <> '*' AND h.criteria_hash <> '*'
"""

BACKFILL_CELLS = """
INSERT INTO comparison_cells (low_hash, high_hash, kind, a, b, sessions)
SELECT l.criteria_hash, h.criteria_hash, v.kind, v.a, v.b, count(*)
FROM latest_scores l
JOIN latest_scores h ON h.session_id = l.session_id AND l.criteria_hash COLLATE "C" < h.criteria_hash COLLATE "C"
CROSS JOIN LATERAL (VALUES ('total', l.total_score, h.total_score),
                           ('logical_flow', h.logical_flow - l.logical_flow, 0),
                           ('consistency', h.consistency - l.consistency, 0),
                           ('tool_relevance', h.tool_relevance - l.tool_relevance, 0),
                           ('synthesis_quality', h.synthesis_quality - l.synthesis_quality, 0)) AS v(kind, a, b)
WHERE l.criteria_hash <> '*' AND h.criteria_hash <> '*' AND v.a IS NOT NULL
GROUP BY 1, 2, 3, 4, 5
"""


def upgrade() -> None:
    op.create_table(
        "comparison_pairs",
        sa.Column("low_hash", sa.String(64), nullable=False),
        sa.Column("high_hash", sa.String(64), nullable=False),
        sa.Column("session_id", sa.String(255, collation="C"), nullable=False),
        sa.Column("low_total", sa.Integer(), nullable=False),
        sa.Column("high_total", sa.Integer(), nullable=False),
        sa.Column("delta", sa.Integer(), sa.Computed("high_total - low_total", persisted=True)),
        sa.PrimaryKeyConstraint(
            "low_hash",
            "high_hash",
            "session_id",
            name="comparison_pairs_pkey",
            postgresql_include=["low_total", "high_total"],
        ),
    )
    op.create_table(
        "comparison_cells",
        sa.Column("low_hash", sa.String(64), nullable=False),
        sa.Column("high_hash", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("a", sa.Integer(), nullable=False),
        sa.Column("b", sa.Integer(), nullable=False),
        sa.Column("sessions", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "kind IN ('total', " + ", ".join(f"'{d}'" for d in DIMENSIONS) + ")", name="ck_comparison_cells_kind"
        ),
        sa.PrimaryKeyConstraint(
            "low_hash", "high_hash", "kind", "a", "b", name="comparison_cells_pkey", postgresql_include=["sessions"]
        ),
    )
    op.execute(BACKFILL_PAIRS)
    op.execute(BACKFILL_CELLS)
    # Built after the backfill: one sort each instead of an index insert per row.
    op.create_index("ix_comparison_pairs_rising", "comparison_pairs", ["low_hash", "high_hash", "delta", "session_id"])
    op.create_index(
        "ix_comparison_pairs_falling",
        "comparison_pairs",
        ["low_hash", "high_hash", sa.text("delta DESC"), "session_id"],
    )


def downgrade() -> None:
    op.drop_table("comparison_cells")
    op.drop_table("comparison_pairs")
