"""The configured source plus uploaded sessions, as one source.

Ids starting with ``upload:`` belong to the uploads (the import endpoint mints them; no TARSy or file id is ever
read there), every other id to the configured source. A listing shows the uploads first (newest first), then the
configured source's sessions, each marked with its ``source``; pages are cut across the two without gaps.

Every session read here goes through the masking step (docs/masking.md) before any reader (the scorer and every
judge, the session view, exports, facts) sees it: the configured source's on each read, the uploads' again (they
were masked when imported; an upload stored before masking existed is masked now, one masked already is unchanged).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from session_scoring.masking import Masker, default_masker
from session_scoring.models.masked import from_document, mask_session
from session_scoring.models.records import SessionOutline, outline_of
from session_scoring.models.session import Session, SessionPage, SessionSummary
from session_scoring.sources.base import SessionSource


class UploadedSessions(Protocol):
    """The uploads' side of the composite (implemented by ``repositories.uploads.UploadRepository``)."""

    name: str

    def owns(self, session_id: str) -> bool: ...

    def get_session(self, session_id: str) -> Session: ...

    def outline(self, session_id: str) -> SessionOutline: ...

    def count(self, statuses: Sequence[str] = ()) -> int: ...

    def summaries(self, offset: int, limit: int, statuses: Sequence[str] = ()) -> list[SessionSummary]: ...


class CompositeSessionSource:
    def __init__(self, primary: SessionSource, uploads: UploadedSessions, masker: Masker | None = None) -> None:
        self._primary = primary
        self._uploads = uploads
        self._masker = masker or default_masker()
        self.name = primary.name

    def get_session(self, session_id: str) -> Session:
        if self._uploads.owns(session_id):
            return mask_session(self._uploads.get_session(session_id), self._masker)
        session = from_document(self._primary.get_session(session_id))
        session = session if session.source else session.model_copy(update={"source": self._primary.name})
        return mask_session(session, self._masker)

    def outline(self, session_id: str) -> SessionOutline:
        """What a score request needs of the session (raises SessionNotFoundError like ``get_session``): an upload's
        is read from its columns, never its stored document; the configured source's sessions are read whole (the
        source has nothing lighter)."""
        if self._uploads.owns(session_id):
            return self._uploads.outline(session_id)
        return outline_of(self.get_session(session_id))

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        start = (page - 1) * page_size
        uploaded = self._uploads.count(statuses)
        items: list[SessionSummary] = []
        if start < uploaded:
            items = self._uploads.summaries(start, page_size, statuses)
        # The configured source's part of this page starts at offset ``first`` of its own listing.
        first = max(0, start - uploaded)
        wanted = page_size - len(items)
        primary = self._primary.list_sessions(first // page_size + 1, page_size, statuses)
        collected = list(primary.items)[first % page_size :]
        if len(collected) < wanted and primary.page < primary.total_pages:
            collected += self._primary.list_sessions(primary.page + 1, page_size, statuses).items
        items += [s if s.source else s.model_copy(update={"source": self._primary.name}) for s in collected[:wanted]]
        total = uploaded + primary.total_items
        return SessionPage(
            items=items,
            page=page,
            page_size=page_size,
            total_items=total,
            total_pages=max(1, -(-total // page_size)),
            skipped=primary.skipped,
            total_exact=primary.total_exact,
        )
