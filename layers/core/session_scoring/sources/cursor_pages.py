"""Numbered pages over a store that pages with cursors (Phoenix, MLflow).

The service asks for page N (each page of a run is planned in its own invocation, so no cursor can be carried
over), while the stores hand out opaque cursors and count nothing. Page N is found by walking the store's pages from
the start, asking for the items still needed plus one: that one says whether anything follows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from session_scoring.models.session import SessionPage, SessionSummary

T = TypeVar("T")

Fetch = Callable[[str | None, int], tuple[list[T], str | None]]
"""One request to the store: (cursor, limit) -> (items, the next cursor or None at the end)."""

MAX_REQUESTS = 200
"""Requests one page may make: a page past the 200th store page of the largest size is not reached."""


@dataclass(frozen=True)
class CursorSlice(Generic[T]):
    items: list[T]
    more: bool
    """Whether the listing has items after these."""
    seen: int
    """Items walked: the listing's exact length when nothing more follows."""


def slice_by_cursor(fetch: Fetch[T], offset: int, count: int, max_limit: int) -> CursorSlice[T]:
    """Items ``offset`` .. ``offset + count`` of the listing, and whether more follow."""
    end = offset + count
    seen = 0
    cursor: str | None = None
    collected: list[T] = []
    for _ in range(MAX_REQUESTS):
        limit = max(1, min(max_limit, end + 1 - seen))
        items, cursor = fetch(cursor, limit)
        collected += items[max(0, offset - seen) : max(0, end - seen)]
        seen += len(items)
        if seen > end:
            return CursorSlice(collected, True, seen)
        if cursor is None or not items:
            return CursorSlice(collected, False, seen)
    return CursorSlice(collected, True, seen)


def numbered_page(found: CursorSlice[T], page: int, page_size: int) -> tuple[int, int, bool]:
    """(total_items, total_pages, exact) of a page: exact when the walk reached the listing's end; otherwise the
    totals count up to the first item after the page (enough for a reader that stops at the last page)."""
    if not found.more:
        return found.seen, max(1, -(-found.seen // page_size)), True
    return (page - 1) * page_size + len(found.items) + 1, page + 1, False


def session_page(fetch: Fetch[SessionSummary], page: int, page_size: int, max_limit: int) -> SessionPage:
    """Page ``page`` of a session listing, totals exact only when the walk reached its end."""
    found = slice_by_cursor(fetch, (page - 1) * page_size, page_size, max_limit)
    total_items, total_pages, exact = numbered_page(found, page, page_size)
    return SessionPage(
        items=found.items,
        page=page,
        page_size=page_size,
        total_items=total_items,
        total_pages=total_pages,
        total_exact=exact,
    )
