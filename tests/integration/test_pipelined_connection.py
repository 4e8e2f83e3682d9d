"""The service's database connections (``db/connection.py``) against PostgreSQL: one round trip per statement, the
statements they run repeatedly prepared on the server, and the same answers and errors as plain pg8000."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pg8000.core
import pg8000.legacy
import pytest
from sqlalchemy import text

from session_scoring.configuration.settings import Settings
from session_scoring.db import connection as pipelined
from session_scoring.db.connection import PipelinedConnection
from session_scoring.db.engine import PREPARE_THRESHOLD, create_db_engine
from session_scoring.repositories.scores import ScoreRepository
from tests.support.databases import pg_params

QUERY = "SELECT $1::int + 1, $2::text, $3::timestamptz, $4::jsonb, $5::text IS NULL, $6::uuid"
VALUES = (41, "tool", datetime(2026, 11, 26, 12, 0).astimezone(), '{"a": [1, 2]}', None, uuid.UUID(int=7))


@pytest.fixture
def connect(migrated_database: str) -> Iterator[Any]:
    opened: list[Any] = []

    def open_connection(kind: Any = PipelinedConnection, **kwargs: Any) -> Any:
        conn = kind(**pg_params(migrated_database), **kwargs)
        conn.autocommit = True
        opened.append(conn)
        return conn

    yield open_connection
    for conn in opened:
        conn.close()


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the answers awaited (one ``ReadyForQuery`` each) by any pg8000 connection."""
    counted = [0]
    original = pg8000.core.CoreConnection.handle_messages

    def handle_messages(conn: Any, context: Any) -> Any:
        counted[0] += 1
        return original(conn, context)

    monkeypatch.setattr(pg8000.core.CoreConnection, "handle_messages", handle_messages)
    return counted


def server_prepared(conn: Any) -> list[str]:
    return sorted(str(row[0]) for row in conn.run("SELECT statement FROM pg_prepared_statements"))


def test_a_statement_takes_one_round_trip_and_answers_as_plain_pg8000(connect: Any, round_trips: list[int]) -> None:
    plain = connect(pg8000.legacy.Connection).execute_unnamed(QUERY, vals=VALUES).rows
    round_trips[0] = 0

    ours = connect(prepare_threshold=None).execute_unnamed(QUERY, vals=VALUES).rows

    assert round_trips[0] == 1  # plain pg8000 waits three times: Parse, Describe, Bind/Execute
    assert ours == plain
    assert ours[0][:2] == [42, "tool"]
    assert ours[0][4] is True
    assert ours[0][5] == uuid.UUID(int=7)


def test_a_statement_run_repeatedly_is_prepared_once_then_runs_in_one_round_trip(
    connect: Any, round_trips: list[int]
) -> None:
    conn = connect(prepare_threshold=PREPARE_THRESHOLD)
    answers = [conn.execute_unnamed(QUERY, vals=(n, *VALUES[1:])).rows[0][0] for n in range(PREPARE_THRESHOLD + 3)]

    assert answers == [n + 1 for n in range(PREPARE_THRESHOLD + 3)]  # each execution binds its own values
    assert round_trips[0] == PREPARE_THRESHOLD + 3  # one each, the one that prepares included
    assert conn.prepared_count == 1
    assert server_prepared(conn) == [QUERY]
    round_trips[0] = 0
    assert conn.execute_unnamed(QUERY, vals=VALUES).rows == connect().execute_unnamed(QUERY, vals=VALUES).rows
    assert round_trips[0] == 2  # one each (the second connection never prepares)


def test_nothing_is_prepared_when_off_nor_without_parameters(connect: Any) -> None:
    off = connect(prepare_threshold=None)
    on = connect(prepare_threshold=2)
    for _ in range(4):
        off.execute_unnamed(QUERY, vals=VALUES)
        on.execute_unnamed("SELECT 1")
        on.execute_unnamed("begin transaction")
        on.execute_unnamed("rollback")

    assert server_prepared(off) == []
    assert off.prepared_count == 0
    assert server_prepared(on) == []
    assert on.prepared_count == 0


def test_the_least_recently_used_statement_is_closed_past_the_limit(
    connect: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pipelined, "PREPARED_STATEMENTS", 2)
    conn = connect(prepare_threshold=1)
    for n in (1, 2, 3):
        conn.execute_unnamed(f"SELECT $1::int + {n}", vals=(1,))

    assert server_prepared(conn) == ["SELECT $1::int + 2", "SELECT $1::int + 3"]
    assert conn.execute_unnamed("SELECT $1::int + 1", vals=(1,)).rows == [[2]]  # prepared again, evicting "+ 2"
    assert server_prepared(conn) == ["SELECT $1::int + 1", "SELECT $1::int + 3"]


