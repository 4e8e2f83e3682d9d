"""Missing tools counted by canonical name, with per-tool counters by day, agent, spelling and availability.

- ``score_missing_tools.canonical_name``: what a tool the judge named is counted as (``models.tools``: case,
  whitespace and MCP server prefix; for scores stored from now on also matched against the session's available
  tools). The raw ``tool_name`` is kept. Backfilled here with ``CANONICAL_SQL``, the base form without a session:
  the source is not read, so the available-tools matching applies to scores stored after this migration.
- ``latest_scores.missing_tools``, ``latest_score_tools`` and the ``'tool'`` counters of ``latest_score_counts``
  are rebuilt keyed by canonical names.
- ``latest_tool_counts``: per (criteria hash, canonical tool) the sessions per UTC day of ``scored_at``, per week
  (its Monday: a 104-week trend reads 104 rows, not 728 days), per agent,
  per spelling as the judge wrote it, and how many had the tool available. ``latest_scores.tool_facets`` lists the
  counter keys a row counts in (``previous_tool_facets``: what its last update replaced), so the verdict statement
  can move a replaced score out of the counters. The backfill counts no session as having the tool available (the
  source is not read).

The backfill is set-based (each statement one pass over its tables, hash joins instead of a subquery per row) so
it fits a Lambda migration at a million scores: figures in docs/insights.md.

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

# Each latest row's tool names from one column of score_missing_tools, in one pass: the names aggregated per score
# and hash-joined to the rows (a correlated subquery per row took ~20 minutes at 1M scores).
LATEST_NAMES = """
UPDATE latest_scores l
SET missing_tools = COALESCE(n.names, '{{}}'), previous_missing_tools = NULL
FROM latest_scores x
LEFT JOIN (SELECT t.score_id, array_agg(DISTINCT t.{column} ORDER BY t.{column}) AS names
           FROM score_missing_tools t GROUP BY t.score_id) n ON n.score_id = x.score_id
WHERE x.criteria_hash = l.criteria_hash AND x.session_id = l.session_id;
"""

# Upgrade: each latest row's canonical tool names and counter keys, in one pass (one rewrite of every row): one
# spelling key per (tool, name as written), and per tool its scoring day, the Monday of that week and its agent.
LATEST_NAMES_AND_FACETS = """
UPDATE latest_scores l
SET missing_tools = f.names, previous_missing_tools = NULL, tool_facets = f.facets, previous_tool_facets = NULL
FROM (
    SELECT x.criteria_hash, x.session_id, COALESCE(n.names, '{}') AS names,
           COALESCE(n.spellings, '[]'::jsonb) || COALESCE(
               (SELECT jsonb_agg(jsonb_build_array(m.name, k.facet, k.value))
                FROM unnest(n.names) AS m(name)
                CROSS JOIN (VALUES ('day', to_char(x.scored_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')),
                                   ('week', to_char(date_trunc('week', x.scored_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')),
                                   ('agent', COALESCE(s.session_agent, ''))) AS k(facet, value)),
               '[]'::jsonb) AS facets
    FROM latest_scores x
    LEFT JOIN session_scores s ON s.score_id = x.score_id
    LEFT JOIN (SELECT t.score_id, array_agg(DISTINCT t.canonical_name ORDER BY t.canonical_name) AS names,
                      jsonb_agg(DISTINCT jsonb_build_array(t.canonical_name, 'spelling', t.tool_name)) AS spellings
               FROM score_missing_tools t GROUP BY t.score_id) n ON n.score_id = x.score_id
) f
WHERE f.criteria_hash = l.criteria_hash AND f.session_id = l.session_id;
"""

# The tool rows and the 'tool' counters rebuilt from the latest rows' names (TRUNCATE: nothing else is kept there).
LATEST_TOOL_ROWS = """
TRUNCATE latest_score_tools;
INSERT INTO latest_score_tools (criteria_hash, session_id, tool_name, scored_at, score_id)
SELECT l.criteria_hash, l.session_id, t.tool_name, l.scored_at, l.score_id
FROM latest_scores l CROSS JOIN LATERAL unnest(l.missing_tools) AS t(tool_name);
DELETE FROM latest_score_counts WHERE kind = 'tool';
INSERT INTO latest_score_counts (criteria_hash, kind, name, sessions)
SELECT l.criteria_hash, 'tool', t.tool_name, count(*)
FROM latest_scores l CROSS JOIN LATERAL unnest(l.missing_tools) AS t(tool_name)
GROUP BY l.criteria_hash, t.tool_name;
"""

# The per-tool counters summed from every latest row's keys.
TOOL_COUNTS = """
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
        sa.CheckConstraint(
            "facet IN ('day', 'week', 'agent', 'spelling', 'available')", name="ck_latest_tool_counts_facet"
        ),
    )
    op.create_index(
        "ix_latest_tool_counts_covering",
        "latest_tool_counts",
        ["criteria_hash", "tool_name", "facet", "value"],
        postgresql_include=["sessions"],
    )
    _run(LATEST_NAMES_AND_FACETS)
    _run(LATEST_TOOL_ROWS)
    _run(TOOL_COUNTS)


def downgrade() -> None:
    op.drop_table("latest_tool_counts")
    op.drop_column("latest_scores", "previous_tool_facets")
    op.drop_column("latest_scores", "tool_facets")
    _run(LATEST_NAMES.format(column="tool_name"))
    _run(LATEST_TOOL_ROWS)
    op.drop_column("score_missing_tools", "canonical_name")
