"""The ``SessionSource`` interface every source implements."""

from __future__ import annotations

from typing import Protocol

from session_scoring.models.session import Session, SessionPage


class SessionSource(Protocol):
    """Reads sessions from somewhere. Raises SessionNotFoundError, SourceUnavailableError or SessionDataError."""

    name: str

    def get_session(self, session_id: str) -> Session:
        """The whole investigation, normalised."""
        ...

    def list_sessions(self, page: int, page_size: int) -> SessionPage:
        """One page of sessions, newest first."""
        ...
