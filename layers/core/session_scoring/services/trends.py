"""Score trends over time, and the comparison of a candidate criteria with a base one before adopting it.

Both read each session's latest completed score under a criteria hash (``latest_scores``). The rank correlations are
the numpy implementations of the agreement service (no scipy in the runtime: see services/agreement.py).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from datetime import datetime

from session_scoring.models.scores import DIMENSIONS, SCORE_BANDS
from session_scoring.models.trends import (
    ComparedScore,
    CriteriaComparison,
    DeltaSummary,
    HumanAgreement,
    Mover,
    TrendBucket,
    TrendGroup,
    TrendPoint,
    TrendsReport,
)
from session_scoring.repositories.trends import TrendsRepository
from session_scoring.services.agreement import AgreementService, kendall_tau_b, spearman_rho

#: Movers listed each way.
MOVERS = 10
#: Sessions of a comparison's scatter at most (a fixed sample: see TrendsRepository.comparison_points).
COMPARISON_POINTS = 2000

BAND_NAMES = [b.band for b in SCORE_BANDS]


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
    """The comparison of the candidate's scores with the base's over the same sessions."""
    matrix = [[0] * len(BAND_NAMES) for _ in BAND_NAMES]
    for p in pairs:
        matrix[BAND_NAMES.index(p.base_band)][BAND_NAMES.index(p.candidate_band)] += 1
    dimensions: dict[str, DeltaSummary] = {}
    for d in DIMENSIONS:
        deltas = []
        for p in pairs:
            before, after = p.base_dimensions[d], p.candidate_dimensions[d]
            if before is not None and after is not None:
                deltas.append(after - before)
        dimensions[d] = _summary(deltas)
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


class TrendsService:
    def __init__(self, repository: TrendsRepository, agreement: AgreementService) -> None:
        self._repository = repository
        self._agreement = agreement

    def trends(
        self,
        criteria_hash: str | None,
        bucket: TrendBucket,
        group_by: TrendGroup,
        scored_after: datetime | None = None,
        scored_before: datetime | None = None,
    ) -> TrendsReport:
        rows = self._repository.trends(criteria_hash, bucket, group_by, scored_after, scored_before)
        return TrendsReport(
            criteria_hash=criteria_hash,
            bucket=bucket,
            group_by=group_by,
            scored_after=scored_after,
            scored_before=scored_before,
            points=[
                TrendPoint(
                    bucket_start=r.bucket_start,
                    group=r.group,
                    count=r.count,
                    mean=r.mean,
                    p10=r.p10,
                    p50=r.p50,
                    p90=r.p90,
                    dimension_means=r.dimension_means,
                    band_shares={band: r.band_counts[band] / r.count for band in BAND_NAMES},
                )
                for r in rows
            ],
        )

    def criteria_comparison(self, base: str, candidate: str) -> CriteriaComparison:
        pairs = self._repository.compared_scores(base, candidate)
        comparison = compare(base, candidate, pairs, self._human_agreement(base), self._human_agreement(candidate))
        return self._with_points(comparison)

    def _with_points(self, comparison: CriteriaComparison) -> CriteriaComparison:
        """The comparison with its scatter's points (read apart from the statistics' pairs, so their computation
        can change without the scatter)."""
        points = self._repository.comparison_points(comparison.base, comparison.candidate, COMPARISON_POINTS)
        return comparison.model_copy(update={"points": points})

    def _human_agreement(self, criteria_hash: str) -> HumanAgreement:
        report = self._agreement.agreement(criteria_hash)
        return HumanAgreement(
            criteria_hash=criteria_hash,
            n=report.n,
            spearman_rho=report.spearman_rho,
            kendall_tau=report.kendall_tau,
            mean_absolute_error=report.mean_absolute_error,
            weighted_kappa=report.weighted_kappa,
        )
