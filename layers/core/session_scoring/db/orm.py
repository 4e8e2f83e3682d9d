"""The ORM class of the one repository that writes through ORM sessions (runs), mapped onto its Core table of
``db/schema.py``.

Kept apart from the tables so that importing a table never imports SQLAlchemy's ORM: a request that only reads
(the score GET) does not pay for the ORM or a mapper. The annotations type the attributes; the columns, their types
and constraints are the tables' own.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.orm import DeclarativeBase, Mapped

from session_scoring.db import schema


class Base(DeclarativeBase):
    metadata = schema.metadata


class ScoringRunRow(Base):
    """A scoring run (table ``scoring_runs``)."""

    __table__ = schema.scoring_runs

    run_id: Mapped[uuid.UUID]
    name: Mapped[str]
    status: Mapped[str]
    mode: Mapped[str]
    selection: Mapped[dict[str, Any]]
    max_sessions: Mapped[int]
    max_cost_usd: Mapped[Decimal | None]
    criteria_hash: Mapped[str]
    judge_model: Mapped[str]
    started_by: Mapped[str]
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    planned_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    next_page: Mapped[int]
    sessions_seen: Mapped[int]
    sessions_selected: Mapped[int]
    skipped: Mapped[dict[str, Any]]
    estimated_input_tokens: Mapped[int | None]
    estimated_output_tokens: Mapped[int | None]
    estimated_cost_per_session_usd: Mapped[Decimal | None]
    stop_reason: Mapped[str | None]
    error_message: Mapped[str | None]
