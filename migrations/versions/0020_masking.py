"""Masking: how many secrets the masking step replaced in the session each score's judge saw.

- ``session_scores.masked_values``: JSONB, the count by group (``{"aws": 2, "kubernetes-secret": 3}``; ``{}`` when
  nothing was masked); null for every score stored before masking existed, so nothing is backfilled.

Revision ID: 0020_masking
Revises: 0018_outcome (the lead re-chains it after 0019_rubric at merge)
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0020_masking"
down_revision = "0019_rubric"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("session_scores", sa.Column("masked_values", postgresql.JSONB()))


def downgrade() -> None:
    op.drop_column("session_scores", "masked_values")
