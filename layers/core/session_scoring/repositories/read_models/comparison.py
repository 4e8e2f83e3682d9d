"""``comparison_pairs`` and ``comparison_cells`` (``db/schema.py``): what the criteria comparison reads. The verdict's
statement keeps both (``upkeep``): when the session's latest completed score under the verdict's criteria changes,
each pair it forms with the session's other criteria takes the replaced score's contribution out and the new one's
in. ``rebuild`` derives them again from ``latest_scores``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    Integer,
    String,
    and_,
    bindparam,
    case,
    false,
    func,
    literal_column,
    or_,
    select,
    text,
    true,
    union_all,
)
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import insert

from session_scoring.db import schema
from session_scoring.db.schema import ANY_CRITERIA
from session_scoring.models.scores import REFERENCED_OUTCOMES
from session_scoring.repositories.read_models import MINUS, PLUS, add_counts, constants, dimension_entries

TABLES = ("comparison_pairs", "comparison_cells")
TOTAL = "total"
"""The kind of the joint histogram's cells."""
DIMENSION_PREFIX = "dim:"
"""Prefixed to a dimension's key: the kind of its deltas' cells, whatever the rubric."""
REFERENCE_PREFIX = "ref_"
"""Prefixed to a kind: its cells count only the sessions judged against a reference under either hash."""


def referenced(outcome: Any) -> Any:
    """Whether ``outcome`` (an SQL expression) is one judged against a reference; false for NULL."""
    return func.coalesce(or_(*(outcome == literal_column(f"'{o.value}'") for o in REFERENCED_OUTCOMES)), false())


_LATEST = schema.latest_scores
_PAIRS = schema.comparison_pairs
_CELLS = schema.comparison_cells
_CELL_KEY = ("low_hash", "high_hash", "kind", "a", "b")


