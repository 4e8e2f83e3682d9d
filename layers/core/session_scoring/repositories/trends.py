"""Trends over each session's latest completed score per criteria hash, from the read model ``read_models/trends.py``
keeps: one ``trend_histograms`` row per bucket and group. A day a bound cuts (not a UTC midnight) is read as its
members (``trend_members``) within the bound, each a histogram of one session. A naive bound is taken as UTC.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any, cast

from sqlalchemy import Date, Integer, false, func, literal_column, or_, select, true, union_all
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import array

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.db.schema import criteria_scope
from session_scoring.models.scores import BAND_NAMES, MAX_SCORE, MIN_SCORE, REFERENCED_OUTCOMES, SCORE_BANDS
from session_scoring.models.trends import PERCENTILES, TrendBucket, TrendGroup, TrendRow
from session_scoring.repositories.base import StatementRepository, as_json_list
from session_scoring.repositories.read_models import dimension_entries, outcomes, rebuild_tables, trends
from session_scoring.repositories.read_models.trends import OUTCOME_SUMS, outcome_sums

_MEMBERS = schema.trend_members
_HISTOGRAMS = schema.trend_histograms
_DIMENSION_SUMS = schema.trend_dimension_sums
_GROUP_COLUMNS = {TrendGroup.AGENT: "session_agent", TrendGroup.ALERT_TYPE: "session_alert_type"}


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _midnight(value: datetime | None) -> bool:
    return value is None or value.time() == time(0)


_CELLS = MAX_SCORE - MIN_SCORE + 1
_EPOCH = date(1970, 1, 1)
_MIDNIGHT_1970 = datetime.combine(_EPOCH, time(0), UTC)


_Point = tuple[int, str | None]
"""A trend point's key: its bucket's first day (days since 1970-01-01) and group (None: unknown, or no grouping)."""


def _trend_rows(
    keys: list[_Point], starts: list[int], packed: str, dimension_sums: dict[_Point, dict[str, list[int]]]
) -> list[TrendRow]:
    """Each point's statistics from its rows, exactly as the scan's aggregates give them, computed as arrays.
    ``keys`` are the points; ``starts`` each point's first row (a point's rows are consecutive); ``packed`` every
    row's 101 histogram cells (index = total) and ``OUTCOME_SUMS``, comma-separated; ``dimension_sums`` each point's
    points and members per dimension key (a dimension no member of the point has is absent).
    ``percentile_cont(q)`` interpolates, in float8 as PostgreSQL, between the totals at the 0-based positions
    ``floor`` and ``ceil`` of ``q * (n - 1)``."""
    import numpy as np

    rows = np.fromstring(packed, dtype=np.int64, sep=",").reshape(-1, _CELLS + len(OUTCOME_SUMS))
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
    outcomes = rows[:, _CELLS:].tolist()
    no_dimensions: dict[str, list[int]] = {}
    starts_at = {day: _MIDNIGHT_1970 + timedelta(days=day) for day in {day for day, _ in keys}}
    names = list(BAND_NAMES)
    p10, p50, p90 = percentiles
    outcome_names = [outcome.value for outcome in REFERENCED_OUTCOMES]
    return [
        TrendRow(
            bucket_start=starts_at[day],
            group=group,
            count=count,
            mean=mean,
            p10=low,
            p50=median,
            p90=high,
            dimension_means={
                key: total / n for key, (total, n) in dimension_sums.get((day, group), no_dimensions).items() if n
            },
            band_counts=dict(zip(names, point_bands, strict=True)),
            outcome_counts=dict(zip(outcome_names, point_outcomes, strict=True)),
        )
        for (day, group), count, mean, low, median, high, point_bands, point_outcomes in zip(
            keys, n.tolist(), means, p10, p50, p90, bands, outcomes, strict=True
        )
    ]


class TrendsRepository(StatementRepository):
    """The trends' query, the facts' refresh of their read model, and its rebuild."""

    @db_call
    def rebuild(self) -> None:
        """Rebuild ``trend_members`` and ``trend_histograms`` from ``latest_scores`` and the attempts' facts, then
        ``outcome_counts``, which follows the members."""
        rebuild_tables(self._engine, trends.TABLES, trends.rebuild())
        rebuild_tables(self._engine, outcomes.TABLES, outcomes.rebuild())

    @db_call
    def refresh_facts(self, session_id: str) -> int:
        """Move a session's trend members (and their buckets) to the agent and alert type their attempts now store;
        how many moved. Called after a facts backfill filled the session's attempts."""
        with self._engine.connect() as conn:
            return len(conn.execute(trends.refresh_facts_statement(), {"p_session_id": session_id}).all())

    @db_call
    def trends(
        self,
        criteria_hash: str | None,
        bucket: TrendBucket,
        group_by: TrendGroup,
        scored_after: datetime | None,
        scored_before: datetime | None,
    ) -> list[TrendRow]:
        """Count, mean, p10/p50/p90 as ``percentile_cont``, dimension means and band counts per bucket and group
        (ordered by bucket then group, unknown group last) of the latest scores scored in ``[scored_after,
        scored_before)``: one histogram row per whole day or week in range, and the members of a day a bound cuts."""
        after, before = _utc(scored_after), _utc(scored_before)
        # The first day whose whole row is in range and the day after the last: a day a bound cuts is its members'.
        first = None if after is None else after.date() + timedelta(days=0 if _midnight(after) else 1)
        last = None if before is None else before.date()
        h, d, m = _HISTOGRAMS.c, _DIMENSION_SUMS.c, _MEMBERS.c
        scope = criteria_scope(criteria_hash)
        # A week row covers its whole week: bounds that are not Monday midnights cut weeks, so those weeks are summed
        # from the day rows in range instead (consecutive rows here: ordered by week, then group).
        rows_of = bucket
        if bucket is TrendBucket.WEEK and any(day is not None and day.weekday() != 0 for day in (first, last)):
            rows_of = TrendBucket.DAY

        def whole(table: Any) -> tuple[Any, list[Any]]:
            """The point of a ``table`` row (a histogram key) and the conditions of the rows in range."""
            start = cast(Any, table.bucket_start)
            if rows_of is not bucket:
                start = sql_cast(func.date_trunc(literal_column("'week'"), table.bucket_start), Date)
            return _point(start, table.group_unknown, table.group_value), [
                table.criteria_hash == scope,
                table.bucket == rows_of.value,
                table.group_by == group_by.value,
                table.sessions != 0,
                *([table.bucket_start >= first] if first is not None else []),
                *([table.bucket_start < last] if last is not None else []),
            ]

        cut = [
            *([m.scored_at < datetime.combine(first, time(0), UTC)] if first and not _midnight(after) else []),
            *([m.scored_at >= datetime.combine(last, time(0), UTC)] if last and not _midnight(before) else []),
        ]
        group = m[_GROUP_COLUMNS[group_by]] if group_by in _GROUP_COLUMNS else None
        member_point = _point(
            sql_cast(func.date_trunc(literal_column(f"'{bucket.value}'"), func.timezone("UTC", m.scored_at)), Date),
            false() if group is None else group.is_(None),
            literal_column("''") if group is None else func.coalesce(group, ""),
        )

        histogram_point, in_range = whole(h)
        # the cells and the sums as one text column: pg8000 decodes each column separately
        cells = func.array_cat(h.totals, array([h[name] for name in OUTCOME_SUMS]))
        statement: Any = select(*histogram_point, func.array_to_string(cells, ",").label("cells")).where(*in_range)
        dimension_point, dimensions_in_range = whole(d)
        dimensions: Any = select(
            *dimension_point, d.dimension_key.label("key"), d.points.label("points"), d.sessions.label("n")
        ).where(*dimensions_in_range)
        if cut:
            cut_members = [
                m.criteria_hash == scope,
                *([m.scored_at >= after] if after is not None else []),
                *([m.scored_at < before] if before is not None else []),
                or_(*cut),
            ]
            members = select(*member_point, func.array_to_string(_one_session(), ",").label("cells")).where(
                *cut_members
            )
            statement = union_all(statement, members)
            each = dimension_entries(m.dimensions, "member_dims")
            member_dimensions = (
                select(
                    *member_point,
                    each.c.key.label("key"),
                    sql_cast(each.c.value, Integer).label("points"),
                    literal_column("1").label("n"),
                )
                .select_from(_MEMBERS.join(each, true()))
                .where(*cut_members)
            )
            dimensions = union_all(dimensions, member_dimensions)
        statement = statement.order_by(
            literal_column("day"), literal_column("group_unknown"), literal_column("group_value")
        )
        grouped = group_by is not TrendGroup.NONE

        def point_of(row: Any) -> _Point:
            return (row.day, row.group_value if grouped and not row.group_unknown else None)

        keys: list[_Point] = []
        starts: list[int] = []  # each point's first row (the next rows, if any: other days of a cut week, members)
        packed: list[str] = []
        for i, row in enumerate(self._all(statement)):
            key = point_of(row)
            if not keys or keys[-1] != key:
                keys.append(key)
                starts.append(i)
            packed.append(row.cells)
        if not keys:
            return []
        # Summed per point and key in PostgreSQL, and returned as one JSON value decoded in one call: a row (or a
        # JSON value) per key decoded in Python costs more than the whole histogram.
        rows = dimensions.subquery("trend_dimension_rows")
        point = [rows.c.day, rows.c.group_unknown, rows.c.group_value]
        per_key = (
            select(*point, rows.c.key, func.sum(rows.c.points).label("points"), func.sum(rows.c.n).label("n"))
            .group_by(*point, rows.c.key)
            .subquery("trend_dimension_keys")
        )
        k = per_key.c
        every = select(
            func.json_agg(func.json_build_array(k.day, k.group_unknown, k.group_value, k.key, k.points, k.n))
        )
        sums: dict[_Point, dict[str, list[int]]] = {}
        found = self._one(every)
        for day, unknown, value, key, points, n in as_json_list(found[0] if found else None):
            group = value if grouped and not unknown else None
            sums.setdefault((day, group), {})[key] = [points, n]
        return _trend_rows(keys, starts, ",".join(packed), sums)


def _point(start: Any, unknown: Any, value: Any) -> list[Any]:
    """A row's point: its bucket's first day (days since 1970-01-01: pg8000 decodes a date with strptime) and group."""
    day = sql_cast(start - literal_column(f"DATE '{_EPOCH.isoformat()}'"), Integer)
    return [day.label("day"), unknown.label("group_unknown"), value.label("group_value")]


def _one_session() -> Any:
    """A ``trend_members`` row as a histogram row's cells: 1 at its total among 101, then its ``outcome_sums``."""
    m, zeros = _MEMBERS.c, cast(Any, literal_column("0"))
    return (
        func.array_fill(zeros, array([m.total_score - MIN_SCORE]))
        .op("||")(literal_column("1"))
        .op("||")(func.array_fill(zeros, array([MAX_SCORE - m.total_score])))
        .op("||")(array(outcome_sums(m.outcome)))
    )
