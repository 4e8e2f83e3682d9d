"""Which database failures are 'unavailable' (retried, 503) and which are errors in what was asked."""

from __future__ import annotations

import pg8000.exceptions
import pytest
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError, ProgrammingError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from session_scoring.db.calls import db_call, is_connection_failure
from session_scoring.errors import DatabaseUnavailableError


def _server_error(code: str, message: str) -> pg8000.exceptions.DatabaseError:
    return pg8000.exceptions.DatabaseError({"S": "FATAL", "C": code, "M": message})


@pytest.mark.parametrize(
    "error",
    [
        InterfaceError("connect", {}, pg8000.exceptions.InterfaceError("Can't create a connection to host")),
        OperationalError("select", {}, Exception("server closed the connection")),
        ProgrammingError("insert", {}, _server_error("57P03", "the database system is shutting down")),
        ProgrammingError("insert", {}, _server_error("57P01", "terminating connection due to administrator command")),
        ProgrammingError("select", {}, _server_error("08006", "connection failure")),
        ProgrammingError("select", {}, _server_error("53300", "too many connections")),
        TimeoutError("timed out"),
        ConnectionResetError("reset by peer"),
    ],
)
def test_connection_level_failures_are_unavailable(error: BaseException) -> None:
    assert is_connection_failure(error)


@pytest.mark.parametrize(
    "error",
    [
        IntegrityError("insert", {}, _server_error("23505", "duplicate key value")),
        ProgrammingError("select", {}, _server_error("42P01", "relation does not exist")),
        ValueError("not a database error"),
    ],
)
def test_errors_in_what_was_asked_are_not(error: BaseException) -> None:
    assert not is_connection_failure(error)


def test_an_operation_is_retried_once_then_reported_unavailable() -> None:
    calls: list[int] = []

    @db_call
    def store() -> None:
        calls.append(1)
        raise ProgrammingError("insert", {}, _server_error("57P03", "the database system is shutting down"))

    with pytest.raises(DatabaseUnavailableError, match="the database is unavailable"):
        store()
    assert len(calls) == 2


def test_a_constraint_violation_is_raised_as_it_is_without_a_retry() -> None:
    calls: list[int] = []

    @db_call
    def store() -> None:
        calls.append(1)
        raise IntegrityError("insert", {}, _server_error("23505", "duplicate key value"))

    with pytest.raises(IntegrityError):
        store()
    assert len(calls) == 1


def test_an_exhausted_connection_pool_is_unavailable_at_once_without_a_retry() -> None:
    calls: list[int] = []

    @db_call
    def read() -> None:
        calls.append(1)
        raise PoolTimeoutError("QueuePool limit of size 2 overflow 2 reached, connection timed out, timeout 10.00")

    with pytest.raises(DatabaseUnavailableError, match="every connection of this process's pool stayed in use"):
        read()
    assert len(calls) == 1


def test_a_statement_timeout_is_unavailable_at_once_naming_no_internals() -> None:
    calls: list[int] = []

    @db_call
    def read() -> None:
        calls.append(1)
        raise ProgrammingError("select", {}, _server_error("57014", "canceling statement due to statement timeout"))

    with pytest.raises(DatabaseUnavailableError, match="ran past its timeout") as raised:
        read()
    assert len(calls) == 1
    assert "ProgrammingError" not in raised.value.message


def test_an_unavailable_database_is_reported_without_the_drivers_class_or_address() -> None:
    @db_call
    def read() -> None:
        raise InterfaceError("connect", {}, pg8000.exceptions.InterfaceError("Can't create a connection to 10.0.0.5"))

    with pytest.raises(DatabaseUnavailableError) as raised:
        read()
    assert "InterfaceError" not in raised.value.message
    assert "10.0.0.5" not in raised.value.message
