"""The service's engine against PostgreSQL: a statement run again binds its new values, and text that only looks
like a placeholder (a percent sign in a literal, a comment marker in a string) stays text."""

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
