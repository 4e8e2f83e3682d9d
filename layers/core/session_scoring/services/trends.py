"""Score trends over time, and the comparison of a candidate criteria with a base one before adopting it: exact at
any scale from the repository's histograms of the integer totals 0-100 (docs/insights.md;
``tests/support/comparison_oracle.compare`` is the oracle ``compare_histograms`` is tested against).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from itertools import accumulate
from typing import Any, Protocol

from session_scoring.models.scores import BAND_NAMES, MAX_SCORE, MIN_SCORE, Outcome, band_for
from session_scoring.models.trends import (
    ComparisonHistograms,
    ComparisonPoint,
    CriteriaComparison,
    DeltaSummary,
    HumanAgreement,
    TrendBucket,
    TrendGroup,
    TrendPoint,
    TrendRow,
    TrendsReport,
)
from session_scoring.services.agreement import AgreementService

#: Movers listed each way.
MOVERS = 10
#: Sessions of a comparison's scatter at most (a fixed sample: see ComparisonRepository.points).
COMPARISON_POINTS = 2000


#: The band index of each total 0-100 (looked up per histogram cell).
_BAND_INDEX_BY_TOTAL = [BAND_NAMES.index(band_for(t).band) for t in range(MIN_SCORE, MAX_SCORE + 1)]


def _histogram_summary(histogram: Mapping[int, int]) -> DeltaSummary:
    """``_summary`` of the multiset a histogram (value: count) describes."""
    values = sorted(v for v, c in histogram.items() if c)
    counts = [histogram[v] for v in values]
    n = sum(counts)
    if n == 0:
        return DeltaSummary(n=0, mean_delta=None, median_delta=None)
    ends = list(accumulate(counts))

    def at(position: int) -> int:
        return values[bisect_right(ends, position)]

    median = float(at(n // 2)) if n % 2 else (at(n // 2 - 1) + at(n // 2)) / 2
    return DeltaSummary(
        n=n, mean_delta=sum(v * c for v, c in zip(values, counts, strict=True)) / n, median_delta=median
    )


def _rank_correlations(joint: Mapping[tuple[int, int], int]) -> tuple[float | None, float | None]:
    """Spearman's rho and Kendall's tau-b of the totals from their joint histogram (totals 0-100), with the oracle's
    conventions: None below two pairs, rho None for a constant variable, tau None when its denominator is 0."""
    import numpy as np

    size = MAX_SCORE + 1
    h = np.zeros((size, size), dtype=np.int64)
    for (x, y), count in joint.items():
        h[x, y] += count
    n = int(h.sum())
    if n < 2:
        return None, None
    rows, columns = h.sum(axis=1), h.sum(axis=0)
    # Average 1-based ranks of each total from the marginals; Pearson's r of the ranks weighted by the cells.
    rank_x = np.cumsum(rows) - (rows - 1) / 2.0
    rank_y = np.cumsum(columns) - (columns - 1) / 2.0
    rho: float | None = None
    if np.count_nonzero(rows) > 1 and np.count_nonzero(columns) > 1:
        dx = rank_x - float(rows @ rank_x) / n
        dy = rank_y - float(columns @ rank_y) / n
        covariance = float(dx @ h.astype(float) @ dy)
        r = covariance / math.sqrt(float(rows @ (dx * dx)) * float(columns @ (dy * dy)))
        rho = r if math.isfinite(r) else None
    # Cells beyond (x, y): above = x' > x and y' > y (concordant), left = x' > x and y' < y (discordant).
    suffix = np.zeros((size + 1, size + 2), dtype=np.int64)
    suffix[:size, 1 : size + 1] = h
    below_x = suffix[::-1].cumsum(axis=0)[::-1]  # rows x' >= x
    after = below_x[:, ::-1].cumsum(axis=1)[:, ::-1]  # and columns >= y (shifted by one)
    before = below_x.cumsum(axis=1)  # and columns <= y (shifted by one)
    concordant = int((h * after[1 : size + 1, 2 : size + 2]).sum())
    discordant = int((h * before[1 : size + 1, 0:size]).sum())
    pairs = n * (n - 1) / 2
    tied_x = int((rows * (rows - 1) // 2).sum())
    tied_y = int((columns * (columns - 1) // 2).sum())
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    tau = None if denominator == 0 else float(concordant - discordant) / denominator
    return rho, tau


def _found_share(counts: Mapping[str, int]) -> float | None:
    """The share of the sessions with a reference that found it; None when none had one."""
    judged = sum(counts.values())
    return counts.get(Outcome.FOUND.value, 0) / judged if judged else None


def compare_histograms(
    base: str,
    candidate: str,
    histograms: ComparisonHistograms,
    base_agreement: HumanAgreement,
    candidate_agreement: HumanAgreement,
) -> CriteriaComparison:
    """The comparison from the pairs' histograms: the same answer as ``compare`` over every pair."""
    matrix = [[0] * len(BAND_NAMES) for _ in BAND_NAMES]
    total_deltas: dict[int, int] = {}
    for (before, after), count in histograms.joint.items():
        matrix[_BAND_INDEX_BY_TOTAL[before]][_BAND_INDEX_BY_TOTAL[after]] += count
        total_deltas[after - before] = total_deltas.get(after - before, 0) + count
    rho, tau = _rank_correlations(histograms.joint)
    return CriteriaComparison(
        base=base,
        candidate=candidate,
        n=sum(histograms.joint.values()),
        total=_histogram_summary(total_deltas),
        dimensions={key: _histogram_summary(deltas) for key, deltas in sorted(histograms.dimension_deltas.items())},
        spearman_rho=rho,
        kendall_tau_b=tau,
        bands=BAND_NAMES,
        band_transitions=matrix,
        movers_up=histograms.movers_up,
        movers_down=histograms.movers_down,
        base_human_agreement=base_agreement,
        candidate_human_agreement=candidate_agreement,
    )


