"""``trend_members``, ``trend_histograms`` and ``trend_dimension_sums`` (``db/schema.py``): what the trends read. All
are kept by the verdict's statement (``upkeep``) and by a facts backfill (``refresh_facts_statement``), and rebuilt
from ``latest_scores`` (``rebuild``) by the same histogram upkeep, applied to every member at once. A member's
dimensions are a map (key: points) of whatever rubric scored it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    ColumnElement,
    Date,
    DateTime,
    Integer,
    String,
    bindparam,
    case,
    func,
    literal_column,
    or_,
    select,
    true,
    tuple_,
    union_all,
    update,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import aggregate_order_by, insert

from session_scoring.db import schema
from session_scoring.models.scores import MAX_SCORE, MIN_SCORE, REFERENCED_OUTCOMES
from session_scoring.models.trends import TrendBucket, TrendGroup
from session_scoring.repositories import read_models
from session_scoring.repositories.base import json_object
from session_scoring.repositories.read_models import add_counts, dimension_entries, outcomes, replaced

TABLES = ("trend_members", "trend_histograms", "trend_dimension_sums")

_SCORES = schema.session_scores
_MEMBERS = schema.trend_members
_HISTOGRAMS = schema.trend_histograms
_DIMENSION_SUMS = schema.trend_dimension_sums

_MEMBER_VALUES = (
    "score_id",
    "scored_at",
    "session_agent",
    "session_alert_type",
    "total_score",
    "dimensions",
    "outcome",
)
_HISTOGRAM_KEY = ("criteria_hash", "bucket", "group_by", "bucket_start", "group_unknown", "group_value")
OUTCOME_SUMS = tuple(f"outcome_{outcome.value}" for outcome in REFERENCED_OUTCOMES)
"""The sessions found, partly found and missed, the columns of a histogram row after its ``totals``."""
_CELL_SUMS = ("sessions", *OUTCOME_SUMS)
# The stored histogram plus a statement's delta (both 101 cells), cell by cell.
_ADDED_TOTALS: ColumnElement[Any] = literal_column(
    "ARRAY(SELECT u.stored + u.delta FROM unnest(trend_histograms.totals, excluded.totals) "
    "WITH ORDINALITY AS u(stored, delta, i) ORDER BY u.i)"
)


def upkeep(done: Any) -> tuple[Any, Any, Any]:
    """Keep ``trend_members``, ``trend_histograms`` and ``trend_dimension_sums`` in step with a stored verdict, in
    the verdict's statement.

    ``done`` returns the completed attempt's score id, session id, total, breakdown and scored_at (its outcome and
    criteria hash are the statement's parameters). The attempt becomes the session's member under its criteria hash
    and under ``ANY_CRITERIA`` when newer than the member it replaces (stored in ``previous``, exact under the row's
    lock as in ``latest_scores``). Returns the members' CTE (``outcome_counts`` follows it) and the histograms' and
    dimension sums' CTEs.
    """
    scopes = read_models.scopes("trend_scopes")
    # The facts were stored when the attempt was created: the statement's snapshot of the row has them.
    attempt = _SCORES.alias("trend_attempt")
    member = (
        select(
            scopes.c.criteria_hash,
            done.c.session_id,
            done.c.score_id,
            done.c.scored_at,
            attempt.c.session_agent,
            attempt.c.session_alert_type,
            done.c.total_score,
            done.c.score_breakdown,
            bindparam("p_outcome", type_=String),
        )
        .select_from(done)
        .join(attempt, attempt.c.score_id == done.c.score_id)
        .join(scopes, true())
        .order_by(scopes.c.criteria_hash)
    )
    upsert = insert(_MEMBERS).from_select(["criteria_hash", "session_id", *_MEMBER_VALUES], member)
    new, old = upsert.excluded, _MEMBERS.c
    previous = _replaced()
    members: Any = (
        upsert.on_conflict_do_update(
            index_elements=["criteria_hash", "session_id"],
            set_={**{name: new[name] for name in _MEMBER_VALUES}, "previous": previous},
            where=tuple_(new.scored_at, new.score_id) > tuple_(old.scored_at, old.score_id),
        )
        .returning(old.criteria_hash, *[old[name] for name in _MEMBER_VALUES], old.previous)
        .cte("trend_members_stored")
    )
    return members, *_histogram_upkeep(members)


def outcome_sums(outcome: Any) -> list[Any]:
    """A member's values of a histogram row's ``OUTCOME_SUMS`` (1 in its outcome's count)."""
    return [func.coalesce(sql_cast(outcome == literal_column(f"'{o.value}'"), Integer), 0) for o in REFERENCED_OUTCOMES]


def _replaced() -> Any:
    """The member a ``SET`` replaces (in an upsert's ``DO UPDATE`` or an ``UPDATE``: the row's current version), as
    the JSON its buckets are taken out by."""
    old = _MEMBERS.c
    values = {"scored_at": old.scored_at, "agent": old.session_agent, "alert_type": old.session_alert_type}
    return json_object(
        func.jsonb_build_object,
        {**values, "total": old.total_score, "dimensions": old.dimensions, "outcome": old.outcome},
    )


def _histogram_upkeep(members: Any) -> tuple[Any, Any]:
    """The CTEs moving ``trend_histograms`` and ``trend_dimension_sums`` by what ``members`` (a CTE returning changed
    ``trend_members`` rows, with ``previous`` the replaced member or NULL) changed: -1 in each replaced member's rows,
    +1 in each new one's (day and week, each with no grouping, by agent and by alert type), summed per key and added
    in key order; each dimension of a member's map moves its own sums row."""
    groups = read_models.constants("group_by", [g.value for g in TrendGroup], "trend_groups")
    units = read_models.constants("bucket", [b.value for b in TrendBucket], "trend_units")
    every = members.join(units, true()).join(groups, true())

    def key_of(scored_at: Any, agent: Any, alert_type: Any) -> list[Any]:
        value = case(
            (groups.c.group_by == TrendGroup.AGENT.value, agent),
            (groups.c.group_by == TrendGroup.ALERT_TYPE.value, alert_type),
            else_=literal_column("''"),
        )
        start = sql_cast(func.date_trunc(units.c.bucket, func.timezone(literal_column("'UTC'"), scored_at)), Date)
        return [
            members.c.criteria_hash,
            units.c.bucket,
            groups.c.group_by,
            start.label("bucket_start"),
            value.is_(None).label("group_unknown"),
            func.coalesce(value, literal_column("''")).label("group_value"),
        ]

    def side(key: list[Any], total: Any, outcome: Any, sign: int) -> Any:
        signed: Any = literal_column(str(sign))
        return select(
            *key,
            total.label("total_score"),
            signed.label("sessions"),
            *[(signed * part).label(name) for name, part in zip(OUTCOME_SUMS, outcome_sums(outcome), strict=True)],
        ).select_from(every)

    def dimension_side(key: list[Any], dimensions: Any, sign: int, name: str) -> Any:
        signed: Any = literal_column(str(sign))
        each = dimension_entries(dimensions, name)
        return select(
            *key,
            each.c.key.label("dimension_key"),
            (signed * sql_cast(each.c.value, Integer)).label("points"),
            signed.label("sessions"),
        ).select_from(every.join(each, true()))

    gone_key = key_of(
        sql_cast(replaced(members, "scored_at"), DateTime(timezone=True)),
        replaced(members, "agent"),
        replaced(members, "alert_type"),
    )
    came_key = key_of(members.c.scored_at, members.c.session_agent, members.c.session_alert_type)
    was = members.c.previous.is_not(None)
    gone = side(gone_key, sql_cast(replaced(members, "total"), Integer), replaced(members, "outcome"), -1).where(was)
    came = side(came_key, members.c.total_score, members.c.outcome, 1)
    previous_dimensions = members.c.previous.op("->")(literal_column("'dimensions'"))
    dimension_deltas = union_all(
        dimension_side(came_key, members.c.dimensions, 1, "trend_came_dimensions"),
        dimension_side(gone_key, previous_dimensions, -1, "trend_gone_dimensions").where(was),
    ).subquery("trend_dimension_deltas")
    dimension_sums = add_counts(
        _DIMENSION_SUMS,
        dimension_deltas,
        (*_HISTOGRAM_KEY, "dimension_key"),
        {"points": func.sum(dimension_deltas.c.points), "sessions": func.sum(dimension_deltas.c.sessions)},
        "trend_dimension_sums_stored",
    )
    deltas = union_all(came, gone).subquery("trend_deltas")
    # Per key and total first (a replacement within one bucket may cancel out: such cells are left out), then per
    # key: one row per histogram, as an upsert touches a row once per statement.
    cell_key = [deltas.c[name] for name in (*_HISTOGRAM_KEY, "total_score")]
    cells = (
        select(*cell_key, *[func.sum(deltas.c[name]).label(name) for name in _CELL_SUMS])
        .group_by(*cell_key)
        .having(or_(*[func.sum(deltas.c[name]) != 0 for name in _CELL_SUMS]))
        .subquery("trend_cells")
    )
    moved = cells.c.sessions != 0
    keys = (
        select(
            *[cells.c[name] for name in _HISTOGRAM_KEY],
            *[sql_cast(func.sum(cells.c[name]), Integer).label(name) for name in _CELL_SUMS],
            func.array_agg(cells.c.total_score).filter(moved).label("cell_totals"),
            func.array_agg(sql_cast(cells.c.sessions, Integer)).filter(moved).label("cell_sessions"),
        )
        .group_by(*[cells.c[name] for name in _HISTOGRAM_KEY])
        .subquery("trend_keys")
    )
    histograms = insert(_HISTOGRAMS).from_select(
        [*_HISTOGRAM_KEY, *_CELL_SUMS, "totals"],
        select(
            *[keys.c[name] for name in (*_HISTOGRAM_KEY, *_CELL_SUMS)],
            _dense(keys.c.cell_totals, keys.c.cell_sessions),
        ).order_by(*[keys.c[name] for name in _HISTOGRAM_KEY]),
    )
    stored = histograms.on_conflict_do_update(
        index_elements=list(_HISTOGRAM_KEY),
        set_={
            **{name: _HISTOGRAMS.c[name] + histograms.excluded[name] for name in _CELL_SUMS},
            "totals": _ADDED_TOTALS,
        },
    ).cte("trend_histograms_stored")
    return stored, dimension_sums


def _dense(cell_totals: Any, cell_sessions: Any) -> Any:
    """The 101-cell histogram (index = total) of sparse cells given as two parallel arrays (distinct totals)."""
    totals = func.generate_series(literal_column(str(MIN_SCORE)), literal_column(str(MAX_SCORE)))
    every = totals.table_valued("t").render_derived(name="trend_every_total")
    given = func.unnest(cell_totals, cell_sessions).table_valued("t", "n").render_derived(name="trend_given")
    return (
        select(func.array_agg(aggregate_order_by(func.coalesce(given.c.n, 0), every.c.t)))
        .select_from(every.outerjoin(given, given.c.t == every.c.t))
        .scalar_subquery()
    )


def refresh_facts_statement() -> Any:
    """Re-key a session's (``p_session_id``) members whose attempt's agent or alert type changed (a facts backfill)
    and move their buckets and outcome counts, in one statement returning a row per member moved. The ``UPDATE``
    locks and re-checks each member row, so a verdict stored meanwhile is never double counted."""
    attempt = _SCORES.alias("trend_attempt")
    m = _MEMBERS.c
    members = (
        update(_MEMBERS)
        .where(
            m.session_id == bindparam("p_session_id", type_=String),
            m.score_id == attempt.c.score_id,
            or_(
                m.session_agent.is_distinct_from(attempt.c.session_agent),
                m.session_alert_type.is_distinct_from(attempt.c.session_alert_type),
            ),
        )
        .values(
            session_agent=attempt.c.session_agent,
            session_alert_type=attempt.c.session_alert_type,
            previous=_replaced(),
        )
        .returning(m.criteria_hash, *[m[name] for name in _MEMBER_VALUES], m.previous)
        .cte("trend_members_refreshed")
    )
    return select(members.c.criteria_hash).add_cte(*_histogram_upkeep(members), outcomes.upkeep(members))


def rebuild() -> list[Any]:
    """The statement filling the emptied tables from ``latest_scores`` and the attempts' facts: every latest score
    inserted as a member, and the histograms moved by all of them at once, as a verdict's statement moves them."""
    latest, attempt = schema.latest_scores.c, _SCORES.c
    members = (
        insert(_MEMBERS)
        .from_select(
            ["criteria_hash", "session_id", *_MEMBER_VALUES],
            # The facts from the attempt, the rest from its latest_scores row.
            select(
                latest.criteria_hash,
                latest.session_id,
                *[(attempt if name.startswith("session_") else latest)[name] for name in _MEMBER_VALUES],
            ).join_from(schema.latest_scores, _SCORES, attempt.score_id == latest.score_id),
        )
        .returning(*[_MEMBERS.c[name] for name in ("criteria_hash", *_MEMBER_VALUES, "previous")])
        .cte("trend_members_rebuilt")
    )
    return [select(func.count()).select_from(members).add_cte(*_histogram_upkeep(members))]
