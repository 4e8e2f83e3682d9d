"""``latest_score_counts``: per criteria hash, the sessions whose latest score is in each band (``kind`` 'band') and
that name each canonical missing tool (``kind`` 'tool'): the distribution and top missing tools read a few rows."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, literal_column, select

from session_scoring.db import schema
from session_scoring.repositories.read_models import MINUS, PLUS, add_counts

_COUNTS = schema.latest_score_counts


def upkeep(latest: Any) -> Any:
    """Move the counters by what ``latest`` (the ``latest_scores`` upsert) changed: +1 for each new row's band and
    tools, -1 for each replaced row's."""
    replaced = latest.c.previous_band.is_not(None)
    band: Any = literal_column("'band'")
    tool: Any = literal_column("'tool'")
    deltas = (
        select(latest.c.criteria_hash, band.label("kind"), latest.c.band.label("name"), PLUS.label("delta"))
        .union_all(
            select(latest.c.criteria_hash, band, latest.c.previous_band, MINUS).where(replaced),
            select(latest.c.criteria_hash, tool, func.unnest(latest.c.missing_tools), PLUS),
            select(latest.c.criteria_hash, tool, func.unnest(latest.c.previous_missing_tools), MINUS).where(replaced),
        )
        .subquery("deltas")
    )
    key = ("criteria_hash", "kind", "name")
    return add_counts(_COUNTS, deltas, key, {"sessions": func.sum(deltas.c.delta)}, "counts_stored")
