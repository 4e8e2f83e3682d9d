"""Finding sessions by a piece of their id, their agent or their alert type, in PostgreSQL: among the uploads and
among the sessions with a completed score (``latest_scores`` under any criteria, with the facts of that attempt).

The match is case-insensitive and anywhere in the text (``ILIKE '%...%'``, the user's ``%`` and ``_`` escaped), which
no B-tree index serves: each part scans its table's rows and stops at ``limit`` rows. Sessions of the configured
source never scored are not searched: TARSy offers no search, and the dashboard opens an exact id itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, literal, null, or_, select

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.db.schema import ANY_CRITERIA
from session_scoring.repositories.base import StatementRepository
from session_scoring.repositories.uploads import UPLOAD_SOURCE, title_expression

_UPLOADS = schema.uploaded_sessions
_LATEST = schema.latest_scores
_SCORES = schema.session_scores


@dataclass(frozen=True)
class SearchHitRecord:
    """A session the text was found in, with what names it."""

    session_id: str
    title: str | None
    alert_type: str | None
    agent: str | None
    source: str | None
    seen_at: datetime | None
    """When it was uploaded, or scored last: the newer first among equally good matches."""


class SearchRepository(StatementRepository):
    @db_call
    def matching(self, text: str, limit: int) -> list[SearchHitRecord]:
        """Up to ``limit`` uploads (newest first, each with its title), then up to ``limit`` scored sessions (the most
        recently scored first, with the agent and alert type their latest completed attempt recorded), whose id, agent
        or alert type contains ``text``."""
        u, latest, s = _UPLOADS.c, _LATEST.c, _SCORES.c
        uploads = select(
            u.session_id,
            title_expression().label("title"),
            u.alert_type,
            u.agent_type.label("agent"),
            literal(UPLOAD_SOURCE).label("source"),
            u.uploaded_at.label("seen_at"),
        ).where(_containing(text, u.session_id, u.agent_type, u.alert_type))
        scored = (
            select(
                latest.session_id,
                null().label("title"),
                s.session_alert_type.label("alert_type"),
                s.session_agent.label("agent"),
                s.session_source.label("source"),
                latest.scored_at.label("seen_at"),
            )
            .select_from(_LATEST.join(_SCORES, _SCORES.c.score_id == latest.score_id))
            .where(
                latest.criteria_hash == ANY_CRITERIA,
                _containing(text, latest.session_id, s.session_agent, s.session_alert_type),
            )
        )
        return [
            SearchHitRecord(**row._mapping)
            for statement, newest in ((uploads, u.uploaded_at), (scored, latest.scored_at))
            for row in self._all(statement.order_by(newest.desc(), statement.selected_columns.session_id).limit(limit))
        ]


def _containing(text: str, *columns: Any) -> ColumnElement[bool]:
    return or_(*(column.icontains(text, autoescape=True) for column in columns))
