"""The dashboard's search: sessions by a piece of their id, their agent or their alert type, among the uploads and
the scored sessions (``repositories/search.py`` says why not the configured source's others)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from session_scoring.errors import InvalidParametersError
from session_scoring.models.api import SessionSearchHit, SessionSearchResult
from session_scoring.repositories.search import SearchHitRecord
from session_scoring.services.session_list import SessionTitles

MIN_TEXT = 2
"""Fewer characters would match nearly every session."""


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
    return "alert_type"


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


@dataclass(eq=False)
class SearchService:
    repository: SearchReads
    uploads: SessionTitles

    def search(self, text: str, limit: int) -> SessionSearchResult:
        """Up to ``limit`` sessions whose id, agent or alert type contains ``text`` (any case), best match first."""
        needle = text.strip()
        if len(needle) < MIN_TEXT:
            raise InvalidParametersError(f"q needs at least {MIN_TEXT} characters besides spaces, got {text!r}")
        found: dict[str, SearchHitRecord] = {}
        for record in self.repository.matching(needle, limit):
            found.setdefault(record.session_id, record)  # an upload's own row (with its title) comes first
        ranked = sorted(found.values(), key=lambda r: _rank(r, needle.lower()))[:limit]
        titles = self.uploads.titles([r.session_id for r in ranked if r.title is None])
        return SessionSearchResult(
            query=needle,
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
