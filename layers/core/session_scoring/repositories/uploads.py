"""Uploaded sessions in PostgreSQL (table ``uploaded_sessions``), ids ``upload:...``: the composite source lists and
reads them beside the configured source.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, String, cast, func, insert, literal, literal_column, select, text
from sqlalchemy.dialects.postgresql import JSONPATH
from sqlalchemy.sql.expression import ColumnClause

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.errors import SessionNotFoundError
from session_scoring.models.records import SessionFacts, SessionOutline
from session_scoring.models.session import Session, SessionSummary
from session_scoring.repositories.base import StatementRepository, from_row

_UPLOADS = schema.uploaded_sessions
_SESSION_COLUMNS = ("session_id", "status", "alert_type", "agent_type", "started_at", "completed_at")
"""The columns an upload stores as its normalised session has them."""

_SUMMARY_COLUMNS = [*[_UPLOADS.c[name] for name in _SESSION_COLUMNS], _UPLOADS.c.uploaded_by.label("author")]
"""What a listing reads of an upload: never the stored session or the document (each up to megabytes)."""

_FIRST_STAGE_AGENT = '$.stages[*] ? (@.agent != null && @.agent != "").agent'
"""The agent of the first stage that names one (a session's agent when its own ``agent_type`` is empty)."""

_AS_TEXT: ColumnClause[Any] = literal_column("'{}'")
"""``jsonb #>> '{}'``: a JSON string as text (the path as a literal: PostgreSQL types it ``text[]``)."""

UPLOAD_PREFIX = "upload:"
UPLOAD_SOURCE = "upload"

TITLE_LENGTH = 200
_TASK_PATH = '$.stages[*].steps[*] ? (@.kind == "message" && @.text starts with "User: ").text'
"""The first user turn of a transcript: the normalised session writes each as a ``message`` step ``User: ...``."""


def title_expression() -> ColumnElement[str]:
    """An upload's title: its first user message (without ``User: ``) on one line, at most ``TITLE_LENGTH``
    characters, or null; computed in SQL for the rows a statement returns only."""
    first = func.jsonb_path_query_first(_UPLOADS.c.session, cast(literal(_TASK_PATH), JSONPATH))
    text = func.jsonb_build_array(first).op("->>")(0)
    one_line = func.regexp_replace(func.substr(text, len("User: ") + 1, 2 * TITLE_LENGTH), r"\s+", " ", "g")
    return func.left(func.btrim(one_line), TITLE_LENGTH)


def _length(column: Any) -> int | None:
    return column.type.length if isinstance(column.type, String) else None


NAME_COLUMNS = {
    "alert_type": _length(_UPLOADS.c.alert_type),
    "agent_type": _length(_UPLOADS.c.agent_type),
    "session_id": _length(_UPLOADS.c.original_session_id),
}
"""The longest alert type, agent type and original session id an upload's columns hold (characters)."""


@dataclass(frozen=True)
class PagedStep:
    """One step of a session read on its own: its stage's and its own position, and the step as stored."""

    stage_index: int
    step_index: int
    step: dict[str, Any]


_STEPS_TOTAL = text(
    """SELECT coalesce(sum(jsonb_array_length(coalesce(stage->'steps', '[]'::jsonb))), 0)
    FROM uploaded_sessions u, jsonb_array_elements(coalesce(u.session->'stages', '[]'::jsonb)) AS stage
    WHERE u.session_id = :session_id"""
)

_HEAD = text(
    """SELECT u.session - 'stages' AS head, u.uploaded_by,
        (SELECT coalesce(jsonb_agg(stage - 'steps' ORDER BY n), '[]'::jsonb)
         FROM jsonb_array_elements(coalesce(u.session->'stages', '[]'::jsonb)) WITH ORDINALITY AS s(stage, n)) AS stages
    FROM uploaded_sessions u WHERE u.session_id = :session_id"""
)
"""An upload without its steps: the session's fields and each stage's own (a few kilobytes of a megabytes document,
cut by PostgreSQL)."""

_STEP_PAGE = text(
    """SELECT stage_index, step_index, step FROM (
        SELECT stage_index, step_index, step,
            sum(octet_length(step::text)) OVER (ORDER BY stage_index, step_index) AS upto,
            row_number() OVER (ORDER BY stage_index, step_index) AS k
        FROM (
            SELECT s.n - 1 AS stage_index, st.m - 1 AS step_index, st.step
            FROM uploaded_sessions u,
                jsonb_array_elements(coalesce(u.session->'stages', '[]'::jsonb)) WITH ORDINALITY AS s(stage, n),
                jsonb_array_elements(coalesce(s.stage->'steps', '[]'::jsonb)) WITH ORDINALITY AS st(step, m)
            WHERE u.session_id = :session_id
            ORDER BY s.n, st.m OFFSET :offset LIMIT :limit
        ) page
    ) sized
    WHERE upto <= :max_bytes OR k = 1
    ORDER BY stage_index, step_index"""
)
"""Up to ``limit`` steps from ``offset`` (across the stages, in order), no more than ``max_bytes`` of them as JSON
text (the first step whatever its size), cut in PostgreSQL."""


@dataclass(frozen=True)
class NewUpload:
    """What the import service stores: the normalised session (its id already ``upload:...``) and the document; the
    other fields are columns of the same names."""

    session: Session
    trace_format: str
    file_name: str | None
    original_session_id: str | None
    document: str
    size_bytes: int
    uploaded_by: str


def _not_found(session_id: str) -> SessionNotFoundError:
    return SessionNotFoundError(
        f"uploaded session '{session_id}' was not found; upload it with POST /api/v1/scoring/sessions:import"
    )


class UploadRepository(StatementRepository):
    name = UPLOAD_SOURCE

    @staticmethod
    def owns(session_id: str) -> bool:
        return session_id.startswith(UPLOAD_PREFIX)

    @db_call
    def add_all(self, uploads: Sequence[NewUpload]) -> None:
        """Store the sessions of one upload in one statement: all of them, or none (a document holding many
        trajectories is never stored in part)."""
        rows = [
            {
                **vars(upload),
                **upload.session.model_dump(include=set(_SESSION_COLUMNS)),
                "tool_calls": len(upload.session.tool_calls),
                "session": upload.session.model_dump(mode="json"),
            }
            for upload in uploads
        ]
        if not rows:
            return
        with self._engine.begin() as conn:
            conn.execute(insert(_UPLOADS).values(rows))

    @db_call
    def get_session(self, session_id: str) -> Session:
        query = select(_UPLOADS.c.session, _UPLOADS.c.uploaded_by, title_expression().label("title"))
        row = self._one(query.where(_UPLOADS.c.session_id == session_id))
        if row is None:
            raise _not_found(session_id)
        # Who submitted it is who uploaded it: the document's own "author" is its claim, kept as the recording's.
        attribution = {"author": row.uploaded_by, "recording_author": row.session.get("author")}
        return Session.model_validate({**row.session, **attribution, "source": UPLOAD_SOURCE, "title": row.title})

    @db_call
    def session_head(self, session_id: str) -> tuple[Session, int]:
        """The upload without any step (its stages' own fields kept), attributed as :meth:`get_session` does, and how
        many steps it has: what the first page of the session view needs beside a page of steps."""
        with self._engine.connect() as conn:
            row = conn.execute(_HEAD, {"session_id": session_id}).first()
            if row is None:
                raise _not_found(session_id)
            total = int(conn.execute(_STEPS_TOTAL, {"session_id": session_id}).scalar_one())
            title = conn.execute(select(title_expression()).where(_UPLOADS.c.session_id == session_id)).scalar()
        head = dict(row.head)
        attribution = {"author": row.uploaded_by, "recording_author": head.get("author")}
        session = Session.model_validate(
            {**head, **attribution, "stages": row.stages, "source": UPLOAD_SOURCE, "title": title}
        )
        return session, total

    @db_call
    def step_page(self, session_id: str, offset: int, limit: int, max_bytes: int) -> list[PagedStep]:
        """Up to ``limit`` steps of the upload from ``offset``, no more than ``max_bytes`` of them (at least one),
        read in PostgreSQL: the API process holds one page, never the document."""
        params = {"session_id": session_id, "offset": offset, "limit": limit, "max_bytes": max_bytes}
        with self._engine.connect() as conn:
            rows = conn.execute(_STEP_PAGE, params).all()
        return [PagedStep(int(row.stage_index), int(row.step_index), dict(row.step)) for row in rows]

    @db_call
    def outline(self, session_id: str) -> SessionOutline:
        """The upload's status and facts, from its columns and two figures PostgreSQL reads out of the stored session
        (its stage count and first agent): a few hundred bytes, where ``get_session`` reads megabytes."""
        session = _UPLOADS.c.session
        agent = func.coalesce(
            func.nullif(_UPLOADS.c.agent_type, ""),
            func.jsonb_path_query_first(session, cast(_FIRST_STAGE_AGENT, JSONPATH)).op("#>>")(_AS_TEXT),
        )
        query = select(
            _UPLOADS.c.status,
            agent.label("agent"),
            _UPLOADS.c.alert_type,
            _UPLOADS.c.started_at,
            _UPLOADS.c.completed_at.label("ended_at"),
            func.coalesce(func.jsonb_array_length(session["stages"]), 0).label("stages"),
            _UPLOADS.c.tool_calls,
        ).where(_UPLOADS.c.session_id == session_id)
        row = self._one(query)
        if row is None:
            raise _not_found(session_id)
        return SessionOutline(
            session_id, row.status, from_row(SessionFacts, row, source=UPLOAD_SOURCE, captured_at=None)
        )

    @db_call
    def count(self, statuses: Sequence[str] = ()) -> int:
        query = select(func.count()).select_from(_UPLOADS)
        if statuses:
            query = query.where(_UPLOADS.c.status.in_(list(statuses)))
        row = self._one(query)
        return int(row[0]) if row is not None else 0

    @db_call
    def summaries(self, offset: int, limit: int, statuses: Sequence[str] = ()) -> list[SessionSummary]:
        """Newest upload first, each with its title (computed for the page's rows only)."""
        order = (_UPLOADS.c.uploaded_at.desc(), _UPLOADS.c.session_id)
        page = select(_UPLOADS.c.session_id).order_by(*order)
        if statuses:
            page = page.where(_UPLOADS.c.status.in_(list(statuses)))
        keys = page.offset(offset).limit(limit).subquery("page")
        query = (
            select(*_SUMMARY_COLUMNS, title_expression().label("title"))
            .select_from(_UPLOADS.join(keys, keys.c.session_id == _UPLOADS.c.session_id))
            .order_by(*order)
        )
        return [SessionSummary(**row._mapping, source=UPLOAD_SOURCE) for row in self._all(query)]

    @db_call
    def authors(self, session_ids: Sequence[str]) -> dict[str, str]:
        """Who uploaded those of these sessions that are uploads (primary-key lookups): their "submitted by"."""
        ids = [session_id for session_id in session_ids if self.owns(session_id)]
        if not ids:
            return {}
        query = select(_UPLOADS.c.session_id, _UPLOADS.c.uploaded_by).where(_UPLOADS.c.session_id.in_(ids))
        return {row.session_id: row.uploaded_by for row in self._all(query)}

    @db_call
    def titles(self, session_ids: Sequence[str]) -> dict[str, str]:
        """The titles of those of these sessions that are uploads and have one (primary-key lookups)."""
        ids = [session_id for session_id in session_ids if self.owns(session_id)]
        if not ids:
            return {}
        query = select(_UPLOADS.c.session_id, title_expression().label("title")).where(_UPLOADS.c.session_id.in_(ids))
        return {row.session_id: row.title for row in self._all(query) if row.title}
