"""Read one session for the dashboard's conversation view, mapped to the API's own model."""

from __future__ import annotations

from dataclasses import dataclass

from session_scoring.models.api import SessionDetail
from session_scoring.models.session import Session
from session_scoring.sources.base import SessionSource


@dataclass(eq=False)
class SessionViewService:
    source: SessionSource

    def session_detail(self, session_id: str) -> SessionDetail:
        """The normalised session at its source (SessionNotFoundError when unknown)."""
        return to_session_detail(self.source.get_session(session_id))


def to_session_detail(session: Session) -> SessionDetail:
    """The domain session as the API model, read field by field (the domain may grow fields the API does not show)."""
    fields = {
        **dict(session),
        "title": session.title or session.alert_type,
        "available_tools": session.all_available_tools,
    }
    return SessionDetail.model_validate(fields, from_attributes=True)
