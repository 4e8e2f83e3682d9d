"""``outcome_counts`` (``db/schema.py``): what ``GET /analytics/outcome`` reads. It follows ``trend_members``: the
verdict's statement and a facts backfill move it by the members they change (``upkeep``), and ``rebuild`` derives it
again from ``trend_members``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, Integer, func, literal_column, select, text, union_all
from sqlalchemy import cast as sql_cast

from session_scoring.db import schema
from session_scoring.repositories.read_models import add_counts, replaced

TABLES = ("outcome_counts",)

_COUNTS = schema.outcome_counts
_KEY = ("criteria_hash", "agent_unknown", "agent", "alert_type_unknown", "alert_type", "outcome")


def upkeep(members: Any) -> Any:
    """The CTE moving ``outcome_counts`` by what ``members`` (as for ``trends._histogram_upkeep``) changed: -1
    session and its total in the replaced member's key, +1 in the new one's."""

    def side(agent: Any, alert_type: Any, outcome: Any, total: Any, sign: int) -> Any:
        signed: Any = literal_column(str(sign))
        return select(
            members.c.criteria_hash,
            agent.is_(None).label("agent_unknown"),
            func.coalesce(agent, literal_column("''")).label("agent"),
            alert_type.is_(None).label("alert_type_unknown"),
            func.coalesce(alert_type, literal_column("''")).label("alert_type"),
            outcome.label("outcome"),
            signed.label("sessions"),
            (signed * sql_cast(total, BigInteger)).label("total_sum"),
        ).where(outcome.is_not(None))

    came = side(members.c.session_agent, members.c.session_alert_type, members.c.outcome, members.c.total_score, 1)
    gone = side(
        replaced(members, "agent"),
        replaced(members, "alert_type"),
        replaced(members, "outcome"),
        sql_cast(replaced(members, "total"), Integer),
        -1,
    ).where(members.c.previous.is_not(None))
    deltas = union_all(came, gone).subquery("outcome_deltas")
    sums = {
        "sessions": sql_cast(func.sum(deltas.c.sessions), Integer),
        "total_sum": sql_cast(func.sum(deltas.c.total_sum), BigInteger),
    }
    return add_counts(_COUNTS, deltas, _KEY, sums, "outcome_counts_stored")


_REBUILD = """
INSERT INTO outcome_counts (criteria_hash, agent_unknown, agent, alert_type_unknown, alert_type, outcome, sessions,
                            total_sum)
SELECT criteria_hash, session_agent IS NULL, coalesce(session_agent, ''), session_alert_type IS NULL,
       coalesce(session_alert_type, ''), outcome, count(*), sum(total_score)
FROM trend_members
WHERE outcome IS NOT NULL
GROUP BY 1, 2, 3, 4, 5, 6
"""


def rebuild() -> list[Any]:
    """The statement filling the emptied table from ``trend_members`` (rebuild those first)."""
    return [text(_REBUILD)]
