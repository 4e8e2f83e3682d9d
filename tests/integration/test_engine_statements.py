"""The service's engine against PostgreSQL: a statement run again binds its new values, text that only looks like a
placeholder (a percent sign in a literal, a comment marker in a string) stays text, and a timestamp decodes to what
pg8000 itself would give."""

from __future__ import annotations

from sqlalchemy import bindparam, literal_column, select, text

from session_scoring.configuration.settings import Settings
from session_scoring.db.engine import create_db_engine


def test_a_repeated_statement_binds_each_calls_values_and_keeps_its_literals(migrated_database: str) -> None:
    engine = create_db_engine(Settings(database_url=migrated_database), autocommit=True)
    statement = select(
        bindparam("a", type_=None).label("a"),
        literal_column("'100% sure: %s is text'").label("note"),
        (bindparam("n", type_=None) % 7).label("mod"),
    )
    try:
        with engine.connect() as conn:
            first = conn.execute(statement, {"a": "first", "n": 15}).one()
            second = conn.execute(statement, {"a": "second", "n": 20}).one()
            raw = conn.execute(text("SELECT :x || ' -- not a comment', '%s'"), {"x": "y"}).one()
    finally:
        engine.dispose()

    assert tuple(first) == ("first", "100% sure: %s is text", 1)
    assert tuple(second) == ("second", "100% sure: %s is text", 6)
    assert tuple(raw) == ("y -- not a comment", "%s")


def test_timestamps_decode_to_what_pg8000_would_give_and_its_special_values_pass_through(
    migrated_database: str,
) -> None:
    from pg8000.converters import timestamptz_in

    engine = create_db_engine(Settings(database_url=migrated_database), autocommit=True)
    values = [
        "2026-12-02 21:27:05.992345+00",
        "2026-12-02 21:27:05.9+00",
        "2026-12-02 21:27:05+00",
        "infinity",
        "-infinity",
        "0044-03-15 00:00:00+00 BC",
    ]
    statement = text(
        "SELECT v::timestamptz AS value, v::timestamptz::text AS raw FROM unnest(CAST(:vs AS text[])) AS v"
    )
    try:
        with engine.connect() as conn:
            in_utc = conn.execute(statement, {"vs": values}).all()
            conn.execute(text("SET TIME ZONE 'Asia/Kolkata'"))  # an offset with minutes: +05:30
            in_kolkata = conn.execute(statement, {"vs": values[:3]}).all()
            conn.execute(text("RESET TIME ZONE"))
    finally:
        engine.dispose()

    for row in [*in_utc, *in_kolkata]:
        assert row.value == timestamptz_in(row.raw), row.raw
    assert [type(row.value).__name__ for row in in_utc] == ["datetime"] * 3 + ["str"] * 3
    assert in_kolkata[0].value == in_utc[0].value
    assert in_kolkata[0].raw.endswith("+05:30")
