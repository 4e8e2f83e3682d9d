"""The training export's lines (a session with its score, as an OpenAI chat fine-tuning conversation, ``messages``
and ``tools``, or as the normalised session) and the export job (in AWS an export is written to S3 by a job).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from session_scoring.models.session import Session


class _Line(BaseModel):
    model_config = ConfigDict(frozen=True)


class ChatFunctionCall(_Line):
    name: str
    arguments: str = Field(description="The call's arguments as a JSON string")


class ChatToolCall(_Line):
    id: str
    type: Literal["function"] = "function"
    function: ChatFunctionCall


class ChatMessage(_Line):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ChatToolCall] | None = None
    tool_call_id: str | None = None


class ChatFunction(_Line):
    name: str
    description: str | None = None
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ChatTool(_Line):
    type: Literal["function"] = "function"
    function: ChatFunction


class TrainingExample(_Line):
    """One line of the export: the session id, its score, and the conversation or the normalised session."""

    session_id: str
    score_id: uuid.UUID
    criteria_hash: str
    total_score: int
    score_breakdown: dict[str, int]
    outcome: str | None = Field(
        default=None,
        description="Whether the conclusion found the session's reference root cause (found, partly_found, missed, "
        "no_reference); null for a score judged before outcomes were. A high score that missed is no example to learn.",
    )
    messages: list[ChatMessage] | None = None
    tools: list[ChatTool] | None = None
    session: Session | None = None


class ExportStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


class TrainingExportParameters(BaseModel):
    """What a training export job selects: stored on the job (``parameters``), with the criteria already resolved
    (``current`` becomes the hash in force when the job was asked for; None is any criteria)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    min_score: int
    criteria_hash: str | None
    format: str


class ExportJobRecord(BaseModel):
    """An export job as the repository reads it (never the ORM row)."""

    model_config = ConfigDict(frozen=True)

    export_id: uuid.UUID
    kind: Literal["training"]
    parameters: TrainingExportParameters
    status: ExportStatus
    rows_written: int | None = None
    bytes_written: int | None = None
    s3_key: str | None = None
    error_message: str | None = None
    requested_by: str
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None


class ExportMessage(BaseModel):
    """The exports queue's message: which job to run. The job (its parameters) is in the database; the message only
    names it, so a redriven message runs the job as it was asked for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = 1
    export_id: uuid.UUID
