"""Trends over each session's latest completed score per criteria hash, at any scale.

Trends read ``trend_histograms`` (migration 0015_trend_histograms): per criteria hash, grouping, UTC day (or Monday
week) and group, the number of sessions, their histogram of totals (an ``int[]`` of 101 cells: totals are integers
0-100, so it gives ``percentile_cont``'s exact answer) and the sum and count of each dimension, kept by the
statement that stores a verdict (``trend_upkeep_ctes``). A trend reads one row per bucket and group instead of
scanning every latest score. Bounds that do not fall on a UTC midnight cannot be answered from day rows: those
trends scan ``latest_scores`` as before (``scanned_trends``).

The criteria comparison reads its own tables (``repositories/comparison.py``).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    Date,
    DateTime,
    Integer,
    String,
    bindparam,
    case,
    func,
    literal,
    literal_column,
    null,
    or_,
    select,
    text,
    true,
    tuple_,
    union_all,
    update,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import aggregate_order_by, array, insert

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.db.schema import ANY_CRITERIA
from session_scoring.models.scores import DIMENSIONS, MAX_SCORE, MIN_SCORE, SCORE_BANDS
from session_scoring.models.trends import (
    PERCENTILES,
    TrendBucket,
    TrendGroup,
    TrendRow,
)
from session_scoring.repositories.base import StatementRepository

_LATEST = schema.latest_scores
_SCORES = schema.session_scores
_MEMBERS = schema.trend_members
_HISTOGRAMS = schema.trend_histograms

_GROUP_COLUMNS = {TrendGroup.AGENT: "session_agent", TrendGroup.ALERT_TYPE: "session_alert_type"}
_MEMBER_VALUES = ("score_id", "scored_at", "session_agent", "session_alert_type", "total_score", *DIMENSIONS)
_HISTOGRAM_KEY = ("criteria_hash", "bucket", "group_by", "bucket_start", "group_unknown", "group_value")
_DIMENSION_SUMS = tuple(f"{d}_{part}" for d in DIMENSIONS for part in ("sum", "n"))
_CELL_SUMS = ("sessions", *_DIMENSION_SUMS)
# The stored histogram plus a statement's delta (both 101 cells), cell by cell: the upsert's DO UPDATE reads the
# row's current version under its lock, as for the counts.
_ADDED_TOTALS: ColumnElement[Any] = literal_column(
    "ARRAY(SELECT u.stored + u.delta FROM unnest(trend_histograms.totals, excluded.totals) "
    "WITH ORDINALITY AS u(stored, delta, i) ORDER BY u.i)"
)


def trend_upkeep_ctes(done: Any) -> tuple[Any, ...]:
    """Keep ``trend_members`` and ``trend_histograms`` in step with a stored verdict, in the verdict's statement.

    ``done`` returns the completed attempt's score id, session id, total and scored_at; its dimensions are the
    statement's ``p_<dimension>`` parameters and its criteria hash ``p_criteria_hash``. The attempt becomes the
    session's member under its criteria hash and under ``ANY_CRITERIA`` when it is newer (``scored_at``, then
    ``score_id``) than the member it replaces, as in ``latest_scores``. The upsert's ``DO UPDATE`` reads the row's
    current version under its lock, so the replaced member it stores in ``previous`` (and returns) is exact even when
    completes race; its histograms get -1 and the new member's +1 (six rows each: day and week, each with no
    grouping, by agent and by alert type), summed per key and applied as atomic increments in key order.
    """
    scopes = (
        select(bindparam("p_criteria_hash", type_=String).label("criteria_hash"))
        .union_all(select(literal(ANY_CRITERIA, String).label("criteria_hash")))
        .subquery("trend_scopes")
    )
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
            *[bindparam(f"p_{name}", type_=Integer) for name in DIMENSIONS],
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
    return members, _histogram_upkeep(members)


def _constants(name: str, items: list[str], alias: str) -> Any:
    """A one-column table of constant strings."""
    rows = [select(literal_column(f"'{item}'", String).label(name)) for item in items]
    return union_all(*rows).subquery(alias)


def _replaced() -> Any:
    """The member a ``SET`` replaces (in an upsert's ``DO UPDATE`` or an ``UPDATE``: the row's current version), as
    the JSON its buckets are taken out by."""
    old = _MEMBERS.c
    return func.jsonb_build_object(
        literal_column("'scored_at'"),
        old.scored_at,
        literal_column("'agent'"),
        old.session_agent,
        literal_column("'alert_type'"),
        old.session_alert_type,
        literal_column("'total'"),
        old.total_score,
        *[part for d in DIMENSIONS for part in (cast(Any, literal_column(f"'{d}'")), old[d])],
    )


def _histogram_upkeep(members: Any) -> Any:
    """The CTE moving ``trend_histograms`` by what ``members`` (a CTE returning changed ``trend_members`` rows, with
    ``previous`` the replaced member or NULL) changed: -1 in each replaced member's rows, +1 in each new one's (six
    rows each: day and week, each with no grouping, by agent and by alert type), summed per key and applied as
    atomic increments (the sums, and the histogram cell by cell) in key order (concurrent statements lock histogram
    rows in the same order)."""
    # Constant rows as a UNION of literals: a VALUES with literal binds would make the verdict statement
    # uncacheable (SQLAlchemy would compile it on every call: about 100 ms).
    groups = _constants("group_by", [g.value for g in TrendGroup], "trend_groups")
    units = _constants("bucket", [b.value for b in TrendBucket], "trend_units")

    def side(scored_at: Any, agent: Any, alert_type: Any, total: Any, dims: dict[str, Any], sign: int) -> Any:
        value = case(
            (groups.c.group_by == TrendGroup.AGENT.value, agent),
            (groups.c.group_by == TrendGroup.ALERT_TYPE.value, alert_type),
            else_=literal_column("''"),
        )
        start = sql_cast(func.date_trunc(units.c.bucket, func.timezone(literal_column("'UTC'"), scored_at)), Date)
        signed: Any = literal_column(str(sign))
        return select(
            members.c.criteria_hash,
            units.c.bucket,
            groups.c.group_by,
            start.label("bucket_start"),
            value.is_(None).label("group_unknown"),
            func.coalesce(value, literal_column("''")).label("group_value"),
            total.label("total_score"),
            signed.label("sessions"),
            *[
                column
                for d in DIMENSIONS
                for column in (
                    (signed * func.coalesce(dims[d], 0)).label(f"{d}_sum"),
                    (signed * sql_cast(dims[d].is_not(None), Integer)).label(f"{d}_n"),
                )
            ],
        ).select_from(members.join(units, true()).join(groups, true()))

    def was(key: str) -> Any:
        return members.c.previous.op("->>")(literal_column(f"'{key}'"))

    gone = side(
        sql_cast(was("scored_at"), DateTime(timezone=True)),
        was("agent"),
        was("alert_type"),
        sql_cast(was("total"), Integer),
        {d: sql_cast(was(d), Integer) for d in DIMENSIONS},
        -1,
    ).where(members.c.previous.is_not(None))
    came = side(
        members.c.scored_at,
        members.c.session_agent,
        members.c.session_alert_type,
        members.c.total_score,
        {d: members.c[d] for d in DIMENSIONS},
        1,
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
    return histograms.on_conflict_do_update(
        index_elements=list(_HISTOGRAM_KEY),
        set_={
            **{name: _HISTOGRAMS.c[name] + histograms.excluded[name] for name in _CELL_SUMS},
            "totals": _ADDED_TOTALS,
        },
    ).cte("trend_histograms_stored")


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


def refacted_statement() -> Any:
    """Re-key a session's members whose attempt's agent or alert type changed (a facts backfill) and move their
    buckets, in one statement (parameter ``p_session_id``); returns one row per member moved. The ``UPDATE`` locks
    each member row and re-checks it, so a verdict stored meanwhile is never double counted."""
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
        .cte("trend_members_refacted")
    )
    return select(members.c.criteria_hash).add_cte(_histogram_upkeep(members))


def _midnight(value: datetime | None) -> bool:
    """Whether a bound can be answered from day rows: absent, or a UTC midnight with a time zone."""
    return value is None or (
        value.tzinfo is not None and value.astimezone(UTC).time() == time(0) and value.utcoffset() is not None
    )


def _day(value: datetime) -> date:
    return value.astimezone(UTC).date()


def _monday(value: datetime | None) -> bool:
    return value is None or _day(value).weekday() == 0


_REBUILD_MEMBERS = """
INSERT INTO trend_members (criteria_hash, session_id, score_id, scored_at, session_agent, session_alert_type,
                           total_score, logical_flow, consistency, tool_relevance, synthesis_quality)