def upkeep(done: Any, latest: Any) -> tuple[Any, ...]:
    """Keep ``comparison_pairs`` and ``comparison_cells`` in step with a stored verdict, in the verdict's statement.

    ``done`` returns the completed attempt's session id, total and breakdown (its criteria hash is the statement's
    parameter); ``latest`` is the ``latest_scores`` upsert. When it changed the session's row under the
    verdict's criteria, the session's other rows (from the statement's snapshot) each form a pair with it: the
    replaced score's cells get -1, the new score's +1, and each pair row is upserted with the new totals. A pair
    whose either side was judged against a reference is counted under the ``ref_`` kinds too. The dimensions both
    sides' maps have (by key) get a delta each. A session has one
    active attempt at a time, so no other statement changes its rows meanwhile.
    """
    criteria = bindparam("p_criteria_hash", type_=String)
    changed = select(latest.c.criteria_hash).where(latest.c.criteria_hash == criteria).exists()
    replaced = _LATEST.alias("cmp_replaced")
    sides = union_all(
        select(
            PLUS.label("sign"),
            done.c.total_score.label("total"),
            done.c.score_breakdown.label("dimensions"),
            referenced(bindparam("p_outcome", type_=String)).label("ref"),
        ).where(changed),
        select(MINUS, replaced.c.total_score, replaced.c.dimensions, referenced(replaced.c.outcome))
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
            low(sides.c.dimensions, other.c.dimensions).label("low_dimensions"),
            high(sides.c.dimensions, other.c.dimensions).label("high_dimensions"),
            or_(sides.c.ref, referenced(other.c.outcome)).label("ref"),
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
    # Each pair counted once under the plain kinds, and once more under the ``ref_`` kinds when it has a reference.
    prefixes = constants("prefix", ["", REFERENCE_PREFIX], "cmp_prefixes")
    scoped = (
        select(
            p.low_hash,
            p.high_hash,
            p.low_total,
            p.high_total,
            p.sign,
            p.low_dimensions,
            p.high_dimensions,
            prefixes.c.prefix,
        )
        .select_from(pairs)
        .join(prefixes, or_(prefixes.c.prefix == literal_column("''"), p.ref))
        .cte("cmp_scoped")
    )
    q = scoped.c

    lows, highs = dimension_entries(q.low_dimensions, "cmp_low"), dimension_entries(q.high_dimensions, "cmp_high")
    delta = sql_cast(highs.c.value, Integer) - sql_cast(lows.c.value, Integer)
    deltas = union_all(
        select(
            q.low_hash,
            q.high_hash,
            (q.prefix + literal_column(f"'{TOTAL}'", String)).label("kind"),
            q.low_total.label("a"),
            q.high_total.label("b"),
            q.sign,
        ),
        select(
            q.low_hash,
            q.high_hash,
            q.prefix + literal_column(f"'{DIMENSION_PREFIX}'", String) + lows.c.key,
            delta,
            zero,
            q.sign,
        ).select_from(scoped.join(lows, true()).join(highs, highs.c.key == lows.c.key)),
    ).subquery("cmp_deltas")
    cells_stored = add_counts(_CELLS, deltas, _CELL_KEY, {"sessions": func.sum(deltas.c.sign)}, "cmp_cells_stored")
    rows = insert(_PAIRS).from_select(
        ["low_hash", "high_hash", "session_id", "low_total", "high_total", "with_reference"],
        select(p.low_hash, p.high_hash, p.session_id, p.low_total, p.high_total, p.ref)
        .where(p.sign == PLUS)
        .order_by(p.low_hash, p.high_hash),
    )
    pairs_stored = rows.on_conflict_do_update(
        index_elements=["low_hash", "high_hash", "session_id"],
        set_={
            "low_total": rows.excluded.low_total,
            "high_total": rows.excluded.high_total,
            "with_reference": rows.excluded.with_reference,
        },
    ).cte("cmp_pairs_stored")
    return cells_stored, pairs_stored


# Each session's latest rows under two different criteria hashes (not '*'), the lesser hash (code point order) as l;
# with a reference when either was judged against one.
_REBUILD_PAIRS = """
INSERT INTO comparison_pairs (low_hash, high_hash, session_id, low_total, high_total, with_reference)
SELECT l.criteria_hash, h.criteria_hash, l.session_id, l.total_score, h.total_score,
       coalesce(l.outcome IN ('found', 'partly_found', 'missed') OR h.outcome IN ('found', 'partly_found', 'missed'),
                false)
FROM latest_scores l
JOIN latest_scores h ON h.session_id = l.session_id AND l.criteria_hash COLLATE "C" < h.criteria_hash COLLATE "C"
WHERE l.criteria_hash <> '*' AND h.criteria_hash <> '*'
"""

_REBUILD_CELLS = """
INSERT INTO comparison_cells (low_hash, high_hash, kind, a, b, sessions)
SELECT l.criteria_hash, h.criteria_hash, r.prefix || v.kind, v.a, v.b, count(*)
FROM latest_scores l
JOIN latest_scores h ON h.session_id = l.session_id AND l.criteria_hash COLLATE "C" < h.criteria_hash COLLATE "C"
CROSS JOIN LATERAL (SELECT 'total' AS kind, l.total_score AS a, h.total_score AS b
                    UNION ALL
                    SELECT 'dim:' || ld.key, hd.value::integer - ld.value::integer, 0
                    FROM jsonb_each_text(l.dimensions) AS ld
                    JOIN jsonb_each_text(h.dimensions) AS hd ON hd.key = ld.key) AS v
CROSS JOIN LATERAL (SELECT '' AS prefix
                    UNION ALL
                    SELECT 'ref_' WHERE l.outcome IN ('found', 'partly_found', 'missed')
                                     OR h.outcome IN ('found', 'partly_found', 'missed')) AS r
WHERE l.criteria_hash <> '*' AND h.criteria_hash <> '*'
GROUP BY 1, 2, 3, 4, 5
"""


def rebuild() -> list[Any]:
    """The statements filling the emptied tables from ``latest_scores``: the cells have a row per dimension the two
    rows' maps share (its delta, high minus low)."""
    return [text(_REBUILD_PAIRS), text(_REBUILD_CELLS)]
