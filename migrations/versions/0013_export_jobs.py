"""Export jobs: a training export written to S3 by the exporter function (in AWS an API answer is capped at 6 MB).

Adds ``export_jobs``: the kind, the parameters (criteria resolved when asked), the status (queued, running,
completed, failed), rows and bytes written, the S3 key, the error, who asked, and the created/started/finished times.

Revision ID: 0013_export_jobs
Revises: 0012_trend_buckets
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0013_export_jobs"
down_revision = "0012_trend_buckets"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "export_jobs",
        sa.Column("export_id", postgresql.UUID(as_uuid=True), primary_key=True),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("parameters", postgresql.JSONB(), nullable=False),
        sa.Column("status", sa.String(20), nullable=False, server_default="queued"),
        sa.Column("rows_written", sa.Integer()),
        sa.Column("bytes_written", sa.BigInteger()),
        sa.Column("s3_key", sa.String(1024)),
        sa.Column("error_message", sa.Text()),
        sa.Column("requested_by", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()),
        sa.Column("started_at", sa.DateTime(timezone=True)),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
        sa.CheckConstraint("kind IN ('training')", name="ck_export_jobs_kind"),
        sa.CheckConstraint("status IN ('queued', 'running', 'completed', 'failed')", name="ck_export_jobs_status"),
    )
    op.create_index("ix_export_jobs_created_at", "export_jobs", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_export_jobs_created_at", table_name="export_jobs")
    op.drop_table("export_jobs")
