"""Rubric: scores of any rubric, without a column per dimension.

- ``score_dimensions`` (score, dimension key, points, maximum): every completed score's points per dimension of its
  rubric, filled here from each existing score's ``score_breakdown`` (the maximum from its criteria's rubric; 25, the
  default rubric's, for criteria stored before rubrics, which carry none). Per-dimension analytics read it for
  whatever dimensions the criteria in scope have.
- ``score_failure_tags`` (score, tag): the failure tags of a rubric's closed vocabulary (existing scores have none).
- ``session_scores``: ``ceiling_value`` (the answer of the rubric's ceiling field), ``failure_tags`` and ``claims``.

The read models' per-dimension columns of the default rubric (``latest_scores``, ``trend_members``,
``trend_histograms``, ``comparison_cells``) are left as they are by this revision. The downgrade drops the new tables
and columns; the breakdown itself never left ``session_scores.score_breakdown``, so nothing is lost either way.

Revision ID: 0019_rubric
Revises: 0018_outcome
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0019_rubric"
down_revision = "0018_outcome"
branch_labels = None
depends_on = None

# A criteria definition without a rubric is the default rubric's, whose every dimension is worth 25 points (below).


def upgrade() -> None:
    op.add_column("session_scores", sa.Column("ceiling_value", sa.String(64)))
    op.add_column(
        "session_scores",
        sa.Column("failure_tags", postgresql.ARRAY(sa.Text()), nullable=False, server_default=sa.text("'{}'")),
    )
    op.add_column("session_scores", sa.Column("claims", postgresql.JSONB()))
    op.create_table(
        "score_dimensions",
        sa.Column(
            "score_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("session_scores.score_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("dimension_key", sa.String(64), primary_key=True),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("max_points", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "max_points > 0 AND points >= 0 AND points <= max_points", name="ck_score_dimensions_points"
        ),
    )
    op.create_table(
        "score_failure_tags",
        sa.Column(
            "score_id",
            postgresql.UUID(as_uuid=True),
            sa.ForeignKey("session_scores.score_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("tag", sa.String(64), primary_key=True),
    )
    # Every completed score's dimensions, as its breakdown has them; judge-quality samples are never counted by
    # analytics, and the verdict statement stores no dimensions of theirs either.
    op.execute(
        """
        INSERT INTO score_dimensions (score_id, dimension_key, points, max_points)
        SELECT s.score_id, d.key, (d.value #>> '{}')::integer,
               COALESCE(
                   (SELECT (dim ->> 'max_points')::integer
                      FROM jsonb_array_elements(c.criteria_content -> 'rubric' -> 'dimensions') AS dim
                     WHERE dim ->> 'key' = d.key),
                   25)
          FROM session_scores AS s
          JOIN scoring_criteria_definitions AS c ON c.criteria_hash = s.criteria_hash
          CROSS JOIN LATERAL jsonb_each(s.score_breakdown) AS d
         WHERE s.status = 'completed' AND s.sample_kind IS NULL AND jsonb_typeof(s.score_breakdown) = 'object'
        """
    )
    op.create_index("ix_score_dimensions_key", "score_dimensions", ["dimension_key", "score_id"])
    op.create_index("ix_score_failure_tags_tag", "score_failure_tags", ["tag", "score_id"])


def downgrade() -> None:
    op.drop_index("ix_score_failure_tags_tag", table_name="score_failure_tags")
    op.drop_table("score_failure_tags")
    op.drop_index("ix_score_dimensions_key", table_name="score_dimensions")
    op.drop_table("score_dimensions")
    op.drop_column("session_scores", "claims")
    op.drop_column("session_scores", "failure_tags")
    op.drop_column("session_scores", "ceiling_value")
