"""Missing tools counted by canonical name, with per-tool counters by day, agent, spelling and availability.

- ``score_missing_tools.canonical_name``: what a tool the judge named is counted as (``models.tools``: case,
  whitespace and MCP server prefix; for scores stored from now on also matched against the session's available
  tools). The raw ``tool_name`` is kept. Backfilled here with ``CANONICAL_SQL``, the base form without a session:
  the source is not read, so the available-tools matching applies to scores stored after this migration.
- ``latest_scores.missing_tools``, ``latest_score_tools`` and the ``'tool'`` counters of ``latest_score_counts``
  are rebuilt keyed by canonical names.
- ``latest_tool_counts``: per (criteria hash, canonical tool) the sessions per UTC day of ``scored_at``, per agent,
  per spelling as the judge wrote it, and how many had the tool available. ``latest_scores.tool_facets`` lists the
  counter keys a row counts in (``previous_tool_facets``: what its last update replaced), so the verdict statement
  can move a replaced score out of the counters. The backfill counts no session as having the tool available (the
  source is not read).

Revision ID: 0011_canonical_tools
Revises: 0010_judge_labels
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0011_canonical_tools"
down_revision = "0010_judge_labels"
branch_labels = None
depends_on = None


def canonical_sql(name: str) -> str:
    """``models.tools.canonical_tool_name`` in SQL (the two agree: tests/integration/test_canonical_tools.py)."""
    collapsed = rf"regexp_replace(btrim({name}), '\s+', ' ', 'g')"
    bare = rf"lower(btrim(regexp_replace({collapsed}, '^.*(\.|__|/|:)', '')))"
    return f"coalesce(nullif({bare}, ''), lower(btrim({collapsed})))"


CANONICAL_SQL = canonical_sql("tool_name")

# The latest rows' tool names, their tool rows and tool counters rebuilt from one column of score_missing_tools.
REBUILD_LATEST_TOOLS = """
UPDATE latest_scores l
SET missing_tools = ARRAY(SELECT DISTINCT t.{column} FROM score_missing_tools t
                          WHERE t.score_id = l.score_id ORDER BY 1),
    previous_missing_tools = NULL;
DELETE FROM latest_score_tools;
INSERT INTO latest_score_tools (criteria_hash, session_id, tool_name, scored_at, score_id)
SELECT l.criteria_hash, l.session_id, t.tool_name, l.scored_at, l.score_id
FROM latest_scores l CROSS JOIN LATERAL unnest(l.missing_tools) AS t(tool_name);
DELETE FROM latest_score_counts WHERE kind = 'tool';
INSERT INTO latest_score_counts (criteria_hash, kind, name, sessions)
SELECT l.criteria_hash, 'tool', t.tool_name, count(*)
FROM latest_scores l CROSS JOIN LATERAL unnest(l.missing_tools) AS t(tool_name)
GROUP BY l.criteria_hash, t.tool_name;
"""

# Each latest row's counter keys: one spelling per (tool, name as written), its scoring day and its agent per tool.
BACKFILL_FACETS = """
UPDATE latest_scores l
SET previous_tool_facets = NULL,
    tool_facets = COALESCE(
        (SELECT jsonb_agg(DISTINCT jsonb_build_array(t.canonical_name, 'spelling', t.tool_name))
         FROM score_missing_tools t WHERE t.score_id = l.score_id), '[]'::jsonb)
    || COALESCE(
        (SELECT jsonb_agg(jsonb_build_array(n.name, f.facet, f.value))
         FROM unnest(l.missing_tools) AS n(name)
         CROSS JOIN LATERAL (VALUES ('day', to_char(l.scored_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')),
                                    ('agent', COALESCE((SELECT s.session_agent FROM session_scores s
                                                        WHERE s.score_id = l.score_id), ''))) AS f(facet, value)),
        '[]'::jsonb);
INSERT INTO latest_tool_counts (criteria_hash, tool_name, facet, value, sessions)
SELECT l.criteria_hash, e ->> 0, e ->> 1, e ->> 2, count(*)
FROM latest_scores l CROSS JOIN LATERAL jsonb_array_elements(l.tool_facets) AS e
GROUP BY 1, 2, 3, 4;
"""


def _run(script: str) -> None:
    """One statement at a time (the driver takes one per execute)."""
    for statement in filter(str.strip, script.split(";")):
        op.execute(statement)


def upgrade() -> None:
    op.add_column("score_missing_tools", sa.Column("canonical_name", sa.String(255)))
    op.execute(f"UPDATE score_missing_tools SET canonical_name = {CANONICAL_SQL}")  # noqa: S608 - our own SQL
    op.add_column(
        "latest_scores",
        sa.Column("tool_facets", postgresql.JSONB(), nullable=False, server_default=sa.text("'[]'::jsonb")),
    )
    op.add_column("latest_scores", sa.Column("previous_tool_facets", postgresql.JSONB()))
    op.create_table(
        "latest_tool_counts",
        sa.Column("criteria_hash", sa.String(64), primary_key=True),
        sa.Column("tool_name", sa.String(255), primary_key=True),
        sa.Column("facet", sa.String(10), primary_key=True),
        sa.Column("value", sa.String(255), primary_key=True),
        sa.Column("sessions", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("facet IN ('day', 'agent', 'spelling', 'available')", name="ck_latest_tool_counts_facet"),
    )
    op.create_index(
        "ix_latest_tool_counts_covering",
        "latest_tool_counts",
        ["criteria_hash", "tool_name", "facet", "value"],
        postgresql_include=["sessions"],
    )
    _run(REBUILD_LATEST_TOOLS.format(column="canonical_name"))
    _run(BACKFILL_FACETS)


def downgrade() -> None:
    op.drop_table("latest_tool_counts")
    op.drop_column("latest_scores", "previous_tool_facets")
    op.drop_column("latest_scores", "tool_facets")
    _run(REBUILD_LATEST_TOOLS.format(column="tool_name"))
    op.drop_column("score_missing_tools", "canonical_name")
