"""Dimension maps: the read models keep a score's dimensions whatever its rubric, with no column per dimension.

- ``latest_scores.dimensions`` and ``trend_members.dimensions``: JSONB, key -> points, replacing the default rubric's
  four columns (a member's ``previous`` keeps its replaced dimensions under ``dimensions`` too).
- ``trend_dimension_sums`` (a ``trend_histograms`` key, a dimension key, the points summed, the members counted):
  replacing the histograms' eight ``<dimension>_sum`` / ``<dimension>_n`` columns.
- ``comparison_cells.kind``: a dimension's deltas are kind ``dim:<key>`` (``ref_dim:<key>``), any key; was the bare
  name of one of the four.

The upgrade moves every value (none is recomputed). The downgrade gives the four columns back from the maps; a
dimension of another rubric has no column in the previous release, so its read-model rows are dropped there (the
scores keep it in ``score_breakdown`` and ``score_dimensions``, and a read-model rebuild on upgrade restores it).
Columns restored by the downgrade come after the table's other columns.

Revision ID: 0021_dimension_maps
Revises: 0020_masking
Create Date: 2026-12-02
"""

# ruff: noqa: S608 - every statement here is built from this module's own constants, never from input
from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0021_dimension_maps"
down_revision = "0020_masking"
branch_labels = None
depends_on = None

# The default rubric's dimensions, frozen as the columns of migrations 0006, 0012 and 0015 named them.
_FOUR = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")
_HISTOGRAM_KEY = "criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value"
_KINDS_BEFORE = "kind IN ({})".format(
    ", ".join(f"'{prefix}{kind}'" for prefix in ("", "ref_") for kind in ("total", *_FOUR))
)
_KINDS_AFTER = "kind ~ '^(ref_)?(total|dim:[a-z][a-z0-9_]{0,62})$'"


def _map() -> str:
    """A row's four columns as one JSON object, nulls left out."""
    pairs = ", ".join(f"'{d}', {d}" for d in _FOUR)
    return f"jsonb_strip_nulls(jsonb_build_object({pairs}))"


def upgrade() -> None:
    for table in ("latest_scores", "trend_members"):
        op.add_column(
            table, sa.Column("dimensions", postgresql.JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb"))
        )
    op.execute(f"UPDATE latest_scores SET dimensions = {_map()}")
    rest = " - ".join(["previous", *(f"'{d}'" for d in _FOUR)])
    replaced = ", ".join(f"'{d}', previous -> '{d}'" for d in _FOUR)
    op.execute(
        f"UPDATE trend_members SET dimensions = {_map()}, "
        f"previous = CASE WHEN previous IS NULL THEN NULL ELSE ({rest}) "
        f"|| jsonb_build_object('dimensions', jsonb_strip_nulls(jsonb_build_object({replaced}))) END"
    )
    op.drop_index("ix_latest_scores_criteria_session", table_name="latest_scores")
    op.create_index(
        "ix_latest_scores_criteria_session",
        "latest_scores",
        ["criteria_hash", "session_id"],
        postgresql_include=["total_score", "dimensions"],
    )
    for table in ("latest_scores", "trend_members"):
        for dimension in _FOUR:
            op.drop_column(table, dimension)

    op.create_table(
        "trend_dimension_sums",
        sa.Column("criteria_hash", sa.String(64), primary_key=True),
        sa.Column("bucket", sa.String(4), primary_key=True),
        sa.Column("group_by", sa.String(10), primary_key=True),
        sa.Column("bucket_start", sa.Date(), primary_key=True),
        sa.Column("group_unknown", sa.Boolean(), primary_key=True),
        sa.Column("group_value", sa.String(255), primary_key=True),
        sa.Column("dimension_key", sa.String(64), primary_key=True),
        sa.Column("points", sa.BigInteger(), nullable=False),
        sa.Column("sessions", sa.Integer(), nullable=False),
    )
    op.execute(
        f"INSERT INTO trend_dimension_sums ({_HISTOGRAM_KEY}, dimension_key, points, sessions) "
        + " UNION ALL ".join(
            f"SELECT {_HISTOGRAM_KEY}, '{d}', {d}_sum, {d}_n FROM trend_histograms WHERE {d}_n <> 0 OR {d}_sum <> 0"
            for d in _FOUR
        )
    )
    for dimension in _FOUR:
        for part in ("sum", "n"):
            op.drop_column("trend_histograms", f"{dimension}_{part}")

    op.drop_constraint("ck_comparison_cells_kind", "comparison_cells", type_="check")
    op.alter_column("comparison_cells", "kind", type_=sa.String(80), existing_nullable=False)
    op.execute(
        "UPDATE comparison_cells SET kind = regexp_replace(kind, '^(ref_)?', '\\1dim:') "
        "WHERE kind NOT IN ('total', 'ref_total')"
    )
    op.create_check_constraint("ck_comparison_cells_kind", "comparison_cells", _KINDS_AFTER)


def downgrade() -> None:
    op.drop_constraint("ck_comparison_cells_kind", "comparison_cells", type_="check")
    op.execute(
        "DELETE FROM comparison_cells WHERE kind NOT IN ('total', 'ref_total') "
        "AND regexp_replace(kind, '^(ref_)?dim:', '') NOT IN ({})".format(", ".join(f"'{d}'" for d in _FOUR))
    )
    op.execute("UPDATE comparison_cells SET kind = replace(kind, 'dim:', '') WHERE kind LIKE '%dim:%'")
    op.alter_column("comparison_cells", "kind", type_=sa.String(32), existing_nullable=False)
    op.create_check_constraint("ck_comparison_cells_kind", "comparison_cells", _KINDS_BEFORE)

    for dimension in _FOUR:
        for part in ("sum", "n"):
            op.add_column(
                "trend_histograms",
                sa.Column(f"{dimension}_{part}", sa.Integer(), nullable=False, server_default=sa.text("0")),
            )
    sums = ", ".join(
        f"{d}_{part} = coalesce((SELECT {column} FROM trend_dimension_sums s WHERE "
        + " AND ".join(f"s.{k} = h.{k}" for k in _HISTOGRAM_KEY.split(", "))
        + f" AND s.dimension_key = '{d}'), 0)"
        for d in _FOUR
        for part, column in (("sum", "points"), ("n", "sessions"))
    )
    op.execute(f"UPDATE trend_histograms h SET {sums}")
    for dimension in _FOUR:
        for part in ("sum", "n"):
            op.alter_column("trend_histograms", f"{dimension}_{part}", server_default=None)
    op.drop_table("trend_dimension_sums")

    for table in ("latest_scores", "trend_members"):
        for dimension in _FOUR:
            op.add_column(table, sa.Column(dimension, sa.Integer()))
    columns = ", ".join(f"{d} = (dimensions ->> '{d}')::integer" for d in _FOUR)
    op.execute(f"UPDATE latest_scores SET {columns}")
    previous = ", ".join(f"'{d}', previous -> 'dimensions' -> '{d}'" for d in _FOUR)
    op.execute(
        f"UPDATE trend_members SET {columns}, "
        "previous = CASE WHEN previous IS NULL THEN NULL ELSE "
        f"(previous - 'dimensions') || jsonb_build_object({previous}) END"
    )
    op.drop_index("ix_latest_scores_criteria_session", table_name="latest_scores")
    op.create_index(
        "ix_latest_scores_criteria_session",
        "latest_scores",
        ["criteria_hash", "session_id"],
        postgresql_include=["total_score", *_FOUR],
    )
    for table in ("latest_scores", "trend_members"):
        op.drop_column(table, "dimensions")
