"""The agreement statistics against hand-computed values (and scipy, where it has the same statistic)."""

from __future__ import annotations

import pytest
from scipy import stats

from session_scoring.services.agreement import (
    average_ranks,
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