SELECT l.criteria_hash, l.session_id, l.score_id, l.scored_at, s.session_agent, s.session_alert_type,
       l.total_score, l.logical_flow, l.consistency, l.tool_relevance, l.synthesis_quality
FROM latest_scores l JOIN session_scores s ON s.score_id = l.score_id
"""

# Each key's cells (per total: sessions, dimension sums and counts), then one row per key with the cells folded into
# the 101-cell histogram (as migration 0015 does from trend_buckets).
_REBUILD_HISTOGRAMS = """
WITH cells AS (
    SELECT m.criteria_hash, u.bucket, g.group_by,
           date_trunc(u.bucket, m.scored_at AT TIME ZONE 'UTC')::date AS bucket_start, g.group_unknown,
           g.group_value, m.total_score, count(*)::int AS sessions,
           coalesce(sum(m.logical_flow), 0) AS logical_flow_sum, count(m.logical_flow) AS logical_flow_n,
           coalesce(sum(m.consistency), 0) AS consistency_sum, count(m.consistency) AS consistency_n,
           coalesce(sum(m.tool_relevance), 0) AS tool_relevance_sum, count(m.tool_relevance) AS tool_relevance_n,
           coalesce(sum(m.synthesis_quality), 0) AS synthesis_quality_sum,
           count(m.synthesis_quality) AS synthesis_quality_n
    FROM trend_members m
    CROSS JOIN (VALUES ('day'), ('week')) AS u(bucket)
    CROSS JOIN LATERAL (VALUES ('none', false, ''),
                               ('agent', m.session_agent IS NULL, coalesce(m.session_agent, '')),
                               ('alert_type', m.session_alert_type IS NULL, coalesce(m.session_alert_type, '')))
         AS g(group_by, group_unknown, group_value)
    GROUP BY 1, 2, 3, 4, 5, 6, 7
)
INSERT INTO trend_histograms (criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value, sessions,
                              totals, logical_flow_sum, logical_flow_n, consistency_sum, consistency_n,
                              tool_relevance_sum, tool_relevance_n, synthesis_quality_sum, synthesis_quality_n)
