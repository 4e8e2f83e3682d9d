"""The criteria comparison's reads from the read model ``read_models/comparison.py`` keeps: a pair's cells (at most
101 x 101 rows, and 201 per shared dimension), its movers and its scatter's sample, flipped when the base is the
higher hash; with ``with_reference``, the ``ref_`` cells and the pair rows' partial indexes.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import func, or_, select, true
from sqlalchemy.dialects.postgresql import aggregate_order_by

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.db.schema import ANY_CRITERIA
from session_scoring.models.scores import REFERENCED_OUTCOMES
from session_scoring.models.trends import ComparisonHistograms, ComparisonPoint, Mover, TrendBucket, TrendGroup
from session_scoring.repositories.base import StatementRepository, as_json_list, json_object
from session_scoring.repositories.read_models import comparison, rebuild_tables

_LATEST = schema.latest_scores
_PAIRS = schema.comparison_pairs
_CELLS = schema.comparison_cells


@cache
def _points() -> TypeAdapter[list[ComparisonPoint]]:
    """The scatter's points validated in one call (built on first use, not at import)."""
    return TypeAdapter(list[ComparisonPoint])


def _pair(base: str, candidate: str) -> tuple[str, str, bool]:
    """The pair's low and high hash (as its rows key it) and whether the base is the high one."""
    if ANY_CRITERIA in (base, candidate):
        raise ValueError(f"the comparison is between two criteria hashes, not {ANY_CRITERIA!r}")
    low, high = sorted((base, candidate))
    return low, high, base != low


