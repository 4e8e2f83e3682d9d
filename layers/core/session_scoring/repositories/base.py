"""What the repositories share beyond ``db_call`` (``session_scoring.db.calls``), and the two kinds of repository:
**one statement per operation** on the container's autocommit ``query_engine`` (atomic on its own, no BEGIN/COMMIT
round trips; a write to several tables is one statement of data-modifying CTEs), the default; or **a short
transaction** on the transactional ``engine``, for an operation that must read and then write under a lock, or write
many rows all or nothing (scoring runs, labels), never held across I/O other than the database.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import fields
from typing import Any, TypeVar, cast

from sqlalchemy import Engine, Row, func, literal_column
from sqlalchemy.dialects.postgresql import insert

from session_scoring.db import schema

R = TypeVar("R")


class Repository:
    """Holds its engine; ``_one`` and ``_all`` run one statement each on a connection of their own."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def _one(self, statement: Any, params: dict[str, Any] | None = None) -> Row[Any] | None:
        with self._engine.connect() as conn:
            return conn.execute(statement, params or {}).first()

    def _all(self, statement: Any) -> Sequence[Row[Any]]:
        with self._engine.connect() as conn:
            return conn.execute(statement).all()


class StatementRepository(Repository):
    """One statement per operation on the autocommit engine, atomic on its own (``_one`` may write, ``_run`` does)."""

    def _run(self, statement: Any) -> None:
        with self._engine.connect() as conn:
            conn.execute(statement)


class TransactionRepository(Repository):
    """Short transactions on the transactional engine: every write in a ``with self._engine.begin()`` block.
    ``_one`` and ``_all`` only read here (their connection is rolled back when it returns to the pool)."""


def insert_criteria(criteria_hash: str, criteria_content: dict[str, Any]) -> Any:
    """Store a criteria definition unless it is stored (a definition never changes under its hash)."""
    return (
        insert(schema.scoring_criteria_definitions)
        .values(criteria_hash=criteria_hash, criteria_content=criteria_content)
        .on_conflict_do_nothing(index_elements=["criteria_hash"])
    )


def from_row(record: type[R], row: Any, **given: Any) -> R:
    """``record`` (a dataclass) with the ``given`` values and its other fields from the row's columns of the same
    names (the row may have more)."""
    values = row._mapping
    names = [field.name for field in fields(cast(Any, record)) if field.name not in given]
    return record(**{name: values[name] for name in names}, **given)


def columns_of(record: type[Any], table: Any) -> list[Any]:
    """The columns of ``table`` named as the fields of ``record`` (a dataclass), in the fields' order."""
    return [table.c[field.name] for field in fields(record) if field.name in table.c]


def seconds(amount: Any) -> Any:
    """An SQL interval of ``amount`` seconds (a number or an SQL expression)."""
    return func.make_interval(0, 0, 0, 0, 0, 0, amount)


def json_object(build: Any, values: dict[str, Any]) -> Any:
    """``build`` (``func.json_build_object`` or ``func.jsonb_build_object``) of ``values`` by key, the keys literal SQL
    (no bound parameters: a statement built once stays cacheable)."""
    pairs: list[Any] = []
    for key, value in values.items():
        pairs += [literal_column(f"'{key}'"), value]
    return build(*pairs)


def as_json_list(value: Any) -> list[Any]:
    """A json_agg result: pg8000 decodes json to Python; a driver that does not returns text."""
    if value is None:
        return []
    return list(json.loads(value) if isinstance(value, str) else value)
