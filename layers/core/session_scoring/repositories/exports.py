"""Export jobs in PostgreSQL (table ``export_jobs``). The status moves queued -> running -> completed or failed, each
move conditional on the status it leaves, so a duplicate delivery of the job's message never runs it twice and never
rewrites a finished job.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import func, insert, select, update

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.models.export import ExportJobRecord, ExportStatus, TrainingExportParameters
from session_scoring.repositories.base import StatementRepository

_JOBS = schema.export_jobs

#: Errors are stored whole up to this length (a boto3 error with its request id fits easily).
MAX_ERROR_CHARS = 4000


class ExportJobRepository(StatementRepository):
    @db_call
    def create(self, parameters: TrainingExportParameters, requested_by: str) -> ExportJobRecord:
        """Store a queued training export job under a new id."""
        row = self._one(
            insert(_JOBS)
            .values(
                export_id=uuid.uuid4(),
                kind="training",
                parameters=parameters.model_dump(mode="json"),
                status=ExportStatus.QUEUED.value,
                requested_by=requested_by[:255],
            )
            .returning(*_JOBS.c)
        )
        assert row is not None
        return ExportJobRecord.model_validate(row._mapping)

    @db_call
    def get(self, export_id: uuid.UUID) -> ExportJobRecord | None:
        row = self._one(select(_JOBS).where(_JOBS.c.export_id == export_id))
        return None if row is None else ExportJobRecord.model_validate(row._mapping)

    def _move(self, export_id: uuid.UUID, leaving: list[ExportStatus], **values: Any) -> ExportJobRecord | None:
        """Set ``values`` on the job if its status is one of ``leaving``: the job as it became, or None."""
        row = self._one(
            update(_JOBS)
            .where(_JOBS.c.export_id == export_id, _JOBS.c.status.in_([status.value for status in leaving]))
            .values(**values)
            .returning(*_JOBS.c)
        )
        return None if row is None else ExportJobRecord.model_validate(row._mapping)

    @db_call
    def claim(self, export_id: uuid.UUID) -> ExportJobRecord | None:
        """Queued -> running (with its start time); None when the job is not queued (already taken or finished)."""
        return self._move(export_id, [ExportStatus.QUEUED], status=ExportStatus.RUNNING.value, started_at=func.now())

    @db_call
    def complete(self, export_id: uuid.UUID, s3_key: str, rows_written: int, bytes_written: int) -> None:
        """Running -> completed with where the file is and its size (nothing when the job was not running)."""
        self._move(
            export_id,
            [ExportStatus.RUNNING],
            status=ExportStatus.COMPLETED.value,
            s3_key=s3_key,
            rows_written=rows_written,
            bytes_written=bytes_written,
            finished_at=func.now(),
        )

    @db_call
    def fail(self, export_id: uuid.UUID, error: str, rows_written: int | None = None) -> None:
        """Queued or running -> failed with the reason and how far it got (nothing when it had already finished)."""
        self._move(
            export_id,
            [ExportStatus.QUEUED, ExportStatus.RUNNING],
            status=ExportStatus.FAILED.value,
            error_message=error[:MAX_ERROR_CHARS],
            rows_written=rows_written,
            finished_at=func.now(),
        )
