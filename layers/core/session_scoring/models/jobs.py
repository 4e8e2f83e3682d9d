"""The queue message: one scoring job, made by the producer (the API) and idempotent on ``score_id``.

SQS redrive gives a message a new message id, so the idempotency key is the attempt id the producer put in the body.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer


class ScoringJob(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = 1
    score_id: UUID
    session_id: str = Field(min_length=1, max_length=255)
    requested_by: str = Field(max_length=255)
    requested_at: datetime
    run_id: UUID | None = None
    """The scoring run the attempt belongs to (none for a single request): the scorer settles the run after it."""
    deferrals: int = Field(default=0, ge=0)
    """How many times the job was handed back as a fresh, delayed copy of its message because the judge was busy
    (a rate limit with retry-after, the circuit open). A message without it (every message before it) has none."""

    @model_serializer(mode="wrap")
    def _without_zero_deferrals(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Leave ``deferrals`` out while it is 0: every message the API sends stays readable by a scorer that
        predates the field (the model forbids unknown fields), for as long as both run during a deployment."""
        data: dict[str, Any] = handler(self)
        if self.deferrals == 0:
            data.pop("deferrals", None)
        return data

    def deferred(self) -> ScoringJob:
        """The job as its next deferred copy carries it: the same attempt, one more deferral."""
        return self.model_copy(update={"deferrals": self.deferrals + 1})
