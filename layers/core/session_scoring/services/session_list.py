"""The sessions list behind ``GET /sessions``, answered one of three ways chosen by the filters (docs/sessions.md):
**source**, a page of the source with each session's latest attempt; **scored**, from the database alone, by band and
sorted by score; **unscored**, the source's list minus the scored sessions, read ``SCAN_PAGE_SIZE`` sessions at a time
and at most ``SCAN_PAGE_LIMIT`` source pages per request, continued with an opaque ``next_cursor``.

A start range (``started_after``/``started_before``) filters each way: a scored list in SQL, by the session start
stored with the attempt scored; a source or unscored list by the same bounded scan as the unscored one (the sources
have no date filter of their own), so a dated source list pages with a cursor too. A session without a start time is
outside every range.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Protocol, TypeVar

from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.errors import InvalidParametersError
from session_scoring.models.api import (
    LatestScore,
    SessionListItem,
    SessionListPage,
    SessionListScan,
    SkippedSessionInfo,
)
from session_scoring.models.records import LatestScoreRecord
from session_scoring.models.scores import BAND_NAMES, ScoreStatus
from session_scoring.models.session import SessionSummary, SkippedSession
from session_scoring.models.session_list import CriteriaScope, Scored, SessionListParams, SessionSort
from session_scoring.repositories.session_list import ScoredSessionRecord, StartedRange
from session_scoring.services.insights import fingerprint, pack_cursor, unpack_cursor
from session_scoring.sources.base import SessionSource

SCAN_PAGE_SIZE = 100
"""Sessions per source page an unscored list reads (the most the route lets a caller ask for, too)."""
SCAN_PAGE_LIMIT = 5
"""Source pages one unscored request reads at most: 500 sessions looked at, a handful of source calls."""

MAX_SOURCE_PAGE = 1_000_000
"""The highest source page an unscored list's cursor may name (a forged cursor's page must not become a database
offset beyond ``bigint``)."""


class SessionTitles(Protocol):
    """The titles of uploaded sessions (implemented by ``repositories.uploads.UploadRepository``)."""

    def titles(self, session_ids: Sequence[str]) -> dict[str, str]: ...


class SessionNames(SessionTitles, Protocol):
    """The titles and submitters of uploaded sessions (``repositories.uploads.UploadRepository``): what a scored
    page names its uploads by, as the source's list does (one name and one submitter per session on every page)."""

    def authors(self, session_ids: Sequence[str]) -> dict[str, str]: ...


_E = TypeVar("_E", bound=StrEnum)


@dataclass(frozen=True)
class _Query:
    page: int
    page_size: int
    statuses: tuple[str, ...]
    scored: Scored
    bands: tuple[str, ...]
    criteria_hash: str | None
    sort: SessionSort
    cursor: str | None
    started: StartedRange = (None, None)

    @property
    def scans(self) -> bool:
        return _scans(self.scored, self.started)

    def in_range(self, summary: SessionSummary) -> bool:
        after, before = self.started
        if after is None and before is None:
            return True
        start = summary.started_at
        if start is None:
            return False
        start = _aware(start)
        return (after is None or start >= after) and (before is None or start < before)


def _scans(scored: Scored, started: StartedRange) -> bool:
    """Answered by a bounded scan of the source: an unscored list, or a source list in a start range."""
    return scored is Scored.UNSCORED or (scored is Scored.ANY and started != (None, None))


