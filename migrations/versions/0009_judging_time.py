"""The attempt's whole judging time and its estimated cost, beside the successful call's latency.

``judge_latency_ms`` covers only the call that returned the verdict; ``judging_ms`` is the whole judging of the
delivery that completed the attempt (every retry and wait in between included). ``estimated_cost_usd`` prices the
verdict's tokens with the ``pricing:`` table of the scoring configuration (null when the model has no price).

Revision ID: 0009_judging_time
Revises: 0005_scoring_runs
Create Date: 2026-11-23
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_judging_time"
down_revision = "0008_run_batches"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("session_scores", sa.Column("judging_ms", sa.Integer()))
    op.add_column("session_scores", sa.Column("estimated_cost_usd", sa.Numeric(12, 6)))


def downgrade() -> None:
    op.drop_column("session_scores", "estimated_cost_usd")
    op.drop_column("session_scores", "judging_ms")
