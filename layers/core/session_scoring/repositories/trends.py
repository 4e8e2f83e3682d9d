"""Trends over each session's latest completed score per criteria hash, from the read model ``read_models/trends.py``
keeps: one ``trend_histograms`` row per bucket and group. A day a bound cuts (not a UTC midnight) is read as its
members (``trend_members``) within the bound, each a histogram of one session. A naive bound is taken as UTC.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any, cast

from sqlalchemy import Date, Integer, false, func, literal_column, or_, select, union_all
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import array

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.db.schema import criteria_scope
from session_scoring.models.scores import BAND_NAMES, DIMENSIONS, MAX_SCORE, MIN_SCORE, REFERENCED_OUTCOMES, SCORE_BANDS
from session_scoring.models.trends import PERCENTILES, TrendBucket, TrendGroup, TrendRow
from session_scoring.repositories.base import StatementRepository
from session_scoring.repositories.read_models import outcomes, rebuild_tables, trends
from session_scoring.repositories.read_models.trends import DIMENSION_SUMS, OUTCOME_SUMS, member_sums

_MEMBERS = schema.trend_members
_HISTOGRAMS = schema.trend_histograms
_GROUP_COLUMNS = {TrendGroup.AGENT: "session_agent", TrendGroup.ALERT_TYPE: "session_alert_type"}


def _utc(value: datetime | None) -> datetime | None:
    return None if value is None else value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _midnight(value: datetime | None) -> bool:
    return value is None or value.time() == time(0)


_CELLS = MAX_SCORE - MIN_SCORE + 1
_EPOCH = date(1970, 1, 1)
_MIDNIGHT_1970 = datetime.combine(_EPOCH, time(0), UTC)


def _trend_rows(keys: list[tuple[int, str | None]], starts: list[int], packed: str) -> list[TrendRow]:
    """Each point's statistics from its rows, exactly as the scan's aggregates give them, computed as arrays.
    ``keys`` are (days since 1970-01-01, group); ``starts`` each point's first row (a point's rows are consecutive);
    ``packed`` every row's 101 histogram cells (index = total), ``DIMENSION_SUMS`` and ``OUTCOME_SUMS``,
    comma-separated. ``percentile_cont(q)`` interpolates, in float8 as PostgreSQL, between the totals at the 0-based
    positions ``floor`` and ``ceil`` of ``q * (n - 1)``."""
    import numpy as np

    rows = np.fromstring(packed, dtype=np.int64, sep=",").reshape(-1, _CELLS + len(DIMENSION_SUMS) + len(OUTCOME_SUMS))
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
    after_sums = _CELLS + len(DIMENSION_SUMS)
    sums, counts = rows[:, _CELLS:after_sums:2], rows[:, _CELLS + 1 : after_sums : 2]
    outcomes = rows[:, after_sums:].tolist()
    dimension_means = np.divide(sums, counts, out=np.zeros(sums.shape), where=counts > 0).tolist()
    has = (counts > 0).tolist()
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
            dimension_means={d: m if h else None for d, m, h in zip(DIMENSIONS, dims, present, strict=True)},
            band_counts=dict(zip(names, point_bands, strict=True)),
            outcome_counts=dict(zip(outcome_names, point_outcomes, strict=True)),
        )
        for (day, group), count, mean, low, median, high, dims, present, point_bands, point_outcomes in zip(
            keys, n.tolist(), means, p10, p50, p90, dimension_means, has, bands, outcomes, strict=True
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
        h, m = _HISTOGRAMS.c, _MEMBERS.c
        scope = criteria_scope(criteria_hash)
        # A week row covers its whole week: bounds that are not Monday midnights cut weeks, so those weeks are summed
        # from the day rows in range instead (consecutive rows here: ordered by week, then group).
        rows_of, start = bucket, cast(Any, h.bucket_start)
        if bucket is TrendBucket.WEEK and any(d is not None and d.weekday() != 0 for d in (first, last)):
            rows_of = TrendBucket.DAY
            start = sql_cast(func.date_trunc(literal_column("'week'"), h.bucket_start), Date)
        whole = select(
            *_point(start, h.group_unknown, h.group_value),
            # the cells and the sums as one text column: pg8000 decodes each column separately
            func.array_to_string(
                func.array_cat(h.totals, array([h[name] for name in (*DIMENSION_SUMS, *OUTCOME_SUMS)])), ","
            ).label("cells"),
        ).where(
            h.criteria_hash == scope,
            h.bucket == rows_of.value,
            h.group_by == group_by.value,
            h.sessions > 0,
            *([h.bucket_start >= first] if first is not None else []),
            *([h.bucket_start < last] if last is not None else []),
        )
        cut = [
            *([m.scored_at < datetime.combine(first, time(0), UTC)] if first and not _midnight(after) else []),
            *([m.scored_at >= datetime.combine(last, time(0), UTC)] if last and not _midnight(before) else []),
        ]
        statement: Any = whole
        if cut:
            group = m[_GROUP_COLUMNS[group_by]] if group_by in _GROUP_COLUMNS else None
            member_start = func.date_trunc(literal_column(f"'{bucket.value}'"), func.timezone("UTC", m.scored_at))
            members = select(
                *_point(
                    sql_cast(member_start, Date),
                    false() if group is None else group.is_(None),
                    literal_column("''") if group is None else func.coalesce(group, ""),
                ),
                func.array_to_string(_one_session(), ",").label("cells"),
            ).where(
                m.criteria_hash == scope,
                *([m.scored_at >= after] if after is not None else []),
                *([m.scored_at < before] if before is not None else []),
                or_(*cut),
            )
            statement = union_all(whole, members)
        statement = statement.order_by(
            literal_column("day"), literal_column("group_unknown"), literal_column("group_value")
        )
        keys: list[tuple[int, str | None]] = []
        starts: list[int] = []  # each point's first row (the next rows, if any: other days of a cut week, members)
        packed: list[str] = []
        grouped = group_by is not TrendGroup.NONE
        for i, row in enumerate(self._all(statement)):
            key = (row.day, row.group_value if grouped and not row.group_unknown else None)
            if not keys or keys[-1] != key:
                keys.append(key)
                starts.append(i)
            packed.append(row.cells)
        return _trend_rows(keys, starts, ",".join(packed)) if keys else []


def _point(start: Any, unknown: Any, value: Any) -> list[Any]:
    """A row's point: its bucket's first day (days since 1970-01-01: pg8000 decodes a date with strptime) and group."""
    day = sql_cast(start - literal_column(f"DATE '{_EPOCH.isoformat()}'"), Integer)
    return [day.label("day"), unknown.label("group_unknown"), value.label("group_value")]


def _one_session() -> Any:
    """A ``trend_members`` row as a histogram row's cells: 1 at its total among 101, then its ``member_sums``."""
    m, zeros = _MEMBERS.c, cast(Any, literal_column("0"))
    return (
        func.array_fill(zeros, array([m.total_score - MIN_SCORE]))
        .op("||")(literal_column("1"))
        .op("||")(func.array_fill(zeros, array([MAX_SCORE - m.total_score])))
        .op("||")(array(member_sums([m[d] for d in DIMENSIONS], m.outcome)))
    )
