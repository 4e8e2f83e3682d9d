"""``latest_scores``: each session's newest completed score per criteria hash, and under ``ANY_CRITERIA`` its newest
of all. Every other read model follows the rows this upsert changes."""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, Text, and_, bindparam, case, literal_column, select, true, tuple_
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import ARRAY, insert

from session_scoring.db import schema
from session_scoring.models.scores import SCORE_BANDS
from session_scoring.repositories import read_models
from session_scoring.repositories.read_models import tool_counts

_LATEST_SCORES = schema.latest_scores


def _band_of(total: Any) -> Any:
    """The band name of a total score, in SQL (the bands of ``SCORE_BANDS``)."""
    bands: list[tuple[Any, Any]] = [
        (and_(total >= b.min_score, total <= b.max_score), literal_column(f"'{b.band}'")) for b in SCORE_BANDS
    ]
    return case(*bands)


def upkeep(done: Any) -> Any:
    """Upsert the completed attempt (``done``: its score id, session id, total, breakdown, scored_at and agent; its
    canonical tools and outcome the statement's parameters) as the session's latest under its criteria hash and under
    ``ANY_CRITERIA``, replacing an existing row only by a newer score (``scored_at``, then ``score_id``).

    The ``DO UPDATE`` reads the locked row's current version (not the statement's snapshot), so what it replaced,
    returned through ``previous_*``, is exact even when completes race (an inserted row has no previous band).
    """
    scopes = read_models.scopes("scopes")
    replaced = ("band", "missing_tools", "tool_facets")  # what the counters take out again (``previous_*``)
    stored = ("score_id", "total_score", "dimensions", "scored_at", "outcome", *replaced)
    row = (
        select(
            done.c.session_id,
            scopes.c.criteria_hash,
            done.c.score_id,
            done.c.total_score,
            done.c.score_breakdown,
            done.c.scored_at,
            bindparam("p_outcome", type_=String),
            _band_of(done.c.total_score),
            sql_cast(bindparam("p_tool_names", type_=ARRAY(Text)), ARRAY(Text)),
            tool_counts.facets(done),
        )
        .select_from(done)
        .join(scopes, true())
    )
    upsert = insert(_LATEST_SCORES).from_select(
        ["session_id", "criteria_hash", *stored], row.order_by(scopes.c.criteria_hash)
    )
    new, old = upsert.excluded, _LATEST_SCORES.c
    return (
        upsert.on_conflict_do_update(
            index_elements=["session_id", "criteria_hash"],
            set_={**{name: new[name] for name in stored}, **{f"previous_{name}": old[name] for name in replaced}},
            where=tuple_(new.scored_at, new.score_id) > tuple_(old.scored_at, old.score_id),
        )
        .returning(
            *[old[name] for name in ("criteria_hash", "session_id", "score_id", "scored_at", *replaced)],
            *[old[f"previous_{name}"] for name in replaced],
        )
        .cte("latest_stored")
    )
