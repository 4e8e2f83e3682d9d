"""The criteria comparison from aggregates kept by the statement that stores a verdict, at any scale.

Per unordered pair of criteria hashes (``low_hash`` the lesser in code point order; never ``ANY_CRITERIA``: the
comparison is between two criteria) ``comparison_cells`` holds the histograms the statistics are computed from (the
joint one of the totals, one of each dimension's deltas) and ``comparison_pairs`` one row per session scored under
both, with its two totals and their delta (migration 0016_comparison_pairs). A comparison reads its pair's cells (at
most 101 x 101 + 4 x 51 rows), its movers and its scatter's sample (index scans that stop after a few rows) and
flips them when the base is the higher hash: its cost does not grow with the number of sessions.

``comparison_upkeep_ctes`` keeps both in the verdict statement: when the session's latest completed score under the
verdict's criteria changes, each pair it forms with the session's other criteria takes the replaced score's
contribution out and the new one's in.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import (
    Integer,
    String,
    and_,
    bindparam,
    case,
    func,
    literal_column,
    select,
    text,
    true,
    union_all,
)
from sqlalchemy.dialects.postgresql import aggregate_order_by, insert

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.db.schema import ANY_CRITERIA
from session_scoring.models.scores import DIMENSIONS
from session_scoring.models.trends import ComparisonHistograms, ComparisonPoint, Mover
from session_scoring.repositories.base import StatementRepository, as_json_list

_LATEST = schema.latest_scores
_PAIRS = schema.comparison_pairs
_CELLS = schema.comparison_cells

_CELL_KEY = ("low_hash", "high_hash", "kind", "a", "b")
_TOTAL = "total"
"""The kind of the joint histogram's cells (the others are the dimensions' names)."""


def comparison_upkeep_ctes(done: Any, latest: Any) -> tuple[Any, ...]:
    """Keep ``comparison_pairs`` and ``comparison_cells`` in step with a stored verdict, in the verdict's statement.

    ``done`` returns the completed attempt's session id and total (its dimensions are the statement's
    ``p_<dimension>`` parameters, its criteria hash ``p_criteria_hash``); ``latest`` is the ``latest_scores`` upsert,
    returning the rows it changed. When it changed the session's row under the verdict's criteria, the session's
    other rows (read from the statement's snapshot, which the upsert's changes are not in) each form a pair with it:
    the replaced score's cells (the snapshot's row under the verdict's criteria, if any) get -1, the new score's +1,
    summed per key and applied as atomic increments in key order, and each pair row is upserted with the new totals.
    A session has one active attempt at a time, so no other statement changes its rows meanwhile.
    """
    criteria = bindparam("p_criteria_hash", type_=String)
    changed = select(latest.c.criteria_hash).where(latest.c.criteria_hash == criteria).exists()
    replaced = _LATEST.alias("cmp_replaced")
    plus: Any = literal_column("1")
    minus: Any = literal_column("-1")
    sides = union_all(
        select(
            plus.label("sign"),
            done.c.total_score.label("total"),
            *[bindparam(f"p_{d}", type_=Integer).label(d) for d in DIMENSIONS],
        ).where(changed),
        select(minus, replaced.c.total_score, *[replaced.c[d] for d in DIMENSIONS])
        .select_from(done)
        .join(replaced, and_(replaced.c.session_id == done.c.session_id, replaced.c.criteria_hash == criteria))
        .where(changed),
    ).subquery("cmp_sides")
    other = _LATEST.alias("cmp_other")
    mine_low = criteria.collate("C") < other.c.criteria_hash.collate("C")

    def low(mine: Any, theirs: Any) -> Any:
        return case((mine_low, mine), else_=theirs)

    def high(mine: Any, theirs: Any) -> Any:
        return case((mine_low, theirs), else_=mine)

    pairs = (
        select(
            sides.c.sign,
            done.c.session_id,
            low(criteria, other.c.criteria_hash).label("low_hash"),
            high(criteria, other.c.criteria_hash).label("high_hash"),
            low(sides.c.total, other.c.total_score).label("low_total"),
            high(sides.c.total, other.c.total_score).label("high_total"),
            *[(high(sides.c[d], other.c[d]) - low(sides.c[d], other.c[d])).label(d) for d in DIMENSIONS],
        )
        .select_from(done)
        .join(sides, true())
        .join(
            other,
            and_(
                other.c.session_id == done.c.session_id,
                other.c.criteria_hash != criteria,
                other.c.criteria_hash != literal_column(f"'{ANY_CRITERIA}'"),
            ),
        )
        .cte("cmp_pairs")
    )
    p = pairs.c
    zero: Any = literal_column("0")
    deltas = union_all(
        select(
            p.low_hash,
            p.high_hash,
            literal_column(f"'{_TOTAL}'").label("kind"),
            p.low_total.label("a"),
            p.high_total.label("b"),
            p.sign,
        ),
        *(
            select(p.low_hash, p.high_hash, literal_column(f"'{d}'"), p[d], zero, p.sign).where(p[d].is_not(None))
            for d in DIMENSIONS
        ),
    ).subquery("cmp_deltas")
    key = [deltas.c[name] for name in _CELL_KEY]
    total = func.sum(deltas.c.sign)
    cells = insert(_CELLS).from_select(
        [*_CELL_KEY, "sessions"], select(*key, total).group_by(*key).having(total != 0).order_by(*key)
    )
    cells_stored = cells.on_conflict_do_update(
        index_elements=list(_CELL_KEY), set_={"sessions": _CELLS.c.sessions + cells.excluded.sessions}
    ).cte("cmp_cells_stored")
    rows = insert(_PAIRS).from_select(
        ["low_hash", "high_hash", "session_id", "low_total", "high_total"],
        select(p.low_hash, p.high_hash, p.session_id, p.low_total, p.high_total)
        .where(p.sign == plus)
        .order_by(p.low_hash, p.high_hash),
    )
    pairs_stored = rows.on_conflict_do_update(
        index_elements=["low_hash", "high_hash", "session_id"],
        set_={"low_total": rows.excluded.low_total, "high_total": rows.excluded.high_total},
    ).cte("cmp_pairs_stored")
    return cells_stored, pairs_stored


# Each session's latest rows under two different criteria hashes (not '*'), the lesser hash (code point order) as l;
# the same statements as migration 0016_comparison_pairs's backfill.
_REBUILD_PAIRS = """
INSERT INTO comparison_pairs (low_hash, high_hash, session_id, low_total, high_total)
SELECT l.criteria_hash, h.criteria_hash, l.session_id, l.total_score, h.total_score
FROM latest_scores l
JOIN latest_scores h ON h.session_id = l.session_id AND l.criteria_hash COLLATE "C" < h.criteria_hash COLLATE "C"
WHERE l.criteria_hash <> '*' AND h.criteria_hash <> '*'
"""

_REBUILD_CELLS = """
INSERT INTO comparison_cells (low_hash, high_hash, kind, a, b, sessions)
SELECT l.criteria_hash, h.criteria_hash, v.kind, v.a, v.b, count(*)
FROM latest_scores l
JOIN latest_scores h ON h.session_id = l.session_id AND l.criteria_hash COLLATE "C" < h.criteria_hash COLLATE "C"
CROSS JOIN LATERAL (VALUES ('total', l.total_score, h.total_score),
                           ('logical_flow', h.logical_flow - l.logical_flow, 0),
                           ('consistency', h.consistency - l.consistency, 0),
                           ('tool_relevance', h.tool_relevance - l.tool_relevance, 0),
                           ('synthesis_quality', h.synthesis_quality - l.synthesis_quality, 0)) AS v(kind, a, b)
