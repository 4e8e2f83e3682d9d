"""The trends as ``percentile_cont`` and ``avg`` over every latest score: the reference the service's trends (from
histograms) are checked against in the tests and timed against in the benchmarks. Not in the runtime package: it
scans every latest score in range."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Engine, Integer, cast, func, literal_column, null, select, true

from session_scoring.db import schema
from session_scoring.db.schema import ANY_CRITERIA
from session_scoring.models.scores import REFERENCED_OUTCOMES, SCORE_BANDS
from session_scoring.models.trends import TrendBucket, TrendGroup, TrendRow

_LATEST = schema.latest_scores
_SCORES = schema.session_scores
_GROUP_COLUMNS = {TrendGroup.AGENT: "session_agent", TrendGroup.ALERT_TYPE: "session_alert_type"}


def scanned_trends(
    engine: Engine,
    criteria_hash: str | None,
    bucket: TrendBucket,
    group_by: TrendGroup,
    scored_after: datetime | None,
    scored_before: datetime | None,
) -> list[TrendRow]:
    """The trend's rows aggregated from every latest score in ``[scored_after, scored_before)`` (a naive bound as
    UTC), ordered by bucket then group, unknown group last."""
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
        *(func.percentile_cont(q).within_group(latest.total_score).label(f"p{int(q * 100)}") for q in (0.1, 0.5, 0.9)),
        *(func.count().filter(latest.band == b.band).label(f"band_{b.band}") for b in SCORE_BANDS),
        *(func.count().filter(latest.outcome == o.value).label(f"outcome_{o.value}") for o in REFERENCED_OUTCOMES),
    ]
    joined = _LATEST.join(_SCORES, _SCORES.c.score_id == latest.score_id)
    conditions = [latest.criteria_hash == (ANY_CRITERIA if criteria_hash is None else criteria_hash)]
    if scored_after is not None:
        conditions.append(latest.scored_at >= _utc(scored_after))
    if scored_before is not None:
        conditions.append(latest.scored_at < _utc(scored_before))
    keys = [start, *([group] if grouped else [])]
    statement = (
        select(*columns)
        .select_from(joined)
        .where(*conditions)
        .group_by(*keys)
        .order_by(start, group.asc().nulls_last())
    )
    # Each dimension's mean over the scores that have it, whatever keys their maps have.
    each = func.jsonb_each_text(latest.dimensions).table_valued("key", "value").render_derived(name="d")
    means = (
        select(start, group, each.c.key, func.avg(cast(each.c.value, Integer)).label("mean"))
        .select_from(joined.join(each, true()))
        .where(*conditions)
        .group_by(*keys, each.c.key)
    )
    with engine.connect() as conn:
        rows = conn.execute(statement).all()
        dimension_means: dict[tuple[Any, Any], dict[str, float]] = {}
        for row in conn.execute(means):
            dimension_means.setdefault((row.bucket_start, row.grp), {})[row.key] = float(row.mean)
    return [
        TrendRow(
            bucket_start=row.bucket_start.replace(tzinfo=UTC),
            group=row.grp,
            count=int(row.n),
            mean=float(row.mean),
            p10=float(row.p10),
            p50=float(row.p50),
            p90=float(row.p90),
            dimension_means=dimension_means.get((row.bucket_start, row.grp), {}),
            band_counts={b.band: int(row._mapping[f"band_{b.band}"]) for b in SCORE_BANDS},
            outcome_counts={o.value: int(row._mapping[f"outcome_{o.value}"]) for o in REFERENCED_OUTCOMES},
        )
        for row in rows
    ]


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value
