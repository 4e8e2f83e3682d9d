"""The every-pair criteria comparison (the oracle of the histogram one) from fixed pairs: movers, dimension
deltas with gaps, the empty case."""

from __future__ import annotations

from session_scoring.models.scores import band_for
from session_scoring.models.trends import HumanAgreement
from tests.support.comparison_oracle import ComparedScore, compare
from tests.support.verdicts import DEFAULT_DIMENSIONS as DIMENSIONS

NOBODY = HumanAgreement(
    criteria_hash="h", n=0, spearman_rho=None, kendall_tau=None, mean_absolute_error=None, weighted_kappa=None
)


def pair(
    session_id: str, base: int, candidate: int, consistency: tuple[int | None, int | None] = (10, 10)
) -> ComparedScore:
    dims_base: dict[str, int] = dict.fromkeys(DIMENSIONS, 10)
    dims_candidate: dict[str, int] = dict.fromkeys(DIMENSIONS, 10)
    # A score's dimension map leaves out a dimension it has no points for.
    for dims, points in zip((dims_base, dims_candidate), consistency, strict=True):
        if points is None:
            del dims["consistency"]
        else:
            dims["consistency"] = points
    return ComparedScore(
        session_id, base, candidate, band_for(base).band, band_for(candidate).band, dims_base, dims_candidate
    )


def test_movers_are_the_ten_biggest_each_way_ties_by_session_id_and_unmoved_left_out() -> None:
    pairs = [pair(f"up-{i:02d}", 50, 50 + i) for i in range(1, 13)]
    pairs += [pair("tie-b", 50, 62), pair("tie-a", 50, 62), pair("still", 70, 70), pair("down", 80, 60)]

    result = compare("b", "c", pairs, NOBODY, NOBODY)

    assert [(m.session_id, m.delta) for m in result.movers_up] == [
        ("tie-a", 12),
        ("tie-b", 12),
        ("up-12", 12),
        ("up-11", 11),
        ("up-10", 10),
        ("up-09", 9),
        ("up-08", 8),
        ("up-07", 7),
        ("up-06", 6),
        ("up-05", 5),
    ]
    assert [(m.session_id, m.delta) for m in result.movers_down] == [("down", -20)]
    assert sum(map(sum, result.band_transitions)) == result.n == 16


def test_dimension_deltas_skip_pairs_missing_the_dimension() -> None:
    result = compare(
        "b",
        "c",
        [pair("a", 50, 60, (5, 15)), pair("b", 50, 60, (None, 20)), pair("c", 50, 60, (20, 10))],
        NOBODY,
        NOBODY,
    )

    assert (result.dimensions["consistency"].n, result.dimensions["consistency"].mean_delta) == (2, 0.0)
    assert result.dimensions["logical_flow"].n == 3
    assert (result.total.mean_delta, result.total.median_delta) == (10.0, 10.0)
    assert result.spearman_rho is None  # every base total is 50: no ranking to correlate


def test_no_common_session_gives_empty_figures() -> None:
    result = compare("b", "c", [], NOBODY, NOBODY)

    assert (result.n, result.total.mean_delta, result.kendall_tau_b, result.movers_up) == (0, None, None, [])
    assert result.band_transitions == [[0] * 5 for _ in range(5)]
