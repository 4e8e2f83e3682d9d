"""Trends over each session's latest completed score per criteria hash, at any scale.

Trends read ``trend_buckets`` (migration 0012_trend_buckets): per criteria hash, grouping, UTC day, group and total
score, the number of sessions and the sum and count of each dimension, kept by the statement that stores a verdict
(``trend_upkeep_ctes``). A bucket's histogram of totals (integers 0-100) gives ``percentile_cont``'s exact answer, so
the query returns one row per bucket and group instead of scanning every latest score. Bounds that do not fall on a
UTC midnight cannot be answered from day rows: those trends scan ``latest_scores`` as before (``scanned_trends``).

The criteria comparison reads its own tables (``repositories/comparison.py``).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    Date,
    DateTime,
    Integer,
    String,
    Table,
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
from sqlalchemy.dialects.postgresql import insert

from session_scoring.db.calls import db_call
from session_scoring.db.schema import (
    ANY_CRITERIA,
    LatestScoreRow,
    SessionScoreRow,
    TrendBucketRow,
    TrendMemberRow,
)
from session_scoring.models.scores import DIMENSIONS, SCORE_BANDS
from session_scoring.models.trends import (
    PERCENTILES,
    TrendBucket,
    TrendCounts,
    TrendGroup,
    TrendRow,
)
from session_scoring.repositories.base import StatementRepository

_LATEST = cast(Table, LatestScoreRow.__table__)
_SCORES = cast(Table, SessionScoreRow.__table__)
_MEMBERS = cast(Table, TrendMemberRow.__table__)
_BUCKETS = cast(Table, TrendBucketRow.__table__)

_GROUP_COLUMNS = {TrendGroup.AGENT: "session_agent", TrendGroup.ALERT_TYPE: "session_alert_type"}
_MEMBER_VALUES = ("score_id", "scored_at", "session_agent", "session_alert_type", "total_score", *DIMENSIONS)
_BUCKET_KEY = ("criteria_hash", "bucket", "group_by", "bucket_start", "group_unknown", "group_value", "total_score")
_BUCKET_SUMS = ("sessions", *(f"{d}_{part}" for d in DIMENSIONS for part in ("sum", "n")))


def trend_upkeep_ctes(done: Any) -> tuple[Any, ...]:
    """Keep ``trend_members`` and ``trend_buckets`` in step with a stored verdict, in the verdict's statement.

    ``done`` returns the completed attempt's score id, session id, total and scored_at; its dimensions are the
    statement's ``p_<dimension>`` parameters and its criteria hash ``p_criteria_hash``. The attempt becomes the
    session's member under its criteria hash and under ``ANY_CRITERIA`` when it is newer (``scored_at``, then
    ``score_id``) than the member it replaces, as in ``latest_scores``. The upsert's ``DO UPDATE`` reads the row's
    current version under its lock, so the replaced member it stores in ``previous`` (and returns) is exact even when
    completes race; its buckets get -1 and the new member's +1 (six rows each: day and week, each with no grouping,
    by agent and by alert type),
    summed per key and applied as atomic increments in key order.
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
    return members, _bucket_upkeep(members)


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


def _bucket_upkeep(members: Any) -> Any:
    """The CTE moving ``trend_buckets`` by what ``members`` (a CTE returning changed ``trend_members`` rows, with
    ``previous`` the replaced member or NULL) changed: -1 for each replaced member's rows, +1 for each new one's
    (six rows each: day and week, each with no grouping, by agent and by alert type), summed per key and applied as
    atomic increments in key order (concurrent statements lock bucket rows in the same order)."""
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
    key = [deltas.c[name] for name in _BUCKET_KEY]
    sums = [func.sum(deltas.c[name]).label(name) for name in _BUCKET_SUMS]
    counts = insert(_BUCKETS).from_select(
        [*_BUCKET_KEY, *_BUCKET_SUMS],
        select(*key, *sums)
        .group_by(*key)
        .having(or_(*[func.sum(deltas.c[name]) != 0 for name in _BUCKET_SUMS]))
        .order_by(*key),
    )
    counted = counts.on_conflict_do_update(
        index_elements=list(_BUCKET_KEY),
        set_={name: _BUCKETS.c[name] + counts.excluded[name] for name in _BUCKET_SUMS},
    ).cte("trend_buckets_stored")
    return counted


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
    return select(members.c.criteria_hash).add_cte(_bucket_upkeep(members))


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

_REBUILD_BUCKETS = """
INSERT INTO trend_buckets (criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value, total_score,
                           sessions,
                           logical_flow_sum, logical_flow_n, consistency_sum, consistency_n,
                           tool_relevance_sum, tool_relevance_n, synthesis_quality_sum, synthesis_quality_n)
SELECT m.criteria_hash, u.bucket, g.group_by, date_trunc(u.bucket, m.scored_at AT TIME ZONE 'UTC')::date,
       g.group_unknown, g.group_value, m.total_score, count(*), coalesce(sum(m.logical_flow), 0), count(m.logical_flow),
       coalesce(sum(m.consistency), 0), count(m.consistency), coalesce(sum(m.tool_relevance), 0),
       count(m.tool_relevance), coalesce(sum(m.synthesis_quality), 0), count(m.synthesis_quality)
FROM trend_members m
CROSS JOIN (VALUES ('day'), ('week')) AS u(bucket)
CROSS JOIN LATERAL (VALUES ('none', false, ''),
                           ('agent', m.session_agent IS NULL, coalesce(m.session_agent, '')),
                           ('alert_type', m.session_alert_type IS NULL, coalesce(m.session_alert_type, '')))
     AS g(group_by, group_unknown, group_value)
GROUP BY 1, 2, 3, 4, 5, 6, 7
"""


