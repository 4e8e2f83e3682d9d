"""Score analytics computed in PostgreSQL: the distribution over the score bands and the most frequent missing tools.

Both count **completed** attempts only, and only the **latest completed attempt of each session** (within the
criteria hash, when one is given). Every attempt is kept (re-scoring never deletes), so counting all attempts would
weigh a session by how often it was re-scored; the latest verdict is what an operator sees for the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Engine, Table, and_, case, func, literal, select
from sqlalchemy.dialects.postgresql import distinct_on
from sqlalchemy.sql.selectable import Subquery

from session_scoring.db.calls import db_call
from session_scoring.db.schema import MissingToolRow, ScoringCriteriaDefinitionRow, SessionScoreRow
from session_scoring.models.scores import SCORE_BANDS

_SCORES = cast(Table, SessionScoreRow.__table__)
_TOOLS = cast(Table, MissingToolRow.__table__)
_CRITERIA = cast(Table, ScoringCriteriaDefinitionRow.__table__)
_REAL = _SCORES.c.sample_kind.is_(None)
"""Judge-quality samples (migration 0010) are never a session's score and never counted."""

#: Session ids returned per bar at most (the count is always exact).
MAX_SESSION_IDS = 50


@dataclass(frozen=True)
class BandCount:
    band: str
    count: int
    session_ids: list[str]


@dataclass(frozen=True)
class ToolCount:
    tool_name: str
    count: int
    session_ids: list[str]


@dataclass(frozen=True)
class CriteriaUsage:
    criteria_hash: str
    criteria_content: dict[str, Any]
    created_at: datetime
    completed_sessions: int


RECENT_WINDOW = 10_000
"""The session ids listed beside a count come from this many most recent completed attempts (an index scan on
``scored_at``): within that window a session's newest attempt is its latest, so no pass over every session is
needed to name the most recent ones. Counts are always over every session."""


def _latest_completed(criteria_hash: str | None) -> Subquery:
    """The latest completed attempt of each session (optionally within one criteria hash): an index-only scan of
    ``ix_session_scores_latest_completed[_by_criteria]`` (migration 0002) in DISTINCT ON order, no sort."""
    query = select(_SCORES.c.score_id, _SCORES.c.session_id, _SCORES.c.total_score).where(
        _SCORES.c.status == "completed", _REAL
    )
    order: list[Any] = [_SCORES.c.session_id, _SCORES.c.scored_at.desc(), _SCORES.c.score_id.desc()]
    if criteria_hash is not None:
        query = query.where(_SCORES.c.criteria_hash == criteria_hash)
        order.insert(0, _SCORES.c.criteria_hash)
    return query.ext(distinct_on(*order[: len(order) - 2])).order_by(*order).subquery("latest")


def _recent_latest(criteria_hash: str | None) -> Subquery:
    """The latest completed attempts among the RECENT_WINDOW most recent ones, newest first, numbered."""
    recent = select(_SCORES.c.score_id, _SCORES.c.session_id, _SCORES.c.total_score, _SCORES.c.scored_at).where(
        _SCORES.c.status == "completed", _REAL
    )
    if criteria_hash is not None:
        recent = recent.where(_SCORES.c.criteria_hash == criteria_hash)
    window = recent.order_by(_SCORES.c.scored_at.desc(), _SCORES.c.score_id.desc()).limit(RECENT_WINDOW).subquery()
    return (
        select(window)
        .ext(distinct_on(window.c.session_id))
        .order_by(window.c.session_id, window.c.scored_at.desc(), window.c.score_id.desc())
        .subquery("recent_latest")
    )


def _band_of(total: Any) -> Any:
    return case(*[(and_(total >= b.min_score, total <= b.max_score), literal(b.band)) for b in SCORE_BANDS])


