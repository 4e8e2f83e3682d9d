"""The fleet query's domain shapes: which scores (filters), in which order (sort and keyset position), and what a
row carries. The service builds these from the API's parameters; the repository turns them into one SQL statement.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from session_scoring.models.ids import SESSION_ID_PATTERN
from session_scoring.models.records import SessionFacts
from session_scoring.models.request import IsoDateTime
from session_scoring.models.rubric import KEY_PATTERN
from session_scoring.models.scores import ScoreStatus


class SortField(StrEnum):
    TOTAL_SCORE = "total_score"
    SCORED_AT = "scored_at"
    SESSION_STARTED_AT = "session_started_at"


def sort_keys(dimensions: tuple[str, ...]) -> tuple[str, ...]:
    """Every sort key the fleet query accepts where ``dimensions`` are the keys of the rubric(s) in scope: the total,
    a dimension by its key, the scoring or session start time."""
    return (SortField.TOTAL_SCORE, *dimensions, SortField.SCORED_AT, SortField.SESSION_STARTED_AT)


@dataclass(frozen=True)
class FleetFilter:
    """Which attempts the fleet query returns; None is "any"."""

    criteria_hash: str | None
    status: ScoreStatus = ScoreStatus.COMPLETED
    latest_only: bool = True
    """Only each session's latest completed attempt (under ``criteria_hash`` when one is given)."""
    min_score: int | None = None
    max_score: int | None = None
    agent: str | None = None
    alert_type: str | None = None
    provider: str | None = None
    scored_after: datetime | None = None
    scored_before: datetime | None = None
    session_started_after: datetime | None = None
    session_started_before: datetime | None = None
    missing_tool: str | None = None
    """Attempts whose judge named this tool missing (case-insensitive)."""
    session_id: str | None = None
    compared_to: str | None = None
    """With ``compared_band``: only sessions whose latest completed score under this criteria hash is in that band
    (a cell of the criteria comparison's band transitions)."""
    compared_band: str | None = None
    outcome: str | None = None
    """Attempts with this outcome (``models.scores.Outcome``)."""


@dataclass(frozen=True)
class KeysetPosition:
    """The sort value and score id of the last row of a page: the next page starts strictly after it."""

    value: Any
    score_id: uuid.UUID


@dataclass(frozen=True)
class FleetOrder:
    key: str
    """A ``SortField``, or a dimension key of the rubric(s) of the criteria in scope (``sort_keys``)."""
    descending: bool = True
    after: KeysetPosition | None = None


@dataclass(frozen=True)
class FleetScoreRecord:
    """One attempt as the fleet query returns it: the score, the judge, the session facts, the missing tools."""

    score_id: uuid.UUID
    session_id: str
    criteria_hash: str
    status: ScoreStatus
    total_score: int | None
    score_breakdown: dict[str, int] | None
    requested_at: datetime
    scored_at: datetime | None
    judge_provider: str | None
    judge_model: str | None
    facts: SessionFacts | None
    missing_tools: tuple[str, ...]
    outcome: str | None = None

    def sort_value(self, key: str) -> Any:
        """The value of ``key`` in this row (what a cursor after this row holds)."""
        if key == SortField.SESSION_STARTED_AT:
            return self.facts.started_at if self.facts else None
        if key in (SortField.TOTAL_SCORE, SortField.SCORED_AT):
            return getattr(self, key)
        return (self.score_breakdown or {}).get(key)


MAX_STREAMED_ROWS = 10_000_000
"""The largest ``limit`` of a streamed answer (CSV, JSON Lines); leave ``limit`` out for every row."""


class FleetParams(BaseModel):
    """The query parameters of ``GET /scores`` (types checked, meaning not yet: ``InsightsService.check``)."""

    model_config = ConfigDict(frozen=True)

    criteria_hash: str = Field("current", description="'current' (default), 'any', or a criteria hash")
    min_score: int | None = Field(None, ge=0, le=100)
    max_score: int | None = Field(None, ge=0, le=100)
    band: str | None = Field(None, description="failed, weak, adequate, good or near_perfect")
    status: str = Field(
        ScoreStatus.COMPLETED.value, description="Attempt status; other than completed needs latest_only=false"
    )
    agent: str | None = None
    alert_type: str | None = None
    provider: str | None = Field(None, description="The judge's provider (e.g. anthropic, heuristic)")
    scored_after: IsoDateTime | None = None
    scored_before: IsoDateTime | None = None
    session_started_after: IsoDateTime | None = None
    session_started_before: IsoDateTime | None = None
    latest_only: bool = Field(True, description="Only each session's latest completed attempt under the criteria")
    missing_tool: str | None = Field(None, description="Attempts that name this tool missing")
    outcome: str | None = Field(
        None, description="Attempts with this outcome: found, partly_found, missed or no_reference"
    )
    sort: str = Field(
        SortField.SCORED_AT.value,
        pattern=KEY_PATTERN,
        description="total_score, scored_at, session_started_at, or a dimension key of the rubric of the criteria in "
        "scope (a hash: its rubric; current: the current rubric; any: every rubric in use); another key is a 422 "
        "listing the accepted ones",
    )
    order: str = Field("desc", description="asc or desc")
    cursor: str | None = Field(None, description="next_cursor of the previous page")
    limit: int | None = Field(
        None,
        ge=1,
        le=MAX_STREAMED_ROWS,
        description="Rows (json: 50 by default, at most 500; csv/jsonl: all by default, at most "
        f"{MAX_STREAMED_ROWS:,})",
    )
    format: str = Field("json", description="json, csv or jsonl")
    session_id: str | None = Field(
        None, max_length=128, pattern=SESSION_ID_PATTERN, description="Only this session's attempts"
    )
    compared_to: str | None = Field(
        None,
        description="With compared_band: only sessions whose latest completed score under this criteria "
        "('current' or a hash) is in compared_band (a cell of the criteria comparison)",
    )
    compared_band: str | None = Field(None, description="The band under compared_to")
    with_total: bool = Field(False, description="Also count the rows matching the filters (format json)")