class TrendsRepository(StatementRepository):
    """The queries behind the trends, and the rebuild of the trend tables."""

    @db_call
    def rebuild(self) -> None:
        """Rebuild ``trend_members`` and ``trend_buckets`` from ``latest_scores`` and the attempts' facts (after the
        facts changed under existing scores, e.g. a facts backfill). One transaction holding both tables locked
        against writes: a verdict stored meanwhile waits, then applies its change to the rebuilt rows."""
        with self._engine.connect() as autocommit:
            conn = autocommit.execution_options(isolation_level="READ COMMITTED")
            with conn.begin():
                conn.execute(text("LOCK TABLE trend_members, trend_buckets IN EXCLUSIVE MODE"))
                conn.execute(text("DELETE FROM trend_buckets"))
                conn.execute(text("DELETE FROM trend_members"))
                conn.execute(text(_REBUILD_MEMBERS))
                conn.execute(text(_REBUILD_BUCKETS))

    @staticmethod
    def answers_from_buckets(scored_after: datetime | None, scored_before: datetime | None) -> bool:
        """Whether the bucket table answers these bounds (each absent or a UTC midnight)."""
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
    ) -> list[TrendCounts]:
        """Per bucket (UTC day or Monday week) and group, from ``trend_buckets``: count, sum of totals, band counts,
        dimension sums and counts, and for each of ``PERCENTILES`` the totals at the two positions
        ``percentile_cont`` interpolates between (found in the bucket's running histogram, in SQL, so a point is one
        row whatever the scale); ordered by bucket then group (unknown group last). The bounds must be UTC midnights
        (``answers_from_buckets``)."""
        b = _BUCKETS.c
        # A week row covers its whole week: bounds (UTC midnights) that are not Mondays cut weeks, so those weeks
        # are summed from the day rows in range instead (a total may then repeat within a point: peers share their
        # running count, so the positions below still find the right total).
        rows_of, start = bucket, cast(Any, b.bucket_start)
        if bucket is TrendBucket.WEEK and not (_monday(scored_after) and _monday(scored_before)):
            rows_of = TrendBucket.DAY
            start = sql_cast(func.date_trunc(literal_column("'week'"), b.bucket_start), Date)
        point = (start, b.group_unknown, b.group_value)
        cells = (
            select(
                start.label("bucket_start"),
                b.group_unknown,
                b.group_value,
                b.total_score,
                *[b[name] for name in _BUCKET_SUMS],
                func.sum(b.sessions).over(partition_by=point, order_by=b.total_score).label("ends"),
                func.sum(b.sessions).over(partition_by=point).label("n"),
            )
            .where(
                b.criteria_hash == (ANY_CRITERIA if criteria_hash is None else criteria_hash),
                b.bucket == rows_of.value,
                b.group_by == group_by.value,
                b.sessions > 0,
                *([b.bucket_start >= _day(scored_after)] if scored_after is not None else []),
                *([b.bucket_start < _day(scored_before)] if scored_before is not None else []),
            )
            .subquery("cells")
        )
        c = cells.c

        def total_at(bound: Any, q: float) -> Any:
            # percentile_cont's row positions, in float8 as PostgreSQL computes them (0-based).
            position = bound(literal_column(f"{q!r}::float8") * (c.n - 1))
            return func.min(c.total_score).filter(c.ends > position)

        statement = (
            select(
                c.bucket_start,
                c.group_unknown,
                c.group_value,
                func.max(c.n).label("n"),
                func.sum(c.total_score * c.sessions).label("total_sum"),
                *[
                    func.coalesce(
                        func.sum(c.sessions).filter(c.total_score.between(band.min_score, band.max_score)), 0
                    ).label(f"band_{band.band}")
                    for band in SCORE_BANDS
                ],
                *[func.sum(c[name]).label(name) for name in _BUCKET_SUMS[1:]],
                *[
                    total_at(bound, q).label(f"{side}_{i}")
                    for i, q in enumerate(PERCENTILES)
                    for side, bound in (("low", func.floor), ("high", func.ceil))
                ],
            )
            .group_by(c.bucket_start, c.group_unknown, c.group_value)
            .order_by(c.bucket_start, c.group_unknown, c.group_value)
        )
        return [
            TrendCounts(
                bucket_start=datetime.combine(row.bucket_start, time(0), UTC),
                group=None if row.group_unknown or group_by is TrendGroup.NONE else row.group_value,
                count=int(row.n),
                total_sum=int(row.total_sum),
                band_counts={band.band: int(row._mapping[f"band_{band.band}"]) for band in SCORE_BANDS},
                percentile_totals={
                    q: (int(row._mapping[f"low_{i}"]), int(row._mapping[f"high_{i}"]))
                    for i, q in enumerate(PERCENTILES)
                },
                dimension_sums={d: int(row._mapping[f"{d}_sum"]) for d in DIMENSIONS},
                dimension_counts={d: int(row._mapping[f"{d}_n"]) for d in DIMENSIONS},
            )
            for row in self._all(statement)
        ]

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