SELECT k.criteria_hash, k.bucket, k.group_by, k.bucket_start, k.group_unknown, k.group_value, k.sessions,
       ARRAY(SELECT coalesce(c.n, 0) FROM generate_series(0, 100) AS g(t)
             LEFT JOIN unnest(k.cell_totals, k.cell_sessions) AS c(t, n) ON c.t = g.t ORDER BY g.t),
       k.logical_flow_sum, k.logical_flow_n, k.consistency_sum, k.consistency_n, k.tool_relevance_sum,
       k.tool_relevance_n, k.synthesis_quality_sum, k.synthesis_quality_n
FROM (SELECT criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value, sum(sessions)::int AS sessions,
             array_agg(total_score) AS cell_totals, array_agg(sessions) AS cell_sessions,
             sum(logical_flow_sum)::int AS logical_flow_sum, sum(logical_flow_n)::int AS logical_flow_n,
             sum(consistency_sum)::int AS consistency_sum, sum(consistency_n)::int AS consistency_n,
             sum(tool_relevance_sum)::int AS tool_relevance_sum, sum(tool_relevance_n)::int AS tool_relevance_n,
             sum(synthesis_quality_sum)::int AS synthesis_quality_sum,
             sum(synthesis_quality_n)::int AS synthesis_quality_n
      FROM cells
      GROUP BY criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value) AS k
