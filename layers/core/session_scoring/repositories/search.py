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


def _containing(text: str, *columns: Any) -> ColumnElement[bool]:
    return or_(*(column.icontains(text, autoescape=True) for column in columns))


class SearchRepository(StatementRepository):
    @db_call
    def uploads_matching(self, text: str, limit: int) -> list[SearchHitRecord]:
        """Uploads whose id, agent or alert type contains ``text``, newest first, each with its title."""
        u = _UPLOADS.c
        statement = (
            select(
                u.session_id,
                title_expression().label("title"),
                u.alert_type,
                u.agent_type.label("agent"),
                literal(UPLOAD_SOURCE).label("source"),
                u.uploaded_at.label("seen_at"),
            )
            .where(_containing(text, u.session_id, u.agent_type, u.alert_type))
            .order_by(u.uploaded_at.desc(), u.session_id)
            .limit(limit)
        )
        return [SearchHitRecord(**row._mapping) for row in self._all(statement)]

    @db_call
    def scored_matching(self, text: str, limit: int) -> list[SearchHitRecord]:
        """Scored sessions whose id, or agent or alert type (as their latest completed attempt recorded them),
        contains ``text``, the most recently scored first."""
        latest, s = _LATEST.c, _SCORES.c
        statement = (
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
            .order_by(latest.scored_at.desc(), latest.session_id)
            .limit(limit)
        )
        return [SearchHitRecord(**row._mapping) for row in self._all(statement)]