def _aware(moment: datetime) -> datetime:
    """An instant with its zone: a naive one is UTC (the API's query strings and the sources' own convention)."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class _Resume:
    """Where an unscored list continues: a source page (of the scan's page size) and the offset within it."""

    source_page: int
    offset: int


def _choice(enum: type[_E], name: str, value: str) -> _E:
    try:
        return enum(value)
    except ValueError:
        choices = ", ".join(e.value for e in enum)
        raise InvalidParametersError(f"{name}={value!r} is not one of {choices}") from None


def _fingerprint(query: _Query, scan_page_size: int) -> str:
    # Which bounds a range has, not their instants: a relative range ("the last 24 h", counted from now at each
    # request) moves between pages, and its next page continues the same scan.
    started = [moment is not None for moment in query.started]
    return fingerprint(
        query.page_size, scan_page_size, sorted(query.statuses), query.criteria_hash, query.scored.value, started
    )


def _decode_cursor(query: _Query, cursor: str, scan_page_size: int) -> _Resume:
    bad = InvalidParametersError(
        "invalid cursor: pass the next_cursor of the previous page unchanged, with the same filters"
    )
    page, offset, digest = unpack_cursor(cursor, bad, "p", "o", "f")
    if not (
        isinstance(page, int)
        and isinstance(offset, int)
        and 1 <= page <= MAX_SOURCE_PAGE
        and 0 <= offset < scan_page_size
    ):
        raise bad
    if digest != _fingerprint(query, scan_page_size):
        raise InvalidParametersError(
            "the cursor belongs to a list with other filters or another page_size: repeat the filters of the page "
            "it came from, or drop the cursor to start again"
        )
    return _Resume(page, offset)


def _skipped(skipped: list[SkippedSession]) -> list[SkippedSessionInfo]:
    unique = {s.origin: s for s in skipped}  # each source page repeats the documents it could not read
    return [SkippedSessionInfo(origin=s.origin, error=s.error) for s in unique.values()]


def to_latest_score(record: LatestScoreRecord, current_criteria_hash: str) -> LatestScore:
    """A session's score (its latest completed attempt, with a later one's status beside it) as the row's ``score``."""
    return LatestScore(**vars(record), is_current_criteria=record.criteria_hash == current_criteria_hash)


class SessionListReads(Protocol):
    """The sessions list's reads of scored sessions (``repositories.session_list``)."""

    def latest_attempts(
        self, session_ids: Sequence[str], criteria_hash: str | None
    ) -> dict[str, LatestScoreRecord]: ...
    def scored_among(self, session_ids: Sequence[str], criteria_hash: str | None) -> set[str]: ...
    def scored_count(self, criteria_hash: str | None, bands: Sequence[str], started: StartedRange = ...) -> int: ...
    def scored_page(
        self,
        criteria_hash: str | None,
        bands: Sequence[str],
        order: SessionSort,
        offset: int,
        limit: int,
        started: StartedRange = ...,
    ) -> list[ScoredSessionRecord]: ...


@dataclass(eq=False)
class SessionListService:
    """``scan_page_size`` and ``scan_page_limit`` bound an unscored request's reads of the source; ``titles``
    names the uploads of a scored page (their task) and their submitter, which the scores' own facts do not keep."""

    config: ScoringConfig
    repository: SessionListReads
    source: SessionSource
    scan_page_size: int = SCAN_PAGE_SIZE
    scan_page_limit: int = SCAN_PAGE_LIMIT
    titles: SessionNames | None = None

    def list_sessions(self, params: SessionListParams) -> SessionListPage:
        query = self._check(params)
        if query.scans:
            return self._scan(query)
        if query.scored is Scored.SCORED:
            return self._scored(query)
        return self._from_source(query)

    def _check(self, params: SessionListParams) -> _Query:
        """The parameters' meaning, or a 422 that says which value or combination is wrong and what to send."""
        scored = _choice(Scored, "scored", params.scored)
        scope = _choice(CriteriaScope, "criteria", params.criteria)
        sort = _choice(SessionSort, "sort", params.sort)
        unknown = [band for band in params.bands if band not in BAND_NAMES]
        if unknown:
            raise InvalidParametersError(f"band {unknown[0]!r} is not one of {', '.join(BAND_NAMES)}")
        by_score = sort is not SessionSort.SOURCE
        if scored is Scored.UNSCORED and (params.bands or by_score):
            raise InvalidParametersError(
                "scored=unscored cannot be combined with band or a sort by score (unscored sessions have no score): "
                "drop band and sort, or ask for scored=scored"
            )
        if scored is Scored.ANY and (params.bands or by_score):
            scored = Scored.SCORED  # a band, or an order by score, lists scored sessions only
        if scored is Scored.SCORED and params.statuses:
            raise InvalidParametersError(
                "status filters the source's list and cannot be combined with a list of scored sessions (scored, "
                "band or a sort by score are answered from the scores, which do not keep the source's status): "
                "drop status, or use scored=any or scored=unscored"
            )
        after = None if params.started_after is None else _aware(params.started_after)
        before = None if params.started_before is None else _aware(params.started_before)
        if after is not None and before is not None and after >= before:
            raise InvalidParametersError(
                "started_after must be before started_before: swap them, or drop one for an open range"
            )
        scans = _scans(scored, (after, before))
        if params.cursor is not None and not scans:
            raise InvalidParametersError(
                "cursor continues an unscored list (scored=unscored) or a source list in a start range only; the "
                "other lists page with page"
            )
        if scans and params.page != 1:
            raise InvalidParametersError(
                "an unscored list, or a source list in a start range, pages with cursor (the next_cursor of the "
                "previous page), not page: drop page"
            )
        return _Query(
            page=params.page,
            page_size=params.page_size,
            statuses=params.statuses,
            scored=scored,
            bands=tuple(params.bands),
            criteria_hash=self.config.criteria_hash if scope is CriteriaScope.CURRENT else None,
            sort=sort,
            cursor=params.cursor,
            started=(after, before),
        )

    def _item(self, summary: SessionSummary, latest: dict[str, LatestScoreRecord]) -> SessionListItem:
        record = latest.get(summary.session_id)
        score = None if record is None else to_latest_score(record, self.config.criteria_hash)
        fields = summary.model_dump(exclude={"title"})
        return SessionListItem(**fields, title=summary.title or summary.alert_type, score=score)

    def _from_source(self, query: _Query) -> SessionListPage:
        source_page = self.source.list_sessions(query.page, query.page_size, query.statuses)
        ids = [s.session_id for s in source_page.items]
        latest = self.repository.latest_attempts(ids, query.criteria_hash)
        return SessionListPage(
            items=[self._item(summary, latest) for summary in source_page.items],
            page=source_page.page,
            page_size=source_page.page_size,
            # A source that cannot count (a trace store) says only whether more follow: the totals are unknown.
            total_items=source_page.total_items if source_page.total_exact else None,
            total_pages=source_page.total_pages if source_page.total_exact else None,
            skipped=_skipped(source_page.skipped),
            criteria_hash=query.criteria_hash,
        )

    def _scored_item(
        self, record: ScoredSessionRecord, titles: dict[str, str], authors: dict[str, str]
    ) -> SessionListItem:
        facts = record.facts
        # The scores keep no source status. A session is scored only once it reached a scorable, terminal status, so
        # with one scorable status (the default, completed) that is its status; with several, only that it finished.
        scorable = self.config.session_source.scorable_statuses
        return SessionListItem(
            session_id=record.session_id,
            status=scorable[0] if len(scorable) == 1 else "finished",
            alert_type=None if facts is None else facts.alert_type,
            title=titles.get(record.session_id) or (None if facts is None else facts.alert_type),
            agent_type=None if facts is None else facts.agent,
            author=authors.get(record.session_id),
            started_at=None if facts is None else facts.started_at,
            completed_at=None if facts is None else facts.ended_at,
            source=None if facts is None else facts.source,
            score=LatestScore(
                **vars(record),
                status=ScoreStatus.COMPLETED,
                is_current_criteria=record.criteria_hash == self.config.criteria_hash,
            ),
        )

    def _scored(self, query: _Query) -> SessionListPage:
        records = self.repository.scored_page(
            query.criteria_hash,
            query.bands,
            query.sort,
            (query.page - 1) * query.page_size,
            query.page_size,
            query.started,
        )
        total = self.repository.scored_count(query.criteria_hash, query.bands, query.started)
        ids = [record.session_id for record in records]
        titles = self.titles.titles(ids) if self.titles else {}
        authors = self.titles.authors(ids) if self.titles else {}
        return SessionListPage(
            items=[self._scored_item(record, titles, authors) for record in records],
            page=query.page,
            page_size=query.page_size,
            total_items=total,
            total_pages=max(1, -(-total // query.page_size)),
            criteria_hash=query.criteria_hash,
        )

    def _scan(self, query: _Query) -> SessionListPage:
        """An unscored list or a dated source list: source pages read in turn, the sessions kept that are in the
        start range (and unscored, for an unscored list), until a page is full or the read limit is reached."""
        unscored_only = query.scored is Scored.UNSCORED
        resume = _Resume(1, 0) if query.cursor is None else _decode_cursor(query, query.cursor, self.scan_page_size)
        found: list[SessionSummary] = []
        skipped: list[SkippedSession] = []
        pages_read = 0
        next_at: _Resume | None = resume
        while next_at is not None and len(found) < query.page_size and pages_read < self.scan_page_limit:
            source_page = self.source.list_sessions(next_at.source_page, self.scan_page_size, query.statuses)
            pages_read += 1
            skipped += source_page.skipped
            candidates = list(source_page.items)[next_at.offset :]
            inside = [query.in_range(s) for s in candidates]
            in_range = [s.session_id for s, kept in zip(candidates, inside, strict=True) if kept]
            scored = self.repository.scored_among(in_range, query.criteria_hash) if unscored_only else set()
            last_page = next_at.source_page >= source_page.total_pages or not source_page.items
            resume_page = None if last_page else _Resume(next_at.source_page + 1, 0)
            for position, (summary, kept) in enumerate(zip(candidates, inside, strict=True), start=next_at.offset):
                if not kept or summary.session_id in scored:
                    continue
                found.append(summary)
                if len(found) == query.page_size:
                    following = position + 1
                    if following < len(source_page.items):
                        resume_page = _Resume(next_at.source_page, following)
                    break
            next_at = resume_page
        latest = self.repository.latest_attempts([s.session_id for s in found], query.criteria_hash)
        return SessionListPage(
            items=[self._item(summary, latest) for summary in found],
            page=1,
            page_size=query.page_size,
            total_items=None,
            total_pages=None,
            skipped=_skipped(skipped),
            next_cursor=None
            if next_at is None
            else pack_cursor(
                {"p": next_at.source_page, "o": next_at.offset, "f": _fingerprint(query, self.scan_page_size)}
            ),
            scan=SessionListScan(
                source_pages_read=pages_read,
                source_page_limit=self.scan_page_limit,
                limit_reached=len(found) < query.page_size and next_at is not None,
            ),
            criteria_hash=query.criteria_hash,
        )
