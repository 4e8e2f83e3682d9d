"""Mark attempts whose job went to the dead-letter queue, so a redriven message can claim them again.

Revision ID: 0004_dead_lettered
Revises: 0003_uploaded_sessions
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_dead_lettered"
down_revision = "0003_uploaded_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("session_scores", sa.Column("dead_lettered_at", sa.DateTime(timezone=True)))


def downgrade() -> None:
    op.drop_column("session_scores", "dead_lettered_at")