def _newest_ids(rows: Sequence[Any], key: str) -> dict[str, list[str]]:
    """Up to MAX_SESSION_IDS session ids per ``key`` value, newest first, from rows sorted newest first."""
    ids: dict[str, list[str]] = {}
    for row in rows:
        listed = ids.setdefault(getattr(row, key), [])
        if len(listed) < MAX_SESSION_IDS:
            listed.append(row.session_id)
    return ids


class AnalyticsRepository:
    """Read-only aggregate queries over the score tables."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def _rows(self, statement: Any) -> Sequence[Any]:
        with self._engine.connect() as conn:
            return conn.execute(statement).all()

    @db_call
    def score_distribution(self, criteria_hash: str | None) -> list[BandCount]:
        """Sessions per score band, every band present (zero when empty), in band order."""
        latest = _latest_completed(criteria_hash)
        banded = select(_band_of(latest.c.total_score).label("band")).subquery("banded")
        counts = self._rows(select(banded.c.band, func.count().label("sessions")).group_by(banded.c.band))
        recent = _recent_latest(criteria_hash)
        named = self._rows(
            select(_band_of(recent.c.total_score).label("band"), recent.c.session_id).order_by(
                recent.c.scored_at.desc(), recent.c.score_id.desc()
            )
        )
        ids = _newest_ids(named, "band")
        found = {row.band: int(row.sessions) for row in counts if row.band is not None}
        return [BandCount(b.band, found.get(b.band, 0), ids.get(b.band, [])) for b in SCORE_BANDS]

    @db_call
    def missing_tools(self, criteria_hash: str | None, limit: int) -> list[ToolCount]:
        """The tools named missing most often, by number of sessions, most frequent first."""
        latest = _latest_completed(criteria_hash)
        # Each latest attempt is one session: distinct (attempt, tool) pairs count sessions.
        per_session = (
            select(_TOOLS.c.tool_name, _TOOLS.c.score_id)
            .join(latest, latest.c.score_id == _TOOLS.c.score_id)
            .group_by(_TOOLS.c.tool_name, _TOOLS.c.score_id)
            .subquery("per_session")
        )
        count = func.count().label("sessions")
        top = self._rows(
            select(per_session.c.tool_name, count)
            .group_by(per_session.c.tool_name)
            .order_by(count.desc(), per_session.c.tool_name)
            .limit(limit)
        )
        if not top:
            return []
        recent = _recent_latest(criteria_hash)
        named = self._rows(
            select(_TOOLS.c.tool_name, recent.c.session_id)
            .join(recent, recent.c.score_id == _TOOLS.c.score_id)
            .where(_TOOLS.c.tool_name.in_([row.tool_name for row in top]))
            .distinct()
            .add_columns(recent.c.scored_at, recent.c.score_id)
            .order_by(recent.c.scored_at.desc(), recent.c.score_id.desc())
        )
        ids = _newest_ids(named, "tool_name")
        return [ToolCount(row.tool_name, int(row.sessions), ids.get(row.tool_name, [])) for row in top]

    @db_call
    def criteria_usage(self) -> list[CriteriaUsage]:
        """Every stored criteria definition with the number of sessions it completed, newest definition first."""
        completed = (
            select(_SCORES.c.criteria_hash, func.count(func.distinct(_SCORES.c.session_id)).label("sessions"))
            .where(_SCORES.c.status == "completed", _REAL)
            .group_by(_SCORES.c.criteria_hash)
            .subquery("completed")
        )
        rows = self._rows(
            select(
                _CRITERIA.c.criteria_hash,
                _CRITERIA.c.criteria_content,
                _CRITERIA.c.created_at,
                func.coalesce(completed.c.sessions, 0).label("completed_sessions"),
            )
            .outerjoin(completed, completed.c.criteria_hash == _CRITERIA.c.criteria_hash)
            .order_by(_CRITERIA.c.created_at.desc())
        )
        return [
            CriteriaUsage(row.criteria_hash, row.criteria_content, row.created_at, int(row.completed_sessions))
            for row in rows
        ]
