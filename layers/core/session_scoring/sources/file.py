"""Sessions from a directory of JSON files (one session per ``*.json``), for local runs and exported sessions.

Each file may be in any shape :func:`sources.documents.parse_session_document` recognises: the normalised format,
a tarsy-bot ``DetailedSession`` or final-analysis response, or an OpenAI-style chat transcript.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from session_scoring.errors import ConfigurationError, SessionDataError, SessionNotFoundError
from session_scoring.log import logger
from session_scoring.models.session import Session, SessionPage, SessionSummary
from session_scoring.sources.documents import parse_session_document

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class FileSessionSource:
    name = "file"

    def __init__(self, directory: Path, include_chat: bool = False) -> None:
        if not directory.is_dir():
            raise ConfigurationError(
                f"session_source.directory '{directory}' is not a directory; "
                "set SCORING_SESSIONS_DIR (or session_source.directory) to a folder of session JSON files"
            )
        self._directory = directory
        self._include_chat = include_chat

    def _load(self, path: Path) -> Session:
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise SessionDataError(f"{path.name}: cannot read session JSON ({exc})") from exc
        return parse_session_document(document, path.name, self._include_chat)

    def _all(self) -> list[Session]:
        sessions: list[Session] = []
        for path in sorted(self._directory.glob("*.json")):
            try:
                sessions.append(self._load(path))
            except SessionDataError as exc:
                # One bad file must not hide the others from the list; say which and why.
                logger.warning("session file skipped", extra={"file": path.name, "reason": exc.message})
        return sessions

    def get_session(self, session_id: str) -> Session:
        direct = self._directory / f"{session_id}.json"
        if direct.is_file() and direct.parent == self._directory:
            session = self._load(direct)
            if session.session_id == session_id:
                return session
        for session in self._all():
            if session.session_id == session_id:
                return session
        raise SessionNotFoundError(f"session '{session_id}' was not found in {self._directory}")

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        summaries: list[SessionSummary] = sorted(
            (s.summary() for s in self._all() if not statuses or s.status in statuses),
            key=lambda s: (s.started_at or _EPOCH, s.session_id),
            reverse=True,
        )
        start = (page - 1) * page_size
        return SessionPage(
            items=summaries[start : start + page_size],
            page=page,
            page_size=page_size,
            total_items=len(summaries),
            total_pages=max(1, math.ceil(len(summaries) / page_size)),
        )