def test_a_prepared_statement_whose_table_a_migration_changed_runs_again(connect: Any) -> None:
    conn = connect(prepare_threshold=1)
    conn.execute_unnamed("CREATE TEMPORARY TABLE facts (id int, note text)")
    conn.execute_unnamed("INSERT INTO facts VALUES (1, 'one')")
    read = "SELECT * FROM facts WHERE id = $1"
    assert conn.execute_unnamed(read, vals=(1,)).rows == [[1, "one"]]

    conn.execute_unnamed("ALTER TABLE facts ADD COLUMN extra int DEFAULT 7")

    # PostgreSQL refuses the old plan ("cached plan must not change result type"); the statement is prepared anew.
    assert conn.execute_unnamed(read, vals=(1,)).rows == [[1, "one", 7]]
    assert conn.execute_unnamed(read, vals=(1,)).rows == [[1, "one", 7]]


def test_errors_are_pg8000s_own_and_the_connection_stays_usable(connect: Any) -> None:
    conn = connect(prepare_threshold=1)
    with pytest.raises(pg8000.exceptions.DatabaseError) as syntax:
        conn.execute_unnamed("SELEC $1", vals=(1,))
    assert syntax.value.args[0]["C"] == "42601"
    conn.execute_unnamed("CREATE TEMPORARY TABLE once (id int PRIMARY KEY)")
    insert = "INSERT INTO once VALUES ($1)"
    conn.execute_unnamed(insert, vals=(1,))
    with pytest.raises(pg8000.exceptions.DatabaseError) as duplicate:
        conn.execute_unnamed(insert, vals=(1,))  # prepared now: the error comes from the named statement

    assert duplicate.value.args[0]["C"] == "23505"
    assert conn.execute_unnamed("SELECT count(*) FROM once WHERE id = $1", vals=(1,)).rows == [[1]]
    assert server_prepared(conn) == sorted(["SELECT count(*) FROM once WHERE id = $1", insert])


def test_a_statement_whose_preparing_execution_fails_stays_prepared_and_runs_again(connect: Any) -> None:
    """The server keeps a statement it parsed even when its execution fails: it is kept here too, so its name is
    never offered to the server again (which would refuse it as a duplicate)."""
    conn = connect(prepare_threshold=1)
    conn.execute_unnamed("CREATE TEMPORARY TABLE once (id int PRIMARY KEY)")
    conn.execute_unnamed("INSERT INTO once VALUES (1)")
    insert = "INSERT INTO once VALUES ($1)"
    with pytest.raises(pg8000.exceptions.DatabaseError) as duplicate:
        conn.execute_unnamed(insert, vals=(1,))  # parsed under a name, then refused
    assert duplicate.value.args[0]["C"] == "23505"

    assert server_prepared(conn) == [insert]
    conn.execute_unnamed(insert, vals=(2,))
    assert conn.execute_unnamed("SELECT count(*) FROM once WHERE id > $1", vals=(0,)).rows == [[2]]
    assert conn.prepared_count == 2


def test_the_engine_connects_with_them_and_statements_bind_their_values(migrated_database: str) -> None:
    engine = create_db_engine(Settings(database_url=migrated_database), autocommit=True)
    try:
        with engine.connect() as conn:
            answers = [conn.execute(text("SELECT :n * 2"), {"n": n}).scalar() for n in range(PREPARE_THRESHOLD + 8)]
            dbapi = conn.connection.dbapi_connection
    finally:
        engine.dispose()

    assert answers == [n * 2 for n in range(PREPARE_THRESHOLD + 8)]
    assert isinstance(dbapi, PipelinedConnection)
    assert dbapi.prepared_count == 1


def test_new_attempts_keep_their_arbiter_once_the_plan_cache_plans_them_generically(migrated_database: str) -> None:
    engine = create_db_engine(Settings(database_url=migrated_database), autocommit=True)
    repository = ScoreRepository(engine)
    criteria = "c" * 64
    repository.ensure_criteria(criteria, {"scoring": {}})
    try:
        # Past PostgreSQL's five custom plans, after which it may keep a generic one: the partial unique index of
        # active attempts still decides (from the predicate written into the statement, not from parameters).
        created = [
            repository.create_attempt(uuid.uuid4(), f"arbiter-{n % 3}", criteria, "test").created for n in range(12)
        ]
    finally:
        engine.dispose()

    assert created == [True, True, True] + [False] * 9
