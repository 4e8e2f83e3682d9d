"""Uploaded sessions in PostgreSQL (table ``uploaded_sessions``): the only SQL of the import feature.

The repository also reads as a session source (``name``, ``get_session``, ``list_sessions``), so the composite
source can list and score uploads beside the configured source. Their ids always start with ``upload:``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session as DbSession
from sqlalchemy.orm import sessionmaker

from session_scoring.db.calls import db_call
from session_scoring.db.orm import UploadedSessionRow
from session_scoring.errors import SessionNotFoundError
from session_scoring.models.session import Session, SessionPage, SessionSummary

UPLOAD_PREFIX = "upload:"
UPLOAD_SOURCE = "upload"


@dataclass(frozen=True)
class NewUpload:
    """What the import service stores: the normalised session (its id already ``upload:...``) and the document."""

    session: Session
    trace_format: str
    file_name: str | None
    original_session_id: str | None
    document: str
    size_bytes: int
    uploaded_by: str


def _summary(row: UploadedSessionRow) -> SessionSummary:
    return SessionSummary(
        session_id=row.session_id,
        status=row.status,
        alert_type=row.alert_type,
        agent_type=row.agent_type,
        started_at=row.started_at,
        completed_at=row.completed_at,
        author=row.uploaded_by,
        source=UPLOAD_SOURCE,
    )


class UploadRepository:
    name = UPLOAD_SOURCE

    def __init__(self, session_factory: sessionmaker[DbSession]) -> None:
        self._sessions = session_factory

    @staticmethod
    def owns(session_id: str) -> bool:
        return session_id.startswith(UPLOAD_PREFIX)

    @db_call
    def add(self, upload: NewUpload) -> None:
        session = upload.session
        with self._sessions.begin() as db:
            db.add(
                UploadedSessionRow(
                    session_id=session.session_id,
                    trace_format=upload.trace_format,
                    file_name=upload.file_name,
                    original_session_id=upload.original_session_id,
                    status=session.status,
                    alert_type=session.alert_type,
                    agent_type=session.agent_type,
                    started_at=session.started_at,
                    completed_at=session.completed_at,
                    tool_calls=len(session.tool_calls),
                    size_bytes=upload.size_bytes,
                    uploaded_by=upload.uploaded_by,
                    session=session.model_dump(mode="json"),
                    document=upload.document,
                )
            )

    @db_call
    def get_session(self, session_id: str) -> Session:
        with self._sessions() as db:
            stored = db.execute(
                select(UploadedSessionRow.session).where(UploadedSessionRow.session_id == session_id)
            ).scalar_one_or_none()
        if stored is None:
            raise SessionNotFoundError(
                f"uploaded session '{session_id}' was not found; upload it with POST /api/v1/scoring/sessions:import"
            )
        return Session.model_validate({**stored, "source": UPLOAD_SOURCE})

    @db_call
    def count(self, statuses: Sequence[str] = ()) -> int:
        query = select(func.count()).select_from(UploadedSessionRow)
        if statuses:
            query = query.where(UploadedSessionRow.status.in_(list(statuses)))
        with self._sessions() as db:
            return int(db.execute(query).scalar_one())

    @db_call
    def summaries(self, offset: int, limit: int, statuses: Sequence[str] = ()) -> list[SessionSummary]:
        """Newest upload first."""
        query = select(UploadedSessionRow).order_by(
            UploadedSessionRow.uploaded_at.desc(), UploadedSessionRow.session_id
        )
        if statuses:
            query = query.where(UploadedSessionRow.status.in_(list(statuses)))
        with self._sessions() as db:
            rows = db.execute(query.offset(offset).limit(limit)).scalars().all()
            return [_summary(row) for row in rows]

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        total = self.count(statuses)
        return SessionPage(
            items=self.summaries((page - 1) * page_size, page_size, statuses),
            page=page,
            page_size=page_size,
            total_items=total,
            total_pages=max(1, math.ceil(total / page_size)),
        )
