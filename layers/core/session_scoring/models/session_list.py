"""The sessions list's query (``GET /sessions``) as the route hands it to the service: its parameters and their
choices. No SQLAlchemy here: the API's router imports this at cold init."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum


class Scored(StrEnum):
    ANY = "any"
    SCORED = "scored"
    UNSCORED = "unscored"


class CriteriaScope(StrEnum):
    """Which scores count: only those under the current criteria hash, or under any."""

    ANY = "any"
    CURRENT = "current"


class SessionSort(StrEnum):
    SOURCE = "source"
    SCORE_DESC = "score_desc"
    SCORE_ASC = "score_asc"


@dataclass(frozen=True)
class SessionListParams:
    """The query parameters of ``GET /sessions`` as the route received them (types checked, meaning not yet)."""

    page: int = 1
    page_size: int = 20
    statuses: tuple[str, ...] = ()
    scored: str = Scored.ANY.value
    bands: tuple[str, ...] = ()
    criteria: str = CriteriaScope.ANY.value
    sort: str = SessionSort.SOURCE.value
    cursor: str | None = None
    started_after: datetime | None = None
    """Only sessions that started at or after this instant (a naive one is UTC)."""
    started_before: datetime | None = None
    """Only sessions that started before this instant (exclusive)."""
