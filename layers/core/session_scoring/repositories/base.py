"""What the repositories share beyond ``db_call`` (``session_scoring.db.calls``): running one statement on the
autocommit engine, and decoding JSON aggregates."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, Row


class StatementRepository:
    """A repository whose every operation is one statement on the autocommit engine (atomic on its own)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def _one(self, statement: Any, params: dict[str, Any] | None = None) -> Row[Any] | None:
        with self._engine.connect() as conn:
            return conn.execute(statement, params or {}).first()

    def _run(self, statement: Any) -> None:
        with self._engine.connect() as conn:
            conn.execute(statement)

    def _all(self, statement: Any) -> Sequence[Row[Any]]:
        with self._engine.connect() as conn:
            return conn.execute(statement).all()


def as_json_list(value: Any) -> list[Any]:
    """A json_agg result: pg8000 decodes json to Python; a driver that does not returns text."""
    if value is None:
        return []
    if isinstance(value, str):
        import json

        decoded: list[Any] = json.loads(value)
        return decoded
    return list(value)
