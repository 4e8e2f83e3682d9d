"""Sessions uploaded through POST /api/v1/scoring/sessions:import, stored for scoring.

Revision ID: 0003_uploaded_sessions
Revises: 0002_analytics
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0003_uploaded_sessions"
down_revision = "0002_analytics"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "uploaded_sessions",
        sa.Column("session_id", sa.String(64), primary_key=True),
        sa.Column("trace_format", sa.String(64), nullable=False),
        sa.Column("file_name", sa.String(255)),
        sa.Column("original_session_id", sa.String(255)),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("alert_type", sa.String(255)),
        sa.Column("agent_type", sa.String(255)),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("completed_at", sa.DateTime(timezone=True)),
        sa.Column("tool_calls", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("size_bytes", sa.Integer(), nullable=False),
        sa.Column("uploaded_by", sa.String(255), nullable=False),
        sa.Column("uploaded_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("session", postgresql.JSONB(), nullable=False),
        sa.Column("document", sa.Text(), nullable=False),
        sa.CheckConstraint("session_id LIKE 'upload:%'", name="ck_uploaded_sessions_id_prefix"),
    )
    op.create_index("ix_uploaded_sessions_uploaded_at", "uploaded_sessions", ["uploaded_at"])


def downgrade() -> None:
    op.drop_index("ix_uploaded_sessions_uploaded_at", table_name="uploaded_sessions")
    op.drop_table("uploaded_sessions")
