"""Agreement between the judge and humans under one criteria hash.

The sample: every session with a completed real score under the criteria (its latest) and at least one human label
(each labeller's current revision); a session's human figure is the mean of its labellers'. Per dimension, the
error is over the dimension keys that the label and the score both have, whatever the rubric; the report lists the
dimensions it compared, in the rubric's order. The figures use numpy
and ``krippendorff``, imported when a report is asked for; not scipy, which would take the API's Lambda layer past
its size limit (docs/judge-quality.md).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from session_scoring.models.quality import (
    AgreementPair,
    AgreementReport,
    DimensionError,
    LabelledScore,
)
from session_scoring.models.scores import BAND_NAMES, band_for

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def average_ranks(values: Sequence[float]) -> NDArray[np.float64]:
    """1-based ranks, ties sharing their average rank (as Spearman's rho needs)."""
    import numpy as np

    data = np.asarray(values, dtype=float)
    _, inverse, counts = np.unique(data, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return (ends - (counts - 1) / 2.0)[inverse].astype(float)


def spearman_rho(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's rank correlation (Pearson's r of the average ranks); None below two pairs or for a constant."""
    import numpy as np

    if len(x) < 2:
        return None
    rx, ry = average_ranks(x), average_ranks(y)
    if np.std(rx) == 0 or np.std(ry) == 0:
        return None
    return _finite(float(np.corrcoef(rx, ry)[0, 1]))


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's tau-b (ties in either variable corrected): O(n^2) time, O(n) memory."""
    import numpy as np

    n = len(x)
    if n < 2:
        return None
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    concordance = 0.0
    tied_x = tied_y = 0
    for i in range(n - 1):
        dx = np.sign(a[i + 1 :] - a[i])
        dy = np.sign(b[i + 1 :] - b[i])
        concordance += float(np.sum(dx * dy))
        tied_x += int(np.sum(dx == 0))
        tied_y += int(np.sum(dy == 0))
    pairs = n * (n - 1) / 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    return None if denominator == 0 else concordance / denominator


def quadratic_weighted_kappa(confusion: Sequence[Sequence[int]]) -> float | None:
    """Cohen's kappa with quadratic weights from a k x k confusion matrix (rows one rater, columns the other);
    None when undefined (no data, or both raters used one and the same category)."""
    import numpy as np

    observed = np.asarray(confusion, dtype=float)
    total = observed.sum()
    k = observed.shape[0]
    if total == 0 or k < 2:
        return None
    i, j = np.indices((k, k))
    weights = (i - j) ** 2 / (k - 1) ** 2
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / total
    disagreement_expected = float((weights * expected).sum())
    if disagreement_expected == 0:
        return None
    return 1.0 - float((weights * observed).sum()) / disagreement_expected


def krippendorff_interval_alpha(ratings: dict[str, dict[str, float]]) -> float | None:
    """Krippendorff's alpha (interval) of ``{session: {labeller: total}}`` over sessions with 2+ labellers."""
    units = {session: by for session, by in ratings.items() if len(by) >= 2}
    if not units:
        return None
    import krippendorff
    import numpy as np

    raters = sorted({rater for by in units.values() for rater in by})
    sessions = sorted(units)
    matrix = np.full((len(raters), len(sessions)), np.nan)
    for column, session in enumerate(sessions):
        for rater, value in units[session].items():
            matrix[raters.index(rater), column] = value
    values = matrix[~np.isnan(matrix)]
    if np.unique(values).size < 2:
        return None  # every rating the same: alpha is undefined (no variation to agree on)
    return _finite(float(krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")))


def dimension_gaps(labels: Sequence[LabelledScore]) -> dict[str, float]:
    """One session's per-dimension gap, |judge - mean of its labellers'|, over each key the score and at least one
    label's breakdown both have."""
    judged = labels[0].judge_breakdown or {}
    given: dict[str, list[int]] = defaultdict(list)
    for label in labels:
        for key, points in (label.human_breakdown or {}).items():
            if key in judged:
                given[key].append(points)
    return {key: abs(judged[key] - sum(points) / len(points)) for key, points in given.items()}


def build_report(
    criteria_hash: str, rows: Sequence[LabelledScore], with_reference: bool, order: Sequence[str] = ()
) -> AgreementReport:
    """The agreement figures of ``rows`` (one per session and labeller); the dimensions compared are listed in
    ``order`` (the rubric's keys), any others after them by key."""
    by_session: dict[str, list[LabelledScore]] = defaultdict(list)
    for row in rows:
        by_session[row.session_id].append(row)
    sessions = sorted(by_session)
    human = [sum(r.human_total for r in by_session[s]) / len(by_session[s]) for s in sessions]
    judge = [by_session[s][0].judge_total for s in sessions]
    confusion = [[0] * len(BAND_NAMES) for _ in BAND_NAMES]
    for mean_total, judge_total in zip(human, judge, strict=True):
        confusion[BAND_NAMES.index(band_for(round(mean_total)).band)][BAND_NAMES.index(band_for(judge_total).band)] += 1
    dimension_errors: dict[str, list[float]] = defaultdict(list)
    for session in sessions:
        for key, gap in dimension_gaps(by_session[session]).items():
            dimension_errors[key].append(gap)
    position = {key: index for index, key in enumerate(order)}
    compared = sorted(dimension_errors.items(), key=lambda item: (position.get(item[0], len(position)), item[0]))
    errors = [abs(j - h) for j, h in zip(judge, human, strict=True)]
    n = len(sessions)
    ratings = {s: {r.labeller: float(r.human_total) for r in by_session[s]} for s in sessions}
    return AgreementReport(
        criteria_hash=criteria_hash,
        n=n,
        spearman_rho=spearman_rho(judge, human),
        kendall_tau=kendall_tau_b(judge, human),
        mean_absolute_error=sum(errors) / n if n else None,
        within_5=sum(e <= 5 for e in errors) / n if n else None,
        within_10=sum(e <= 10 for e in errors) / n if n else None,
        dimensions=[
            DimensionError(dimension=key, n=len(gaps), mean_absolute_error=sum(gaps) / len(gaps))
            for key, gaps in compared
        ],
        weighted_kappa=quadratic_weighted_kappa(confusion),
        confusion=confusion,
        human_sessions_multi=sum(len(by) >= 2 for by in ratings.values()),
        krippendorff_alpha=krippendorff_interval_alpha(ratings),
        pairs=[
            AgreementPair(session_id=s, human_total=h, judge_total=j)
            for s, h, j in zip(sessions, human, judge, strict=True)
        ],
        with_reference=with_reference,
    )


class LabelledScores(Protocol):
    """What the agreement report reads: each labelled session's score (``repositories.labels``)."""

    def labelled_scores(self, criteria_hash: str, with_reference: bool) -> list[LabelledScore]: ...


@dataclass(eq=False)
class AgreementService:
    repository: LabelledScores
    rubric_keys: Callable[[str], tuple[str, ...]] | None = None
    """The dimension keys of a criteria's rubric, the order the report lists its dimensions in (None: by key)."""

    def agreement(self, criteria_hash: str, with_reference: bool) -> AgreementReport:
        """The report under ``criteria_hash``; ``with_reference``: over the labelled sessions whose latest score was
        judged against a reference root cause only."""
        rows = self.repository.labelled_scores(criteria_hash, with_reference)
        order = self.rubric_keys(criteria_hash) if self.rubric_keys is not None else ()
        return build_report(criteria_hash, rows, with_reference, order)
