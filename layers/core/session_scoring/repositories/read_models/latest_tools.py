"""``latest_score_tools``: one row per canonical missing tool of each latest score, with its scored_at (the newest
sessions naming a tool, read by an index scan)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import all_, delete, func, select, true
from sqlalchemy.dialects.postgresql import insert

from session_scoring.db import schema

_LATEST_TOOLS = schema.latest_score_tools


def upkeep(latest: Any) -> tuple[Any, ...]:
    """Follow what ``latest`` (the ``latest_scores`` upsert) changed: the tool rows of a replaced score that the new
    one does not name are deleted and the others upserted (disjoint rows: one statement never touches a row twice)."""
    dropped = (
        delete(_LATEST_TOOLS)
        .where(
            _LATEST_TOOLS.c.criteria_hash == latest.c.criteria_hash,
            _LATEST_TOOLS.c.session_id == latest.c.session_id,
            _LATEST_TOOLS.c.tool_name != all_(latest.c.missing_tools),
        )
        .cte("tools_unlisted")
    )
    named = func.unnest(latest.c.missing_tools).table_valued("tool_name").render_derived()
    listing = insert(_LATEST_TOOLS).from_select(
        ["criteria_hash", "session_id", "tool_name", "scored_at", "score_id"],
        select(latest.c.criteria_hash, latest.c.session_id, named.c.tool_name, latest.c.scored_at, latest.c.score_id)
        .select_from(latest)
        .join(named, true())
        .order_by(latest.c.criteria_hash, latest.c.session_id, named.c.tool_name),
    )
    listed = listing.on_conflict_do_update(
        index_elements=["criteria_hash", "session_id", "tool_name"],
        set_={"scored_at": listing.excluded.scored_at, "score_id": listing.excluded.score_id},
    ).cte("tools_listed")
    return dropped, listed
