"""The dashboard's search: sessions by a piece of their id, their title, their agent or their alert type, among the
uploads and the scored sessions (in PostgreSQL, ``repositories/search.py``) and among the newest sessions of the
configured source (scored or not): what the sessions list shows can be found, an unscored session by its short id too.
The source offers no search of its own (TARSy), so its sessions are read a page at a time, ``SOURCE_SCAN_PAGES`` pages
of ``SOURCE_SCAN_PAGE_SIZE`` at most (the newest ``SOURCE_SCAN_PAGES * SOURCE_SCAN_PAGE_SIZE`` sessions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from session_scoring.errors import InvalidParametersError, SourceUnavailableError
from session_scoring.models.api import SessionSearchHit, SessionSearchResult
from session_scoring.models.session import SessionSummary
from session_scoring.repositories.search import SearchHitRecord
from session_scoring.services.session_list import SessionTitles
from session_scoring.sources.base import SessionSource

MIN_TEXT = 2
"""Fewer characters would match nearly every session."""
SOURCE_SCAN_PAGE_SIZE = 100
"""Sessions per source page the search reads (the sessions list's own largest page)."""
SOURCE_SCAN_PAGES = 5
"""Source pages one search reads at most: the newest 500 sessions, a handful of source calls."""


class SearchReads(Protocol):
    """Sessions whose id, agent or alert type contains a text (``repositories.search``)."""

    def matching(self, text: str, limit: int) -> list[SearchHitRecord]: ...


def _bare(session_id: str) -> str:
    """The id without a source prefix (``upload:``): what a person copies and types."""
    return session_id[session_id.rfind(":") + 1 :]


def _matched(record: SearchHitRecord, needle: str) -> str:
    if needle in record.session_id.lower():
        return "id"
    if needle in (record.agent or "").lower():
        return "agent"
    if needle in (record.alert_type or "").lower():
        return "alert_type"
    return "title"


def _rank(record: SearchHitRecord, needle: str) -> tuple[int, float]:
    """Best first: the id itself, an id starting with the text, an id containing it, then agent or alert type; the
    newest first within each."""
    session_id = record.session_id.lower()
    if needle in (session_id, _bare(session_id)):
        place = 0
    elif session_id.startswith(needle) or _bare(session_id).startswith(needle):
        place = 1
    elif needle in session_id:
        place = 2
    else:
        place = 3
    return place, -(record.seen_at.timestamp() if record.seen_at else 0.0)


def _from_source(summary: SessionSummary, needle: str) -> SearchHitRecord | None:
    """The summary as a hit when its id, title, agent or alert type contains ``needle`` (lower case)."""
    texts = (summary.session_id, summary.title, summary.agent_type, summary.alert_type)
    if not any(needle in (text or "").lower() for text in texts):
        return None
    return SearchHitRecord(
        session_id=summary.session_id,
        title=summary.title,
        alert_type=summary.alert_type,
        agent=summary.agent_type,
        source=summary.source,
        seen_at=summary.started_at,
    )


@dataclass(eq=False)
class SearchService:
    """``source`` (when given) is searched too, its newest ``scan_pages`` pages: sessions never scored are found."""

    repository: SearchReads
    uploads: SessionTitles
    source: SessionSource | None = None
    scan_pages: int = SOURCE_SCAN_PAGES
    scan_page_size: int = SOURCE_SCAN_PAGE_SIZE

    def _source_hits(self, needle: str) -> tuple[list[SearchHitRecord], bool]:
        """The source's newest sessions that match, and whether the source could be read (a source that is down
        leaves the stored sessions' matches, said so, rather than no answer)."""
        if self.source is None:
            return [], True
        hits: list[SearchHitRecord] = []
        for number in range(1, self.scan_pages + 1):
            try:
                page = self.source.list_sessions(number, self.scan_page_size)
            except SourceUnavailableError:
                return hits, False
            hits += [hit for s in page.items if (hit := _from_source(s, needle)) is not None]
            if number >= page.total_pages or not page.items:
                break
        return hits, True

    def search(self, text: str, limit: int) -> SessionSearchResult:
        """Up to ``limit`` sessions whose id, title, agent or alert type contains ``text`` (any case), best first."""
        needle = text.strip()
        if len(needle) < MIN_TEXT:
            raise InvalidParametersError(f"q needs at least {MIN_TEXT} characters besides spaces, got {text!r}")
        found: dict[str, SearchHitRecord] = {}
        from_source, source_read = self._source_hits(needle.lower())
        for record in [*self.repository.matching(needle, limit), *from_source]:
            found.setdefault(record.session_id, record)  # an upload's own row (with its title) comes first
        ranked = sorted(found.values(), key=lambda r: _rank(r, needle.lower()))[:limit]
        titles = self.uploads.titles([r.session_id for r in ranked if r.title is None])
        return SessionSearchResult(
            query=needle,
            source_unavailable=not source_read,
            items=[
                SessionSearchHit.model_validate(
                    {
                        **vars(r),
                        "title": r.title or titles.get(r.session_id) or r.alert_type,
                        "matched": _matched(r, needle.lower()),
                    }
                )
                for r in ranked
            ],
        )
