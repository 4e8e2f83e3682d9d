"""The criteria comparison recomputed from every pair of scores: the oracle the histogram-based comparison
(``TrendsRepository.comparison_histograms`` + ``services.trends.compare_histograms``) is checked against. It loads
every pair and runs an O(n^2) tau, so it lives here, not in the service."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Engine, or_, select

from session_scoring.db import schema
from session_scoring.models.scores import BAND_NAMES, REFERENCED_OUTCOMES
from session_scoring.models.trends import CriteriaComparison, DeltaSummary, HumanAgreement, Mover
from session_scoring.services.agreement import kendall_tau_b, spearman_rho
from session_scoring.services.trends import MOVERS

_LATEST = schema.latest_scores


@dataclass(frozen=True)
class ComparedScore:
    """A session's latest completed score under the base and under the candidate criteria."""

    session_id: str
    base_total: int
    candidate_total: int
    base_band: str
    candidate_band: str
    base_dimensions: dict[str, int]
    candidate_dimensions: dict[str, int]


def compared_scores(engine: Engine, base: str, candidate: str, with_reference: bool = False) -> list[ComparedScore]:
    """Every session with a latest completed score under both criteria hashes (``with_reference``: and judged against
    a reference under either), by session id (the oracle of ``comparison_histograms``: it loads every pair)."""
    b, c = _LATEST.alias("b"), _LATEST.alias("c")
    statement = (
        select(
            b.c.session_id,
            b.c.total_score.label("base_total"),
            c.c.total_score.label("candidate_total"),
            b.c.band.label("base_band"),
            c.c.band.label("candidate_band"),
            b.c.dimensions.label("base_dimensions"),
            c.c.dimensions.label("candidate_dimensions"),
        )
        .join(c, c.c.session_id == b.c.session_id)
        .where(b.c.criteria_hash == base, c.c.criteria_hash == candidate)
        .order_by(b.c.session_id)
    )
    if with_reference:
        referenced = [o.value for o in REFERENCED_OUTCOMES]
        statement = statement.where(or_(b.c.outcome.in_(referenced), c.c.outcome.in_(referenced)))
    with engine.connect() as conn:
        rows = conn.execute(statement).all()
    return [
        ComparedScore(
            session_id=row.session_id,
            base_total=row.base_total,
            candidate_total=row.candidate_total,
            base_band=row.base_band,
            candidate_band=row.candidate_band,
            base_dimensions=dict(row.base_dimensions),
            candidate_dimensions=dict(row.candidate_dimensions),
        )
        for row in rows
    ]


def _summary(deltas: Sequence[int]) -> DeltaSummary:
    if not deltas:
        return DeltaSummary(n=0, mean_delta=None, median_delta=None)
    return DeltaSummary(
        n=len(deltas), mean_delta=statistics.fmean(deltas), median_delta=float(statistics.median(deltas))
    )


def _movers(pairs: Sequence[ComparedScore], rising: bool) -> list[Mover]:
    """The biggest changes one way (ties by session id); a session that did not move is no mover."""
    sign = 1 if rising else -1
    moved = [p for p in pairs if sign * (p.candidate_total - p.base_total) > 0]
    moved.sort(key=lambda p: (-sign * (p.candidate_total - p.base_total), p.session_id))
    return [
        Mover(
            session_id=p.session_id,
            base=p.base_total,
            candidate=p.candidate_total,
            delta=p.candidate_total - p.base_total,
        )
        for p in moved[:MOVERS]
    ]


def compare(
    base: str,
    candidate: str,
    pairs: Sequence[ComparedScore],
    base_agreement: HumanAgreement,
    candidate_agreement: HumanAgreement,
) -> CriteriaComparison:
    """The comparison of the candidate's scores with the base's over the same sessions, from every pair (the oracle
    of ``compare_histograms``)."""
    matrix = [[0] * len(BAND_NAMES) for _ in BAND_NAMES]
    for p in pairs:
        matrix[BAND_NAMES.index(p.base_band)][BAND_NAMES.index(p.candidate_band)] += 1
    dimensions: dict[str, DeltaSummary] = {}
    # Every dimension either side of a pair has, compared over the pairs whose both sides have it.
    keys = sorted({key for p in pairs for key in (*p.base_dimensions, *p.candidate_dimensions)})
    for key in keys:
        deltas = [
            p.candidate_dimensions[key] - p.base_dimensions[key]
            for p in pairs
            if key in p.base_dimensions and key in p.candidate_dimensions
        ]
        dimensions[key] = _summary(deltas)
    base_totals = [float(p.base_total) for p in pairs]
    candidate_totals = [float(p.candidate_total) for p in pairs]
    return CriteriaComparison(
        base=base,
        candidate=candidate,
        n=len(pairs),
        total=_summary([p.candidate_total - p.base_total for p in pairs]),
        dimensions=dimensions,
        spearman_rho=spearman_rho(base_totals, candidate_totals),
        kendall_tau_b=kendall_tau_b(base_totals, candidate_totals),
        bands=BAND_NAMES,
        band_transitions=matrix,
        movers_up=_movers(pairs, rising=True),
        movers_down=_movers(pairs, rising=False),
        base_human_agreement=base_agreement,
        candidate_human_agreement=candidate_agreement,
    )
