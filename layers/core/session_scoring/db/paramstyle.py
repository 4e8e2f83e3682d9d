"""pg8000's placeholder conversion, done once per statement text instead of on every execute (issue 10).

SQLAlchemy's pg8000 dialect renders ``%s`` placeholders (DB-API paramstyle ``format``) and executes through
``pg8000.legacy.Cursor``, which rewrites each statement to PostgreSQL's ``$1, $2, ...`` with ``convert_paramstyle``:
a character-by-character scan in Python on *every* execute (pg8000 1.31). For the 2,200-character statement that
reads a score it took 2.6 ms here, more than the statement's three round trips to the database.

For the ``format`` style the converted text depends on the statement text alone and the values pass through
unchanged, and SQLAlchemy sends the same few statement texts again and again (it caches their compilation), so
:func:`remember_conversions` replaces the function pg8000's legacy cursor calls with one that remembers the converted
text per statement text (a bounded LRU). Any other paramstyle, and any statement pg8000 rejects (the error is raised
again each time, never remembered), goes through pg8000's own function.

Scope: ``pg8000.legacy`` (what SQLAlchemy's dialect uses) in this process; ``pg8000.dbapi`` and ``pg8000.native``
keep the plain scan. The benchmarks' floors execute through ``pg8000.dbapi`` and so pay it (docs/performance.md).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

CACHED_STATEMENTS = 512
"""Distinct statement texts remembered; SQLAlchemy's own compiled cache holds 500 statements per engine."""

_Convert = Callable[[str, str, Any], tuple[str, Any]]
_install_lock = threading.Lock()


def remembering(plain: _Convert) -> _Convert:
    """``plain`` (pg8000's ``convert_paramstyle``) with the ``format`` style's converted text remembered per text."""

    @functools.lru_cache(maxsize=CACHED_STATEMENTS)
    def numbered(query: str) -> str:
        converted, _ = plain("format", query, ())
        return converted

    def convert_paramstyle(style: str, query: str, args: Any) -> tuple[str, Any]:
        if style != "format":
            return plain(style, query, args)
        # pg8000 returns the "format" style's values as given: only the text is converted.
        return numbered(query), args

    convert_paramstyle.remembers = numbered  # type: ignore[attr-defined]
    return convert_paramstyle


def remember_conversions() -> None:
    """Make ``pg8000.legacy`` remember its conversions (idempotent; called when an engine is created)."""
    import pg8000.legacy  # type: ignore[import-untyped]  # pg8000 ships no type information

    with _install_lock:
        if not hasattr(pg8000.legacy.convert_paramstyle, "remembers"):
            pg8000.legacy.convert_paramstyle = remembering(pg8000.legacy.convert_paramstyle)