"""


_CELLS = MAX_SCORE - MIN_SCORE + 1
_EPOCH = date(1970, 1, 1)
_MIDNIGHT_1970 = datetime.combine(_EPOCH, time(0), UTC)


def _trend_rows(keys: list[tuple[int, str | None]], starts: list[int], packed: str) -> list[TrendRow]:
    """Each point's statistics from its rows (``starts``: each point's first row; a point's rows are consecutive),
    exactly as the scan's aggregates give them. ``packed`` is every row's 101 histogram cells (index = total), then
    its dimension sums and counts (``_DIMENSION_SUMS``), comma-separated: parsed and computed as arrays, a few array
    operations whatever the number of points (walking each histogram in plain Python cost about 0.1 ms a point).
    ``percentile_cont(q)`` interpolates between the totals at the 0-based positions ``floor`` and ``ceil`` of
    ``q * (n - 1)``, the first totals whose running count exceeds them, in float8 as PostgreSQL (``float8_lerp``).
    ``keys`` are (days since 1970-01-01, group)."""
    import numpy as np

    rows = np.fromstring(packed, dtype=np.int64, sep=",").reshape(-1, _CELLS + len(_DIMENSION_SUMS))
    if len(starts) < len(rows):
        rows = np.add.reduceat(rows, starts, axis=0)
    cells = rows[:, :_CELLS]
    ends = cells.cumsum(axis=1)
    n = ends[:, -1]

    def total_at(position: Any) -> Any:
        return ((ends <= position[:, None]).sum(axis=1) + MIN_SCORE).astype(np.float64)

    percentiles = []
    for q in PERCENTILES:
        position = q * (n - 1).astype(np.float64)
        first = np.floor(position)
        low, high = total_at(first), total_at(np.ceil(position))
        percentiles.append((low + (position - first) * (high - low)).tolist())
    bands = np.stack(
        [cells[:, band.min_score - MIN_SCORE : band.max_score - MIN_SCORE + 1].sum(axis=1) for band in SCORE_BANDS],
        axis=1,
    ).tolist()
    means = ((cells @ np.arange(MIN_SCORE, MAX_SCORE + 1, dtype=np.int64)) / n).tolist()
    sums, counts = rows[:, _CELLS::2], rows[:, _CELLS + 1 :: 2]
    dimension_means = np.divide(sums, counts, out=np.zeros(sums.shape), where=counts > 0).tolist()
    has = (counts > 0).tolist()
    starts_at = {day: _MIDNIGHT_1970 + timedelta(days=day) for day in {day for day, _ in keys}}
    names = [band.band for band in SCORE_BANDS]
    p10, p50, p90 = percentiles
    return [
        TrendRow(
            bucket_start=starts_at[day],
            group=group,
            count=count,
            mean=mean,
            p10=low,
            p50=median,
            p90=high,
            dimension_means={d: m if h else None for d, m, h in zip(DIMENSIONS, dims, present, strict=True)},
            band_counts=dict(zip(names, point_bands, strict=True)),
        )
        for (day, group), count, mean, low, median, high, dims, present, point_bands in zip(
            keys, n.tolist(), means, p10, p50, p90, dimension_means, has, bands, strict=True
        )
    ]


class TrendsRepository(StatementRepository):
    """The queries behind the trends, and the rebuild of the trend tables."""

    @db_call
    def rebuild(self) -> None:
        """Rebuild ``trend_members`` and ``trend_histograms`` from ``latest_scores`` and the attempts' facts (after the
        facts changed under existing scores, e.g. a facts backfill). One transaction holding both tables locked
        against writes: a verdict stored meanwhile waits, then applies its change to the rebuilt rows."""
        with self._engine.connect() as autocommit:
            conn = autocommit.execution_options(isolation_level="READ COMMITTED")
            with conn.begin():
                conn.execute(text("LOCK TABLE trend_members, trend_histograms IN EXCLUSIVE MODE"))
                conn.execute(text("DELETE FROM trend_histograms"))
                conn.execute(text("DELETE FROM trend_members"))
                conn.execute(text(_REBUILD_MEMBERS))
                conn.execute(text(_REBUILD_HISTOGRAMS))

    @staticmethod
    def answers_from_buckets(scored_after: datetime | None, scored_before: datetime | None) -> bool:
        """Whether the histogram table answers these bounds (each absent or a UTC midnight)."""
        return _midnight(scored_after) and _midnight(scored_before)

    @db_call
    def refresh_facts(self, session_id: str) -> int:
        """Move a session's trend members (and their buckets) to the agent and alert type their attempts now store;
        how many moved. Called after a facts backfill filled the session's attempts."""
        with self._engine.connect() as conn:
            return len(conn.execute(refacted_statement(), {"p_session_id": session_id}).all())

    @db_call
    def bucketed_trends(
        self,
        criteria_hash: str | None,
        bucket: TrendBucket,
        group_by: TrendGroup,
        scored_after: datetime | None,
        scored_before: datetime | None,
    ) -> list[TrendRow]:
        """The same rows as ``scanned_trends`` (count, mean, p10/p50/p90 as ``percentile_cont``, dimension means,
        band counts per bucket and group, ordered by bucket then group, unknown group last), from
        ``trend_histograms``: one row per point, whatever the number of scores. The bounds must be UTC midnights
        (``answers_from_buckets``)."""
        h = _HISTOGRAMS.c
        # A week row covers its whole week: bounds (UTC midnights) that are not Mondays cut weeks, so those weeks
        # are summed from the day rows in range instead (consecutive rows here: ordered by week, then group).
        rows_of, start = bucket, cast(Any, h.bucket_start)
        if bucket is TrendBucket.WEEK and not (_monday(scored_after) and _monday(scored_before)):
            rows_of = TrendBucket.DAY
            start = sql_cast(func.date_trunc(literal_column("'week'"), h.bucket_start), Date)
        # One text column of the cells and the sums, and the day as an integer: pg8000 decodes a date with
        # strptime (about as costly per row as the rest of the row) and each column separately.
        cells = func.array_cat(h.totals, array([h[name] for name in _DIMENSION_SUMS]))
        statement = (
            select(
                sql_cast(start - literal_column(f"DATE '{_EPOCH.isoformat()}'"), Integer).label("day"),
                h.group_unknown,
                h.group_value,
                func.array_to_string(cells, literal_column("','")).label("cells"),
            )
            .where(
                h.criteria_hash == (ANY_CRITERIA if criteria_hash is None else criteria_hash),
                h.bucket == rows_of.value,
                h.group_by == group_by.value,
                h.sessions > 0,
                *([h.bucket_start >= _day(scored_after)] if scored_after is not None else []),
                *([h.bucket_start < _day(scored_before)] if scored_before is not None else []),
            )
            .order_by(start, h.group_unknown, h.group_value)
        )
        keys: list[tuple[int, str | None]] = []
        starts: list[int] = []  # each point's first row (the next rows, if any: other days of a week cut by bounds)
        packed: list[str] = []
        grouped = group_by is not TrendGroup.NONE
        for i, row in enumerate(self._all(statement)):
            key = (row.day, row.group_value if grouped and not row.group_unknown else None)
            if not keys or keys[-1] != key:
                keys.append(key)
                starts.append(i)
            packed.append(row.cells)
        return _trend_rows(keys, starts, ",".join(packed)) if keys else []

    @db_call
    def scanned_trends(
        self,
        criteria_hash: str | None,
        bucket: TrendBucket,
        group_by: TrendGroup,
        scored_after: datetime | None,
        scored_before: datetime | None,
    ) -> list[TrendRow]:
        """The same trends aggregated from every latest score (``percentile_cont``): for bounds inside a day."""
        latest = _LATEST.c
        # Inlined (the bucket is one of the enum's values): a bound parameter in the SELECT and again in the GROUP BY
        # would be two different expressions to PostgreSQL.
        unit: ColumnElement[str] = literal_column(f"'{bucket.value}'")
        start = func.date_trunc(unit, func.timezone(literal_column("'UTC'"), latest.scored_at)).label("bucket_start")
        grouped = group_by in _GROUP_COLUMNS
        group: ColumnElement[Any] = (_SCORES.c[_GROUP_COLUMNS[group_by]] if grouped else null()).label("grp")
        columns: list[Any] = [
            start,
            group,
            func.count().label("n"),
            func.avg(latest.total_score).label("mean"),
            *(
                func.percentile_cont(q).within_group(latest.total_score).label(f"p{int(q * 100)}")
                for q in (0.1, 0.5, 0.9)
            ),
            *(func.avg(latest[d]).label(d) for d in DIMENSIONS),
            *(func.count().filter(latest.band == b.band).label(f"band_{b.band}") for b in SCORE_BANDS),
        ]
        statement = (
            select(*columns)
            .select_from(_LATEST.join(_SCORES, _SCORES.c.score_id == latest.score_id))
            .where(latest.criteria_hash == (ANY_CRITERIA if criteria_hash is None else criteria_hash))
            .group_by(start, *([group] if grouped else []))
            .order_by(start, group.asc().nulls_last())
        )
        if scored_after is not None:
            statement = statement.where(latest.scored_at >= scored_after)
        if scored_before is not None:
            statement = statement.where(latest.scored_at < scored_before)
        return [
            TrendRow(
                bucket_start=row.bucket_start.replace(tzinfo=UTC),
                group=row.grp,
                count=int(row.n),
                mean=float(row.mean),
                p10=float(row.p10),
                p50=float(row.p50),
                p90=float(row.p90),
                dimension_means={d: None if row._mapping[d] is None else float(row._mapping[d]) for d in DIMENSIONS},
                band_counts={b.band: int(row._mapping[f"band_{b.band}"]) for b in SCORE_BANDS},
            )
            for row in self._all(statement)
        ]
