"""Write-backs of completed scores to their trace stores (``score_writebacks``), one row per attempt.

A write-back is *taken* by one statement before the store is called: a new row, a ``retrying`` one, or a ``writing``
one whose writer went quiet for longer than ``stale_seconds`` becomes ``writing`` with one more try. A ``written`` or
``failed`` row, or one ``writing`` under a live writer, is not taken: a job delivered twice writes once.
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Integer, String, bindparam, func, or_, select, update
from sqlalchemy.dialects.postgresql import UUID, insert

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.models.records import WriteBackRecord, writeback_status
from session_scoring.repositories.base import StatementRepository, json_object, seconds

_WRITEBACKS = schema.score_writebacks


def _take_statement() -> Any:
    statement = insert(_WRITEBACKS).values(
        score_id=bindparam("p_score_id", type_=UUID(as_uuid=True)),
        sink=bindparam("p_sink", type_=String),
        status="writing",
        tries=1,
        updated_at=func.now(),
    )
    stale = _WRITEBACKS.c.updated_at < func.now() - seconds(bindparam("p_stale_seconds", type_=Integer))
    return statement.on_conflict_do_update(
        index_elements=[_WRITEBACKS.c.score_id],
        set_={
            "status": "writing",
            "sink": statement.excluded.sink,
            "tries": _WRITEBACKS.c.tries + 1,
            "updated_at": func.now(),
        },
        where=or_(_WRITEBACKS.c.status == "retrying", (_WRITEBACKS.c.status == "writing") & stale),
    ).returning(_WRITEBACKS.c.tries)


_TAKE = _take_statement()
_COLUMNS = [column for column in _WRITEBACKS.c if column.name != "score_id"]
_BY_ID = select(*_COLUMNS).where(_WRITEBACKS.c.score_id == bindparam("p_score_id", type_=UUID(as_uuid=True)))


def writeback_document() -> Any:
    """The write-back of the attempt in the enclosing statement (``session_scores``), as a JSON object or null: the
    score's documents and records read it with the attempt."""
    return (
        select(json_object(func.json_build_object, {column.name: column for column in _COLUMNS}))
        .where(_WRITEBACKS.c.score_id == schema.session_scores.c.score_id)
        .scalar_subquery()
    )


def writeback_from(value: Any) -> WriteBackRecord | None:
    """The record from :func:`writeback_document`'s JSON (decoded by the driver, or text from another driver), or
    from a row of ``score_writebacks``."""
    if value is None:
        return None
    data: dict[str, Any] = json.loads(value) if isinstance(value, str) else dict(value)
    return WriteBackRecord(
        sink=data["sink"],
        status=writeback_status(data["status"]),
        tries=int(data["tries"]),
        updated_at=_timestamp(data["updated_at"]) or datetime.now(UTC),
        detail=data.get("detail"),
        error_message=data.get("error_message"),
        written_at=_timestamp(data.get("written_at")),
    )


def _timestamp(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value))


class WriteBackRepository(StatementRepository):
    @db_call
    def take(self, score_id: uuid.UUID, sink: str, stale_seconds: int) -> int | None:
        """Take the attempt's write-back for this writer: the try number, or None when it is done or another writer
        holds it."""
        row = self._one(_TAKE, {"p_score_id": score_id, "p_sink": sink, "p_stale_seconds": stale_seconds})
        return None if row is None else int(row.tries)

    def _finish(self, score_id: uuid.UUID, values: dict[str, Any]) -> None:
        self._run(
            update(_WRITEBACKS)
            .where(_WRITEBACKS.c.score_id == score_id, _WRITEBACKS.c.status == "writing")
            .values(updated_at=func.now(), **values)
        )

    @db_call
    def written(self, score_id: uuid.UUID, detail: str) -> None:
        self._finish(score_id, {"status": "written", "detail": detail, "error_message": None, "written_at": func.now()})

    @db_call
    def retrying(self, score_id: uuid.UUID, error: str) -> None:
        """The try failed and the job comes back to try again."""
        self._finish(score_id, {"status": "retrying", "error_message": error})

    @db_call
    def failed(self, score_id: uuid.UUID, error: str) -> None:
        """The write-back failed for good (the store refused it, or every delivery was used)."""
        self._finish(score_id, {"status": "failed", "error_message": error})

    @db_call
    def get(self, score_id: uuid.UUID) -> WriteBackRecord | None:
        row = self._one(_BY_ID, {"p_score_id": score_id})
        return None if row is None else writeback_from(row._mapping)