class ComparisonRepository(StatementRepository):
    """The criteria comparison's reads (one pair's histograms, movers and sample) and the rebuild of its tables."""

    @db_call
    def histograms(self, base: str, candidate: str, movers: int, with_reference: bool = False) -> ComparisonHistograms:
        """For the sessions scored under both criteria (``with_reference``: and judged against a reference under
        either): the joint histogram of (base total, candidate total), each dimension's histogram of deltas
        (candidate minus base), and the ``movers`` biggest rises and falls (ties by session id), in one statement."""
        low, high, flipped = _pair(base, candidate)
        if base == candidate:
            return self._self_histograms(base, with_reference)
        prefix = comparison.REFERENCE_PREFIX if with_reference else ""
        c, p = _CELLS.c, _PAIRS.c
        cells = select(func.json_agg(func.json_build_array(c.kind, c.a, c.b, c.sessions))).where(
            c.low_hash == low,
            c.high_hash == high,
            or_(c.kind == prefix + comparison.TOTAL, c.kind.startswith(prefix + comparison.DIMENSION_PREFIX)),
            c.sessions != 0,
        )
        # The partial indexes' predicate, as the column itself: PostgreSQL matches it to them.
        restricted = [p.with_reference] if with_reference else []

        def biggest(condition: Any, ascending: bool) -> Any:
            order = (p.delta.asc() if ascending else p.delta.desc(), p.session_id)
            top = (
                select(p.session_id, p.low_total, p.high_total, p.delta)
                .where(p.low_hash == low, p.high_hash == high, condition, *restricted)
                .order_by(*order)
                .limit(movers)
                .subquery("movers")
            )
            again = (top.c.delta.asc() if ascending else top.c.delta.desc(), top.c.session_id)
            row = func.json_build_array(top.c.session_id, top.c.low_total, top.c.high_total)
            return select(func.json_agg(aggregate_order_by(row, *again))).scalar_subquery()

        # Candidate minus base is the stored delta, or its negation when the base is the high hash. Each part is one
        # JSON value (decoded in C): thousands of rows would cost more to decode than to find.
        rising, falling = (p.delta < 0, p.delta > 0) if flipped else (p.delta > 0, p.delta < 0)
        found = self._one(
            select(
                cells.scalar_subquery().label("cells"),
                biggest(rising, ascending=flipped).label("up"),
                biggest(falling, ascending=not flipped).label("down"),
            )
        )
        joint: dict[tuple[int, int], int] = {}
        deltas: dict[str, dict[int, int]] = {}
        for kind, a, b, n in as_json_list(found.cells if found else None):
            kind = kind.removeprefix(prefix)
            if kind == comparison.TOTAL:
                joint[(b, a) if flipped else (a, b)] = n
            else:
                deltas.setdefault(kind.removeprefix(comparison.DIMENSION_PREFIX), {})[-a if flipped else a] = n

        def mover(session_id: str, low_total: int, high_total: int) -> Mover:
            before, after = (high_total, low_total) if flipped else (low_total, high_total)
            return Mover(session_id=session_id, base=before, candidate=after, delta=after - before)

        return ComparisonHistograms(
            joint=joint,
            dimension_deltas=deltas,
            movers_up=[mover(*m) for m in as_json_list(found.up if found else None)],
            movers_down=[mover(*m) for m in as_json_list(found.down if found else None)],
        )

    @staticmethod
    def _own_rows(criteria_hash: str, with_reference: bool) -> list[Any]:
        """A criteria's ``latest_scores`` rows (those judged against a reference when ``with_reference``)."""
        latest = _LATEST.c
        referenced = [latest.outcome.in_([o.value for o in REFERENCED_OUTCOMES])] if with_reference else []
        return [latest.criteria_hash == criteria_hash, *referenced]

    def _self_histograms(self, criteria_hash: str, with_reference: bool) -> ComparisonHistograms:
        """A criteria compared with itself: every session it scored, each unchanged (read from ``latest_scores``)."""
        latest = _LATEST.c
        own = self._own_rows(criteria_hash, with_reference)
        rows = self._all(select(latest.total_score, func.count().label("n")).where(*own).group_by(latest.total_score))
        if with_reference:
            keys = func.jsonb_object_keys(latest.dimensions).table_valued("key").render_derived(name="own_keys")
            present = self._all(
                select(keys.c.key, func.count().label("n"))
                .select_from(_LATEST.join(keys, true()))
                .where(*own)
                .group_by(keys.c.key)
            )
        else:
            # The sessions having each dimension, from the trends' daily sums: a few rows per day, not one per score.
            d = schema.trend_dimension_sums.c
            present = self._all(
                select(d.dimension_key.label("key"), func.sum(d.sessions).label("n"))
                .where(
                    d.criteria_hash == criteria_hash,
                    d.bucket == TrendBucket.DAY.value,
                    d.group_by == TrendGroup.NONE.value,
                )
                .group_by(d.dimension_key)
                .having(func.sum(d.sessions) > 0)
            )
        return ComparisonHistograms(
            joint={(int(row.total_score), int(row.total_score)): int(row.n) for row in rows},
            dimension_deltas={row.key: {0: int(row.n)} for row in present},
            movers_up=[],
            movers_down=[],
        )

    @db_call
    def points(self, base: str, candidate: str, limit: int, with_reference: bool = False) -> list[ComparisonPoint]:
        """Up to ``limit`` sessions scored under both criteria (``with_reference``: and judged against a reference
        under either) with their two totals: the first by session id (code point order), the same sample each call."""
        low, high, flipped = _pair(base, candidate)
        if base == candidate:
            latest = _LATEST.c
            same = self._all(
                select(latest.session_id, latest.total_score)
                .where(*self._own_rows(base, with_reference))
                .order_by(latest.session_id.collate("C"))
                .limit(limit)
            )
            return [ComparisonPoint(session_id=r.session_id, base=r.total_score, candidate=r.total_score) for r in same]
        p = _PAIRS.c
        first = (
            select(p.session_id, p.low_total, p.high_total)
            .where(p.low_hash == low, p.high_hash == high, *([p.with_reference] if with_reference else []))
            .order_by(p.session_id)
            .limit(limit)
            .subquery("first")
        )
        # One JSON value validated as one list: faster than decoding rows and building models one by one.
        base_total, candidate_total = (
            (first.c.high_total, first.c.low_total) if flipped else (first.c.low_total, first.c.high_total)
        )
        point = json_object(
            func.json_build_object, {"session_id": first.c.session_id, "base": base_total, "candidate": candidate_total}
        )
        found = self._one(select(func.json_agg(aggregate_order_by(point, first.c.session_id))))
        return _points().validate_python(as_json_list(found[0] if found else None))

    @db_call
    def rebuild(self) -> None:
        """Rebuild ``comparison_pairs`` and ``comparison_cells`` from ``latest_scores`` (written by other means than the
        verdict's statement)."""
        rebuild_tables(self._engine, comparison.TABLES, comparison.rebuild())