class ComparisonReads(Protocol):
    """The criteria comparison's reads (``repositories.comparison``)."""

    def histograms(
        self, base: str, candidate: str, movers: int, with_reference: bool = False
    ) -> ComparisonHistograms: ...
    def points(self, base: str, candidate: str, limit: int, with_reference: bool = False) -> list[ComparisonPoint]: ...


class TrendReads(Protocol):
    """The trends' query (``repositories.trends``)."""

    def trends(
        self,
        criteria_hash: str | None,
        bucket: TrendBucket,
        group_by: TrendGroup,
        scored_after: datetime | None,
        scored_before: datetime | None,
    ) -> list[TrendRow]: ...


@dataclass(eq=False)
class TrendsService:
    repository: TrendReads
    comparison: ComparisonReads
    agreement: AgreementService
    rubric_keys: Callable[[str | None], tuple[str, ...]] | None = None
    """The dimension keys of a criteria's rubric, in its order (given None: the current rubric's); without it the
    answers list the dimensions the scores have, by key."""

    def trends(
        self,
        criteria_hash: str | None,
        bucket: TrendBucket,
        group_by: TrendGroup,
        scored_after: datetime | None = None,
        scored_before: datetime | None = None,
    ) -> TrendsReport:
        rows = self.repository.trends(criteria_hash, bucket, group_by, scored_after, scored_before)
        keys = self._trend_dimensions(criteria_hash, rows)
        return TrendsReport(
            criteria_hash=criteria_hash,
            bucket=bucket,
            group_by=group_by,
            scored_after=scored_after,
            scored_before=scored_before,
            # The rows' fields are typed and computed here: validating them again was a third of the answer's time.
            points=[
                TrendPoint.model_construct(
                    **{**vars(r), "dimension_means": {key: r.dimension_means.get(key) for key in keys}},
                    band_shares={band: r.band_counts[band] / r.count for band in BAND_NAMES},
                    with_reference=sum(r.outcome_counts.values()),
                    found_share=_found_share(r.outcome_counts),
                )
                for r in rows
            ],
        )

    def _trend_dimensions(self, criteria_hash: str | None, rows: list[TrendRow]) -> list[str]:
        """The dimensions every trend point lists (None where none of its scores has one): a criteria's rubric's
        in its order; over every criteria, the current rubric's the scores have, then any other rubric's by key."""
        if not rows:
            return []
        seen = {key for row in rows for key in row.dimension_means}
        order = self.rubric_keys(criteria_hash) if self.rubric_keys is not None else ()
        listed = [key for key in order if criteria_hash is not None or key in seen]
        return listed + sorted(seen.difference(order))

    def criteria_comparison(self, base: str, candidate: str, with_reference: bool = False) -> CriteriaComparison:
        """The comparison of ``candidate`` with ``base``; ``with_reference``: only the sessions judged against a
        reference root cause under either (and the human agreement of each over such sessions)."""
        histograms = self.comparison.histograms(base, candidate, MOVERS, with_reference)
        comparison = compare_histograms(
            base,
            candidate,
            histograms,
            self._human_agreement(base, with_reference),
            self._human_agreement(candidate, with_reference),
        )
        points = self.comparison.points(base, candidate, COMPARISON_POINTS, with_reference)
        update: dict[str, Any] = {"points": points, "with_reference": with_reference}
        if self.rubric_keys is not None:
            # Different rubrics compare by their totals (always 0-100) and by the dimensions they share, by key.
            base_keys, candidate_keys = self.rubric_keys(base), self.rubric_keys(candidate)
            shared = [key for key in base_keys if key in candidate_keys]
            update.update(
                dimensions={key: comparison.dimensions.get(key, _histogram_summary({})) for key in shared},
                shared_dimensions=shared,
                base_only_dimensions=[key for key in base_keys if key not in shared],
                candidate_only_dimensions=[key for key in candidate_keys if key not in shared],
            )
        return comparison.model_copy(update=update)

    def _human_agreement(self, criteria_hash: str, with_reference: bool) -> HumanAgreement:
        report = self.agreement.agreement(criteria_hash, with_reference)
        return HumanAgreement.model_validate(report, from_attributes=True)
