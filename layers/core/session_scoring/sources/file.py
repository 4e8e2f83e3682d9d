"""Sessions from a directory of files (one session per ``*.json`` or ``*.jsonl``), for local runs and exported
sessions, in any shape :func:`sources.documents.parse_trace` recognises. A file that cannot be read as one session
(a benchmark's many trajectories included, which the import endpoint reads) is listed in the page's ``skipped`` with
the reason, and logged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from stat import S_ISREG

from session_scoring.errors import ConfigurationError, SessionDataError, SessionNotFoundError
from session_scoring.log import logger
from session_scoring.models.session import Session, SessionPage, SessionSummary, SkippedSession
from session_scoring.sources.documents import parse_trace
from session_scoring.sources.formats import load_text
from session_scoring.sources.formats.common import DEFAULT_SUBMIT_TOOLS

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
SUFFIXES = (".json", ".jsonl")


class FileSessionSource:
    name = "file"

    def __init__(
        self, directory: Path, include_chat: bool = False, submit_tools: frozenset[str] = DEFAULT_SUBMIT_TOOLS
    ) -> None:
        if not directory.is_dir():
            raise ConfigurationError(
                f"session_source.directory '{directory}' is not a directory; "
                "set SCORING_SESSIONS_DIR (or session_source.directory) to a folder of session JSON files"
            )
        self._directory = directory
        self._include_chat = include_chat
        self._submit_tools = submit_tools
        self._listed: dict[Path, tuple[tuple[int, int, int], SessionSummary | SkippedSession]] = {}
        """Each listed file's version (its modification and change times in ns, its size) and what it held then:
        see :meth:`_listing`."""

    def _load(self, path: Path) -> Session:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, ValueError) as exc:
            raise SessionDataError(f"{path.name}: cannot read the file ({exc})") from exc
        session = parse_trace(load_text(text, path.name, self._submit_tools), self._include_chat)[1]
        return session.model_copy(update={"source": self.name})

    def _listing(self) -> list[tuple[Path, SessionSummary | SkippedSession]]:
        """Every session file's summary, or why it cannot be read, in file-name order. A file is read again only when
        its modification or change time or its size differs (so a file whose permissions were fixed is retried):
        each page of a run lists the whole directory, which would otherwise read it N / page-size times over."""
        listing: dict[Path, tuple[tuple[int, int, int], SessionSummary | SkippedSession]] = {}
        for path in sorted(p for p in self._directory.iterdir() if p.suffix in SUFFIXES):
            try:
                stat = path.stat()
            except OSError:
                continue  # removed while listing
            if not S_ISREG(stat.st_mode):
                continue
            version = (stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size)
            known = self._listed.get(path)
            listing[path] = known if known is not None and known[0] == version else (version, self._summarise(path))
        self._listed = listing  # files removed since the last listing are forgotten
        return [(path, entry) for path, (_, entry) in listing.items()]

    def _summarise(self, path: Path) -> SessionSummary | SkippedSession:
        try:
            return self._load(path).summary()
        except SessionDataError as exc:
            # One bad file must not hide the others from the list; say which and why, to the caller too.
            logger.warning("session file skipped", extra={"file": path.name, "reason": exc.message})
            return SkippedSession(origin=path.name, error=exc.message)

    def get_session(self, session_id: str) -> Session:
        for suffix in SUFFIXES:
            direct = self._directory / f"{session_id}{suffix}"
            if direct.is_file() and direct.parent == self._directory:
                session = self._load(direct)
                if session.session_id == session_id:
                    return session
        for path, entry in self._listing():
            if isinstance(entry, SessionSummary) and entry.session_id == session_id:
                return self._load(path)
        raise SessionNotFoundError(f"session '{session_id}' was not found among the session files")

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        listing = [entry for _, entry in self._listing()]
        skipped = [entry for entry in listing if isinstance(entry, SkippedSession)]
        summaries: list[SessionSummary] = sorted(
            (s for s in listing if isinstance(s, SessionSummary) and (not statuses or s.status in statuses)),
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
            skipped=skipped,
        )
