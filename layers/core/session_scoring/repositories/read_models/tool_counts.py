"""``latest_tool_counts``: the keys of a latest score are stored on its ``latest_scores`` row (``tool_facets``), so
that a replaced score's keys can be taken out exactly."""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, Text, bindparam, func, literal, literal_column, select, true
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.sql.elements import ColumnClause

from session_scoring.db import schema
from session_scoring.repositories.read_models import MINUS, PLUS, add_counts

_TOOL_COUNTS = schema.latest_tool_counts
_NO_FACETS: ColumnClause[Any] = literal_column("'[]'::jsonb")


def facets(done: Any) -> Any:
    """The keys of the stored verdict, ``[tool, facet, value]`` each: per canonical tool (``p_tool_names``) its UTC
    day, week and agent, then the spellings and availability the scorer computed (``p_tool_facets``)."""
    names = func.unnest(bindparam("p_tool_names", type_=ARRAY(Text))).table_valued("name").render_derived("names")
    utc = func.timezone("UTC", done.c.scored_at)
    day = func.to_char(utc, "YYYY-MM-DD")
    week = func.to_char(func.date_trunc("week", utc), "YYYY-MM-DD")
    agent = func.coalesce(done.c.session_agent, "")

    def keys(facet: str, value: Any) -> Any:
        triple = func.jsonb_build_array(names.c.name, literal(facet, String), value)
        return func.coalesce(select(func.jsonb_agg(triple)).select_from(names).scalar_subquery(), _NO_FACETS)

    return (
        keys("day", day)
        .op("||")(keys("week", week))
        .op("||")(keys("agent", agent))
        .op("||")(bindparam("p_tool_facets", type_=JSONB))
    )


def upkeep(latest: Any) -> Any:
    """Add the new latest rows' ``tool_facets`` (from ``latest``, the ``latest_scores`` upsert) and take a replaced
    row's out."""
    added = func.jsonb_array_elements(latest.c.tool_facets).table_valued("value").render_derived("added")
    removed = func.jsonb_array_elements(latest.c.previous_tool_facets).table_valued("value").render_derived("removed")

    def keyed(element: Any, delta: Any) -> Any:
        return select(
            latest.c.criteria_hash,
            element.op("->>")(0).label("tool_name"),
            element.op("->>")(1).label("facet"),
            element.op("->>")(2).label("value"),
            delta.label("delta"),
        ).select_from(latest)

    deltas = (
        keyed(added.c.value, PLUS)
        .join(added, true())
        .union_all(keyed(removed.c.value, MINUS).join(removed, true()).where(latest.c.previous_band.is_not(None)))
        .subquery("tool_deltas")
    )
    key = ("criteria_hash", "tool_name", "facet", "value")
    return add_counts(_TOOL_COUNTS, deltas, key, {"sessions": func.sum(deltas.c.delta)}, "tool_counts_stored")
