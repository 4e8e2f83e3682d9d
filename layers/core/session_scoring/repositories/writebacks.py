"""Write-backs of completed scores to their trace stores (``score_writebacks``), one row per attempt, each *taken*
by one statement before the store is called (see ``take``), so a job delivered twice writes once.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import func, or_, select, update
from sqlalchemy.dialects.postgresql import insert

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.models.records import WriteBackRecord
from session_scoring.repositories.base import StatementRepository, json_object, seconds

_WRITEBACKS = schema.score_writebacks
_COLUMNS = [column for column in _WRITEBACKS.c if column.name != "score_id"]
_RECORD = TypeAdapter(WriteBackRecord)


def writeback_document() -> Any:
    """The write-back of the attempt in the enclosing statement (``session_scores``), as a JSON object or null: the
    score's documents and records read it with the attempt."""
    return (
        select(json_object(func.json_build_object, {column.name: column for column in _COLUMNS}))
        .where(_WRITEBACKS.c.score_id == schema.session_scores.c.score_id)
        .scalar_subquery()
    )


def writeback_from(value: Any) -> WriteBackRecord | None:
    """The record from :func:`writeback_document`'s JSON (decoded by the driver, or text from another driver)."""
    if value is None:
        return None
    return _RECORD.validate_json(value) if isinstance(value, str) else _RECORD.validate_python(value)


class WriteBackRepository(StatementRepository):
    @db_call
    def take(self, score_id: uuid.UUID, sink: str, stale_seconds: int) -> int | None:
        """Take the attempt's write-back for this writer: a new row, a ``retrying`` one or a ``writing`` one whose
        writer went quiet for ``stale_seconds`` becomes ``writing`` with one more try (the try number); None when it is
        done or another writer holds it."""
        statement = insert(_WRITEBACKS).values(
            score_id=score_id, sink=sink, status="writing", tries=1, updated_at=func.now()
        )
        stale = _WRITEBACKS.c.updated_at < func.now() - seconds(stale_seconds)
        row = self._one(
            statement.on_conflict_do_update(
                index_elements=[_WRITEBACKS.c.score_id],
                set_={
                    "status": "writing",
                    "sink": statement.excluded.sink,
                    "tries": _WRITEBACKS.c.tries + 1,
                    "updated_at": func.now(),
                },
                where=or_(_WRITEBACKS.c.status == "retrying", (_WRITEBACKS.c.status == "writing") & stale),
            ).returning(_WRITEBACKS.c.tries)
        )
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
    def failed(self, score_id: uuid.UUID, error: str, retry: bool) -> None:
        """The try failed: the job comes back to try again (``retry``), or the write-back failed for good (the store
        refused it, or every delivery was used)."""
        self._finish(score_id, {"status": "retrying" if retry else "failed", "error_message": error})
