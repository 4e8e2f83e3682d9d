"""pg8000's placeholder conversion remembered per statement text: the same text and values as pg8000's own, every
time, for every shape of statement SQLAlchemy or a person writes (quotes, comments, escapes, casts)."""

from __future__ import annotations

from typing import Any

import pg8000.dbapi
import pg8000.legacy
import pytest
from pg8000.exceptions import InterfaceError

from session_scoring.db.paramstyle import remember_conversions, remembering

PLAIN = pg8000.dbapi.convert_paramstyle  # the dbapi module's function is never replaced

STATEMENTS = [
    "SELECT 1",
    "SELECT %s, %s::VARCHAR FROM t WHERE a = %s LIMIT %s::INTEGER",
    "SELECT '%s is text, not a placeholder', %s",
    "SELECT 'it''s %s', %s",
    "SELECT E'\\'%s', %s",
    'SELECT "odd%scolumn" FROM t WHERE x = %s',
    "SELECT a %% 3, %s -- a comment with %s\nFROM t",
    "SELECT $$ %s inside dollars $$, %s",
    "SELECT count(*) FILTER (WHERE x = %s)::float, %s",
]


@pytest.mark.parametrize("statement", STATEMENTS)
def test_a_remembered_conversion_equals_pg8000s_own_the_first_time_and_after(statement: str) -> None:
    convert = remembering(PLAIN)
    args: tuple[Any, ...] = (1, "two", None, 4.0)

    first = convert("format", statement, args)
    again = convert("format", statement, ("other", 2, 3, 4))

    assert first == PLAIN("format", statement, args)
    assert again == PLAIN("format", statement, ("other", 2, 3, 4))


def test_a_statement_pg8000_rejects_is_rejected_every_time() -> None:
    convert = remembering(PLAIN)
    for _ in range(2):
        with pytest.raises(InterfaceError, match="Only %s and %% are supported"):
            convert("format", "SELECT %d", (1,))


def test_other_paramstyles_go_through_pg8000_unchanged() -> None:
    convert = remembering(PLAIN)

    assert convert("named", "SELECT :a, :b, :a", {"a": 1, "b": 2}) == ("SELECT $1, $2, $1", (1, 2))
    assert convert("pyformat", "SELECT %(a)s, %(b)s", {"a": 1, "b": 2}) == ("SELECT $1, $2", (1, 2))
    assert convert("qmark", "SELECT ?, ?", (1, 2)) == ("SELECT $1, $2", (1, 2))


def test_installed_once_for_the_legacy_cursor_only() -> None:
    remember_conversions()
    installed = pg8000.legacy.convert_paramstyle
    remember_conversions()

    assert pg8000.legacy.convert_paramstyle is installed  # not wrapped twice
    assert pg8000.dbapi.convert_paramstyle is PLAIN
    assert installed("format", STATEMENTS[1], (1, 2, 3, 4)) == PLAIN("format", STATEMENTS[1], (1, 2, 3, 4))
