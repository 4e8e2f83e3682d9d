"""The queue message: one scoring job, made by the producer (the API) and idempotent on ``score_id``.

SQS redrive gives a message a new message id, so the idempotency key is the attempt id the producer put in the body.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field


class ScoringJob(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: Literal[1] = 1
    score_id: UUID
    session_id: str = Field(min_length=1, max_length=255)
    requested_by: str = Field(max_length=255)
    requested_at: datetime
    run_id: UUID | None = None
    """The scoring run the attempt belongs to (none for a single request): the scorer settles the run after it."""
