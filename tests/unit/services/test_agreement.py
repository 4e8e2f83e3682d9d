"""The agreement statistics against hand-computed values (and scipy, where it has the same statistic), and the
per-dimension errors over whatever keys a label and its score share (any rubric)."""

from __future__ import annotations

import pytest
from scipy import stats

from session_scoring.models.quality import LabelledScore
from session_scoring.services.agreement import (
    average_ranks,
    build_report,
    kendall_tau_b,
    krippendorff_interval_alpha,
    quadratic_weighted_kappa,
    spearman_rho,
)


def test_average_ranks_share_ties() -> None:
    assert average_ranks([10, 20, 20, 5]).tolist() == [2.0, 3.5, 3.5, 1.0]


def test_spearman_and_kendall_by_hand() -> None:
    judge = [80, 50, 90, 30]
    human = [95, 55, 90, 40]
    # ranks 3,2,4,1 vs 4,2,3,1: sum d^2 = 2, rho = 1 - 6*2/(4*15) = 0.8; 5 concordant, 1 discordant pair: 4/6
    assert spearman_rho(judge, human) == pytest.approx(0.8)
    assert kendall_tau_b(judge, human) == pytest.approx(4 / 6)


@pytest.mark.parametrize(
    ("x", "y"),
    [
        ([1, 2, 2, 3, 5, 5, 5, 9], [2, 1, 4, 4, 3, 7, 7, 8]),
        ([70, 70, 70, 10, 95], [60, 65, 80, 20, 90]),
    ],
)
def test_ties_match_scipy(x: list[int], y: list[int]) -> None:
    assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic)


def test_correlations_are_undefined_below_two_pairs_or_for_a_constant() -> None:
    assert spearman_rho([50], [60]) is None
    assert kendall_tau_b([50], [60]) is None
    assert spearman_rho([50, 50, 50], [1, 2, 3]) is None
    assert kendall_tau_b([50, 50, 50], [1, 2, 3]) is None


def test_quadratic_kappa_by_hand() -> None:
    confusion = [[0] * 5 for _ in range(5)]
    confusion[0][0] = confusion[1][1] = confusion[4][3] = confusion[4][4] = 1
    # observed weighted disagreement 1/16; expected 92/64; kappa = 1 - (1/16)/(92/64) = 22/23
    assert quadratic_weighted_kappa(confusion) == pytest.approx(22 / 23)


def test_quadratic_kappa_perfect_and_undefined() -> None:
    assert quadratic_weighted_kappa([[2, 0], [0, 3]]) == pytest.approx(1.0)
    assert quadratic_weighted_kappa([[4, 0], [0, 0]]) is None  # one category only: chance agreement is total
    assert quadratic_weighted_kappa([[0, 0], [0, 0]]) is None


def test_krippendorff_interval_alpha_by_hand() -> None:
    # units (10, 20) and (50, 50): D_o = 200/4 = 50; D_e = 10200/12 = 850; alpha = 1 - 50/850 = 16/17
    ratings = {"s1": {"a": 10.0, "b": 20.0}, "s2": {"a": 50.0, "b": 50.0}, "s3": {"a": 70.0}}
    assert krippendorff_interval_alpha(ratings) == pytest.approx(16 / 17)


def test_krippendorff_needs_two_labellers_on_a_session() -> None:
    assert krippendorff_interval_alpha({"s1": {"a": 10.0}, "s2": {"b": 50.0}}) is None


def _labelled(session: str, labeller: str, human: dict[str, int] | None, judge: dict[str, int] | None) -> LabelledScore:
    return LabelledScore(session, labeller, 50, human, 50, judge)


def test_dimension_errors_follow_the_keys_the_label_and_the_score_share_in_the_rubrics_order() -> None:
    triage = ("evidence", "diagnosis", "next_steps")  # config/rubrics/triage.yaml: 10, 20, 30
    judged = {"evidence": 8, "diagnosis": 12, "next_steps": 30}
    rows = [
        # s1: two labellers, the mean of theirs against the judge's
        _labelled("s1", "alice", {"evidence": 6, "diagnosis": 16, "next_steps": 28}, judged),
        _labelled("s1", "bob", {"evidence": 10, "diagnosis": 20, "next_steps": 30}, judged),
        # s2: a label of another rubric's key (the score has no logical_flow), and no next_steps
        _labelled("s2", "alice", {"next_steps": 20, "logical_flow": 25}, {"evidence": 2, "next_steps": 25}),
        # s3: no breakdown on the label: no dimension compared
        _labelled("s3", "alice", None, judged),
    ]

    report = build_report("a" * 64, rows, with_reference=False, order=triage)

    assert [(d.dimension, d.n, d.mean_absolute_error) for d in report.dimensions] == [
        ("evidence", 1, 0.0),  # |8 - (6 + 10) / 2|
        ("diagnosis", 1, 6.0),  # |12 - 18|
        ("next_steps", 2, 3.0),  # |30 - 29| and |25 - 20|: (1 + 5) / 2
    ]


def test_no_breakdown_anywhere_compares_no_dimension() -> None:
    report = build_report("a" * 64, [_labelled("s1", "alice", None, {"evidence": 3})], with_reference=False)
    assert report.n == 1
    assert report.dimensions == []
