"""The criteria comparison's reads, from the read model ``read_models/comparison.py`` keeps, at any scale.

A comparison reads its pair's cells (at most 101 x 101 + 4 x 51 rows), its movers and its scatter's sample (index
scans that stop after a few rows) and flips them when the base is the higher hash: its cost does not grow with the
number of sessions.

A comparison restricted to the sessions judged against a reference root cause (``with_reference``) is computed from
``latest_scores`` instead: the sessions whose latest score under either criteria has a reference outcome (the partial
index ``ix_latest_scores_with_reference``), each joined with its two latest scores. Its cost grows with the number of
such sessions (a benchmark's), not with every score.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import func, literal_column, select, text
from sqlalchemy.dialects.postgresql import aggregate_order_by

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.db.schema import ANY_CRITERIA
from session_scoring.models.scores import DIMENSIONS
from session_scoring.models.trends import ComparisonHistograms, ComparisonPoint, Mover
from session_scoring.repositories.base import StatementRepository, as_json_list
from session_scoring.repositories.read_models import comparison, rebuild_tables

_LATEST = schema.latest_scores
_PAIRS = schema.comparison_pairs
_CELLS = schema.comparison_cells


@cache
def _points() -> TypeAdapter[list[ComparisonPoint]]:
    """The scatter's points validated in one call (built on first use, not at import)."""
    return TypeAdapter(list[ComparisonPoint])


# The sessions with a latest score judged against a reference (found, partly found, missed) under either criteria,
# with both latest scores; the histograms (as ``comparison_cells``' kinds), the movers each way and the scatter's
# first sessions are read from them. Plain SQL, spelt out (the outcomes and dimensions of models.scores).
_WITH_REFERENCE_PAIRS = """
WITH referenced AS (
    SELECT session_id FROM latest_scores
    WHERE criteria_hash = :base AND outcome IN ('found', 'partly_found', 'missed')
    UNION
    SELECT session_id FROM latest_scores
    WHERE criteria_hash = :candidate AND outcome IN ('found', 'partly_found', 'missed')
), pairs AS (
    SELECT r.session_id, b.total_score AS base, c.total_score AS candidate, c.total_score - b.total_score AS delta,
           c.logical_flow - b.logical_flow AS logical_flow, c.consistency - b.consistency AS consistency,
           c.tool_relevance - b.tool_relevance AS tool_relevance,
           c.synthesis_quality - b.synthesis_quality AS synthesis_quality
    FROM referenced r
    JOIN latest_scores b ON b.session_id = r.session_id AND b.criteria_hash = :base
    JOIN latest_scores c ON c.session_id = r.session_id AND c.criteria_hash = :candidate
)
"""

_WITH_REFERENCE_HISTOGRAMS = text(
    _WITH_REFERENCE_PAIRS  # noqa: S608 - two constants of this module; the values are bound parameters
    + """
SELECT
  (SELECT json_agg(json_build_array(kind, a, b, n)) FROM (
       SELECT 'total' AS kind, base AS a, candidate AS b, count(*) AS n FROM pairs GROUP BY base, candidate
       UNION ALL SELECT 'logical_flow', logical_flow, 0, count(*) FROM pairs
                 WHERE logical_flow IS NOT NULL GROUP BY logical_flow
       UNION ALL SELECT 'consistency', consistency, 0, count(*) FROM pairs
                 WHERE consistency IS NOT NULL GROUP BY consistency
       UNION ALL SELECT 'tool_relevance', tool_relevance, 0, count(*) FROM pairs
                 WHERE tool_relevance IS NOT NULL GROUP BY tool_relevance
       UNION ALL SELECT 'synthesis_quality', synthesis_quality, 0, count(*) FROM pairs
                 WHERE synthesis_quality IS NOT NULL GROUP BY synthesis_quality
   ) AS cells) AS cells,
  (SELECT json_agg(json_build_array(session_id, base, candidate) ORDER BY delta DESC, session_id COLLATE "C")
   FROM (SELECT * FROM pairs WHERE delta > 0 ORDER BY delta DESC, session_id COLLATE "C" LIMIT :movers) AS up) AS up,
  (SELECT json_agg(json_build_array(session_id, base, candidate) ORDER BY delta, session_id COLLATE "C")
   FROM (SELECT * FROM pairs WHERE delta < 0 ORDER BY delta, session_id COLLATE "C" LIMIT :movers) AS down) AS down
"""
)

_WITH_REFERENCE_POINTS = text(
    _WITH_REFERENCE_PAIRS  # noqa: S608 - two constants of this module; the values are bound parameters
    + """
SELECT json_agg(json_build_object('session_id', session_id, 'base', base, 'candidate', candidate)
                ORDER BY session_id COLLATE "C")
FROM (SELECT * FROM pairs ORDER BY session_id COLLATE "C" LIMIT :limit) AS first
"""
)


def _check(base: str, candidate: str) -> None:
    if ANY_CRITERIA in (base, candidate):
        raise ValueError(f"the comparison is between two criteria hashes, not {ANY_CRITERIA!r}")


class ComparisonRepository(StatementRepository):
    """The criteria comparison's reads (one pair's histograms, movers and sample) and the rebuild of its tables."""

    @db_call
    def histograms(self, base: str, candidate: str, movers: int, with_reference: bool = False) -> ComparisonHistograms:
        """For the sessions with a latest completed score under both criteria: the joint histogram of (base total,
        candidate total), each dimension's histogram of deltas (candidate minus base, both present), and the
        ``movers`` biggest rises and falls (ties by session id in code point order), in one statement.
        ``with_reference``: only the sessions whose latest score under either criteria was judged against a
        reference root cause."""
        _check(base, candidate)
        if with_reference:
            return self._referenced_histograms(base, candidate, movers)
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
            if kind == comparison.TOTAL:
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

    def _referenced_histograms(self, base: str, candidate: str, movers: int) -> ComparisonHistograms:
        found = self._one(_WITH_REFERENCE_HISTOGRAMS, {"base": base, "candidate": candidate, "movers": movers})
        joint: dict[tuple[int, int], int] = {}
        deltas: dict[str, dict[int, int]] = {d: {} for d in DIMENSIONS}
        for kind, a, b, n in as_json_list(found.cells if found else None):
            if kind == comparison.TOTAL:
                joint[(a, b)] = n
            else:
                deltas[kind][a] = n

        def mover(session_id: str, before: int, after: int) -> Mover:
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
    def points(self, base: str, candidate: str, limit: int, with_reference: bool = False) -> list[ComparisonPoint]:
        """Up to ``limit`` sessions scored under both criteria with their two totals: the first by session id (code
        point order), a sample that is the same on every call (and, with random session ids, spread over the whole
        population). It walks the pair's primary key and stops at ``limit``, whatever the number of sessions.
        ``with_reference``: only the sessions judged against a reference under either criteria."""
        _check(base, candidate)
        if with_reference:
            found = self._one(_WITH_REFERENCE_POINTS, {"base": base, "candidate": candidate, "limit": limit})
            return _points().validate_python(as_json_list(found[0] if found else None))
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
        by other means than the verdict statement, e.g. loaded by hand)."""
        rebuild_tables(self._engine, comparison.TABLES, comparison.rebuild())
