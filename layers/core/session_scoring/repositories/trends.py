"""Trends and criteria comparison over ``latest_scores`` (each session's latest completed score per criteria hash).

Trends aggregate in PostgreSQL (``percentile_cont`` for the percentiles, ``FILTER`` for the bands); the session facts
to group by are on the attempt, so ``latest_scores`` is joined to ``session_scores`` by ``score_id``. The comparison
reads the pairs of scores of the sessions scored under both criteria; the statistics are the service's.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, Table, func, literal_column, null, select

from session_scoring.db.calls import db_call
from session_scoring.db.schema import ANY_CRITERIA, LatestScoreRow, SessionScoreRow
from session_scoring.models.scores import DIMENSIONS, SCORE_BANDS
from session_scoring.models.trends import ComparedScore, ComparisonPoint, TrendBucket, TrendGroup, TrendRow
from session_scoring.repositories.base import StatementRepository

_LATEST = cast(Table, LatestScoreRow.__table__)
_SCORES = cast(Table, SessionScoreRow.__table__)

_GROUP_COLUMNS = {TrendGroup.AGENT: "session_agent", TrendGroup.ALERT_TYPE: "session_alert_type"}


class TrendsRepository(StatementRepository):
    """Read-only queries behind the trends and the criteria comparison."""

    @db_call
    def trends(
        self,
        criteria_hash: str | None,
        bucket: TrendBucket,
        group_by: TrendGroup,
        scored_after: datetime | None,
        scored_before: datetime | None,
    ) -> list[TrendRow]:
        """Per bucket of ``scored_at`` (UTC) and group: count, mean, p10/p50/p90 of the total, dimension means and
        band counts, ordered by bucket then group (unknown group last)."""
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

    @db_call
    def compared_scores(self, base: str, candidate: str) -> list[ComparedScore]:
        """The sessions with a latest completed score under both criteria hashes, by session id."""
        b, c = _LATEST.alias("b"), _LATEST.alias("c")
        statement = (
            select(
                b.c.session_id,
                b.c.total_score.label("base_total"),
                c.c.total_score.label("candidate_total"),
                b.c.band.label("base_band"),
                c.c.band.label("candidate_band"),
                *(b.c[d].label(f"base_{d}") for d in DIMENSIONS),
                *(c.c[d].label(f"candidate_{d}") for d in DIMENSIONS),
            )
            .join(c, c.c.session_id == b.c.session_id)
            .where(b.c.criteria_hash == base, c.c.criteria_hash == candidate)
            .order_by(b.c.session_id)
        )
        return [
            ComparedScore(
                session_id=row.session_id,
                base_total=row.base_total,
                candidate_total=row.candidate_total,
                base_band=row.base_band,
                candidate_band=row.candidate_band,
                base_dimensions={d: row._mapping[f"base_{d}"] for d in DIMENSIONS},
                candidate_dimensions={d: row._mapping[f"candidate_{d}"] for d in DIMENSIONS},
            )
            for row in self._all(statement)
        ]

    @db_call
    def comparison_points(self, base: str, candidate: str, limit: int) -> list[ComparisonPoint]:
        """Up to ``limit`` sessions scored under both criteria with their two totals: the first by session id, a
        sample that is the same on every call (and, with random session ids, spread over the whole population). It
        walks the primary key in session order and stops at ``limit``, whatever the number of common sessions."""
        b, c = _LATEST.alias("b"), _LATEST.alias("c")
        statement = (
            select(b.c.session_id, b.c.total_score.label("base"), c.c.total_score.label("candidate"))
            .join(c, c.c.session_id == b.c.session_id)
            .where(b.c.criteria_hash == base, c.c.criteria_hash == candidate)
            .order_by(b.c.session_id)
            .limit(limit)
        )
        return [
            ComparisonPoint(session_id=row.session_id, base=row.base, candidate=row.candidate)
            for row in self._all(statement)
        ]
