"""Score analytics computed in PostgreSQL: the distribution over the score bands and the most frequent missing tools.

Both count **completed** attempts only, and only the **latest completed attempt of each session** (within the
criteria hash, when one is given). Every attempt is kept (re-scoring never deletes), so counting all attempts would
weigh a session by how often it was re-scored; the latest verdict is what an operator sees for the session.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import and_, case, func, literal, select
from sqlalchemy.dialects.postgresql import aggregate_order_by, distinct_on
from sqlalchemy.orm import Session as DbSession
from sqlalchemy.orm import sessionmaker
from sqlalchemy.sql.selectable import Subquery

from session_scoring.db.calls import db_call
from session_scoring.db.schema import MissingToolRow, ScoringCriteriaDefinitionRow, SessionScoreRow
from session_scoring.models.scores import SCORE_BANDS

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


def _latest_completed(criteria_hash: str | None) -> Subquery:
    """The latest completed attempt of each session (optionally within one criteria hash)."""
    query = select(
        SessionScoreRow.score_id, SessionScoreRow.session_id, SessionScoreRow.total_score, SessionScoreRow.scored_at
    ).where(SessionScoreRow.status == "completed")
    if criteria_hash is not None:
        query = query.where(SessionScoreRow.criteria_hash == criteria_hash)
    return (
        query.ext(distinct_on(SessionScoreRow.session_id))
        .order_by(SessionScoreRow.session_id, SessionScoreRow.scored_at.desc(), SessionScoreRow.score_id.desc())
        .subquery("latest")
    )


class AnalyticsRepository:
    """Read-only aggregate queries over the score tables."""

    def __init__(self, session_factory: sessionmaker[DbSession]) -> None:
        self._sessions = session_factory

    @db_call
    def score_distribution(self, criteria_hash: str | None) -> list[BandCount]:
        """Sessions per score band, every band present (zero when empty), in band order."""
        latest = _latest_completed(criteria_hash)
        banded = select(
            latest.c.session_id,
            latest.c.scored_at,
            case(
                *[
                    (and_(latest.c.total_score >= b.min_score, latest.c.total_score <= b.max_score), literal(b.band))
                    for b in SCORE_BANDS
                ],
            ).label("band"),
        ).subquery("banded")
        ids = func.array_agg(aggregate_order_by(banded.c.session_id, banded.c.scored_at.desc()))
        with self._sessions() as db:
            rows = db.execute(
                select(banded.c.band, func.count().label("sessions"), ids[1:MAX_SESSION_IDS].label("session_ids"))
                .where(banded.c.band.is_not(None))
                .group_by(banded.c.band)
            ).all()
        found = {row.band: BandCount(row.band, int(row.sessions), list(row.session_ids or [])) for row in rows}
        return [found.get(b.band, BandCount(b.band, 0, [])) for b in SCORE_BANDS]

    @db_call
    def missing_tools(self, criteria_hash: str | None, limit: int) -> list[ToolCount]:
        """The tools named missing most often, by number of sessions, most frequent first."""
        latest = _latest_completed(criteria_hash)
        per_session = (
            select(MissingToolRow.tool_name, latest.c.session_id, func.max(latest.c.scored_at).label("scored_at"))
            .join(latest, latest.c.score_id == MissingToolRow.score_id)
            .group_by(MissingToolRow.tool_name, latest.c.session_id)
            .subquery("per_session")
        )
        ids = func.array_agg(aggregate_order_by(per_session.c.session_id, per_session.c.scored_at.desc()))
        count = func.count().label("sessions")
        with self._sessions() as db:
            rows = db.execute(
                select(per_session.c.tool_name, count, ids[1:MAX_SESSION_IDS].label("session_ids"))
                .group_by(per_session.c.tool_name)
                .order_by(count.desc(), per_session.c.tool_name)
                .limit(limit)
            ).all()
        return [ToolCount(row.tool_name, int(row.sessions), list(row.session_ids or [])) for row in rows]

    @db_call
    def criteria_usage(self) -> list[CriteriaUsage]:
        """Every stored criteria definition with the number of sessions it completed, newest definition first."""
        completed = func.count(func.distinct(SessionScoreRow.session_id)).label("completed_sessions")
        with self._sessions() as db:
            rows = db.execute(
                select(
                    ScoringCriteriaDefinitionRow.criteria_hash,
                    ScoringCriteriaDefinitionRow.criteria_content,
                    ScoringCriteriaDefinitionRow.created_at,
                    completed,
                )
                .outerjoin(
                    SessionScoreRow,
                    and_(
                        SessionScoreRow.criteria_hash == ScoringCriteriaDefinitionRow.criteria_hash,
                        SessionScoreRow.status == "completed",
                    ),
                )
                .group_by(ScoringCriteriaDefinitionRow.criteria_hash)
                .order_by(ScoringCriteriaDefinitionRow.created_at.desc())
            ).all()
        return [
            CriteriaUsage(row.criteria_hash, row.criteria_content, row.created_at, int(row.completed_sessions))
            for row in rows
        ]
