"""The values the fleet query's text filters can take, with how many sessions have each, in PostgreSQL: agents and
alert types as each session's latest completed score recorded them, missing tools as the counters have them. The
dashboard offers them as it types, so a filter never depends on exact spelling."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.db.schema import criteria_scope
from session_scoring.repositories.base import StatementRepository

_LATEST = schema.latest_scores
_SCORES = schema.session_scores
_COUNTS = schema.latest_score_counts

FACT_FIELDS = {"agent": _SCORES.c.session_agent, "alert_type": _SCORES.c.session_alert_type}
"""The session facts a value list can be made of, by the fleet query's parameter name."""


@dataclass(frozen=True)
class FacetValue:
    value: str
    sessions: int


class FacetRepository(StatementRepository):
    @db_call
    def fact_values(self, field: str, criteria_hash: str | None, limit: int) -> list[FacetValue]:
        """The values of a session fact (``agent`` or ``alert_type``) among the sessions' latest completed scores
        (under ``criteria_hash``, or any when None), the most frequent first."""
        column: Any = FACT_FIELDS[field]
        sessions = func.count().label("sessions")
        statement = (
            select(column.label("value"), sessions)
            .select_from(_LATEST.join(_SCORES, _SCORES.c.score_id == _LATEST.c.score_id))
            .where(_LATEST.c.criteria_hash == criteria_scope(criteria_hash), column.is_not(None))
            .group_by(column)
            .order_by(sessions.desc(), column)
            .limit(limit)
        )
        return [FacetValue(row.value, int(row.sessions)) for row in self._all(statement)]

    @db_call
    def missing_tool_values(self, criteria_hash: str | None, limit: int) -> list[FacetValue]:
        """The tools named missing (as the judge wrote them) by the sessions' latest completed scores, the most
        frequent first."""
        c = _COUNTS.c
        statement = (
            select(c.name, c.sessions)
            .where(c.criteria_hash == criteria_scope(criteria_hash), c.kind == "tool", c.sessions > 0)
            .order_by(c.sessions.desc(), c.name)
            .limit(limit)
        )
        return [FacetValue(row.name, int(row.sessions)) for row in self._all(statement)]