WHERE l.criteria_hash <> '*' AND h.criteria_hash <> '*' AND v.a IS NOT NULL
GROUP BY 1, 2, 3, 4, 5
"""


@cache
def _points() -> TypeAdapter[list[ComparisonPoint]]:
    """The scatter's points validated in one call (built on first use, not at import)."""
    return TypeAdapter(list[ComparisonPoint])


def _check(base: str, candidate: str) -> None:
    if ANY_CRITERIA in (base, candidate):
        raise ValueError(f"the comparison is between two criteria hashes, not {ANY_CRITERIA!r}")


class ComparisonRepository(StatementRepository):
    """The criteria comparison's reads (one pair's histograms, movers and sample) and the rebuild of its tables."""

    @db_call
    def histograms(self, base: str, candidate: str, movers: int) -> ComparisonHistograms:
        """For the sessions with a latest completed score under both criteria: the joint histogram of (base total,
        candidate total), each dimension's histogram of deltas (candidate minus base, both present), and the
        ``movers`` biggest rises and falls (ties by session id in code point order), in one statement."""
        _check(base, candidate)
        if base == candidate:
            return self._self_histograms(base)
        low, high = sorted((base, candidate))
        flipped = base != low
        c, p = _CELLS.c, _PAIRS.c
        cells = select(func.json_agg(func.json_build_array(c.kind, c.a, c.b, c.sessions))).where(
            c.low_hash == low, c.high_hash == high, c.sessions != 0
        )

        def biggest(condition: Any, ascending: bool) -> Any:
            order = (p.delta.asc() if ascending else p.delta.desc(), p.session_id)
            top = (
                select(p.session_id, p.low_total, p.high_total, p.delta)
                .where(p.low_hash == low, p.high_hash == high, condition)
                .order_by(*order)
                .limit(movers)
                .subquery("movers")
            )
            again = (top.c.delta.asc() if ascending else top.c.delta.desc(), top.c.session_id)
            row = func.json_build_array(top.c.session_id, top.c.low_total, top.c.high_total)
            return select(func.json_agg(aggregate_order_by(row, *again))).scalar_subquery()

        # Candidate minus base is the stored delta, or its negation when the base is the high hash. Each part comes
        # back as one JSON value (decoded in C): thousands of rows would cost more to decode than to find.
        rising, falling = (p.delta < 0, p.delta > 0) if flipped else (p.delta > 0, p.delta < 0)
        found = self._one(
            select(
                cells.scalar_subquery().label("cells"),
                biggest(rising, ascending=flipped).label("up"),
                biggest(falling, ascending=not flipped).label("down"),
            )
        )
        joint: dict[tuple[int, int], int] = {}
        deltas: dict[str, dict[int, int]] = {d: {} for d in DIMENSIONS}
        for kind, a, b, n in as_json_list(found.cells if found else None):
            if kind == _TOTAL:
                joint[(b, a) if flipped else (a, b)] = n
            else:
                deltas[kind][-a if flipped else a] = n

        def mover(session_id: str, low_total: int, high_total: int) -> Mover:
            before, after = (high_total, low_total) if flipped else (low_total, high_total)
            return Mover(session_id=session_id, base=before, candidate=after, delta=after - before)

        return ComparisonHistograms(
            joint=joint,
            dimension_deltas=deltas,
            movers_up=[mover(*m) for m in as_json_list(found.up if found else None)],
            movers_down=[mover(*m) for m in as_json_list(found.down if found else None)],
        )

    def _self_histograms(self, criteria_hash: str) -> ComparisonHistograms:
        """A criteria compared with itself: every session it scored, each unchanged (no pair rows: read from
        ``latest_scores``, a scan of the criteria's rows)."""
        latest = _LATEST.c
        rows = self._all(
            select(
                latest.total_score,
                func.count().label("n"),
                *[func.count(latest[d]).label(d) for d in DIMENSIONS],
            )
            .where(latest.criteria_hash == criteria_hash)
            .group_by(latest.total_score)
        )
        present = {d: sum(int(row._mapping[d]) for row in rows) for d in DIMENSIONS}
        return ComparisonHistograms(
            joint={(int(row.total_score), int(row.total_score)): int(row.n) for row in rows},
            dimension_deltas={d: {0: n} if n else {} for d, n in present.items()},
            movers_up=[],
            movers_down=[],
        )

    @db_call
    def points(self, base: str, candidate: str, limit: int) -> list[ComparisonPoint]:
        """Up to ``limit`` sessions scored under both criteria with their two totals: the first by session id (code
        point order), a sample that is the same on every call (and, with random session ids, spread over the whole
        population). It walks the pair's primary key and stops at ``limit``, whatever the number of sessions."""
        _check(base, candidate)
        if base == candidate:
            latest = _LATEST.c
            same = self._all(
                select(latest.session_id, latest.total_score)
                .where(latest.criteria_hash == base)
                .order_by(latest.session_id.collate("C"))
                .limit(limit)
            )
            return [ComparisonPoint(session_id=r.session_id, base=r.total_score, candidate=r.total_score) for r in same]
        low, high = sorted((base, candidate))
        flipped = base != low
        p = _PAIRS.c
        first = (
            select(p.session_id, p.low_total, p.high_total)
            .where(p.low_hash == low, p.high_hash == high)
            .order_by(p.session_id)
            .limit(limit)
            .subquery("first")
        )
        # One JSON value, not ``limit`` rows, validated as one list: decoding rows and building models one by one
        # would cost more than the index scan.
        base_total, candidate_total = (
            (first.c.high_total, first.c.low_total) if flipped else (first.c.low_total, first.c.high_total)
        )
        point = func.json_build_object(
            literal_column("'session_id'"),
            first.c.session_id,
            literal_column("'base'"),
            base_total,
            literal_column("'candidate'"),
            candidate_total,
        )
        found = self._one(select(func.json_agg(aggregate_order_by(point, first.c.session_id))))
        return _points().validate_python(as_json_list(found[0] if found else None))

    @db_call
    def rebuild(self) -> None:
        """Rebuild ``comparison_pairs`` and ``comparison_cells`` from ``latest_scores`` (after its rows were written
        by other means than the verdict statement, e.g. loaded by hand). One transaction holding both tables locked
        against writes: a verdict stored meanwhile waits, then applies its change to the rebuilt rows."""
        with self._engine.connect() as autocommit:
            conn = autocommit.execution_options(isolation_level="READ COMMITTED")
            with conn.begin():
                conn.execute(text("LOCK TABLE comparison_pairs, comparison_cells IN EXCLUSIVE MODE"))
                conn.execute(text("DELETE FROM comparison_cells"))
                conn.execute(text("DELETE FROM comparison_pairs"))
                conn.execute(text(_REBUILD_PAIRS))
                conn.execute(text(_REBUILD_CELLS))
