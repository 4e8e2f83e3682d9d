"""The ``SessionSource`` interface every source implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from session_scoring.models.session import Session, SessionPage


class SessionSource(Protocol):
    """Reads sessions from somewhere. Raises SessionNotFoundError, SourceUnavailableError or SessionDataError."""

    name: str

    def get_session(self, session_id: str) -> Session:
        """The whole investigation, normalised."""
        ...

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        """One page of sessions, newest first; only those with one of ``statuses`` when given."""
        ...
