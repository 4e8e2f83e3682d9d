"""``latest_score_counts``: per criteria hash, the sessions whose latest score is in each band (``kind`` 'band') and
that name each canonical missing tool (``kind`` 'tool'): the distribution and top missing tools read a few rows."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, literal_column, select
from sqlalchemy.dialects.postgresql import insert

from session_scoring.db import schema

_COUNTS = schema.latest_score_counts


def upkeep(latest: Any) -> Any:
    """Move the counters by what ``latest`` (the ``latest_scores`` upsert) changed: +1 for each new row's band and
    tools, -1 for each replaced row's, summed per key (a key whose difference is zero is not touched) and applied as
    atomic increments in key order, so concurrent statements lock counter rows in the same order."""
    replaced = latest.c.previous_band.is_not(None)
    band: Any = literal_column("'band'")
    tool: Any = literal_column("'tool'")
    plus: Any = literal_column("1")
    minus: Any = literal_column("-1")
    deltas = (
        select(latest.c.criteria_hash, band.label("kind"), latest.c.band.label("name"), plus.label("delta"))
        .union_all(
            select(latest.c.criteria_hash, band, latest.c.previous_band, minus).where(replaced),
            select(latest.c.criteria_hash, tool, func.unnest(latest.c.missing_tools), plus),
            select(latest.c.criteria_hash, tool, func.unnest(latest.c.previous_missing_tools), minus).where(replaced),
        )
        .subquery("deltas")
    )
    key = (deltas.c.criteria_hash, deltas.c.kind, deltas.c.name)
    total = func.sum(deltas.c.delta)
    counts = insert(_COUNTS).from_select(
        ["criteria_hash", "kind", "name", "sessions"],
        select(*key, total).group_by(*key).having(total != 0).order_by(*key),
    )
    return counts.on_conflict_do_update(
        index_elements=["criteria_hash", "kind", "name"],
        set_={"sessions": _COUNTS.c.sessions + counts.excluded.sessions},
    ).cte("counts_stored")
