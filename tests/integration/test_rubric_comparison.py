"""Issue 37's comparison acceptance: the same 20 sessions scored under the methodology and the outcome-first rubrics
(the Claude judge through the real SDK and the fake Messages API, sessions from the fake TARSy, real PostgreSQL), then
compared through the API: the totals' rank correlations, band matrix and movers, and the dimensions not shared named.

Each session's two totals are chosen here, all different and every delta different, so the expected figures follow
from their definitions without ties: Spearman's rho = 1 - 6 sum(d^2) / (n (n^2 - 1)) over rank differences, Kendall's
tau = (concordant - discordant) / (n (n - 1) / 2), each band-matrix cell the sessions moving from one band to another,
the movers every rise and every fall, biggest first."""

from __future__ import annotations

import copy
import itertools
import json
from typing import Any

import pytest

from session_scoring.models.scores import SCORE_BANDS
from tests.conftest import Stack
from tests.support.fake_claude import OUTCOME_FIRST_VERDICT, FakeClaude, reply_verdict, scripted_verdict
from tests.support.fake_tarsy import FakeTarsy
from tests.support.tarsy_fixtures import REACT_ID, detailed

BASE_TOTALS = [12, 20, 28, 33, 40, 46, 50, 55, 58, 61, 64, 68, 72, 77, 80, 84, 88, 91, 95, 98]
DELTAS = [15, -9, 11, -14, 7, -3, 19, -17, 2, -6, 10, -20, 13, -1, 4, -22, 6, -12, 1, -8]
CANDIDATE_TOTALS = [b + d for b, d in zip(BASE_TOTALS, DELTAS, strict=True)]
SESSIONS = [f"compare-{i:02d}" for i in range(len(BASE_TOTALS))]
MICROS = 1_000_000
COMPARISON = "/api/v1/scoring/analytics/criteria-comparison"
METHODOLOGY_KEYS = ["logical_flow", "consistency", "tool_relevance", "synthesis_quality"]
OUTCOME_FIRST_KEYS = list(OUTCOME_FIRST_VERDICT["score_breakdown"])


def methodology_verdict(total: int) -> dict[str, Any]:
    """A valid methodology verdict of this total: four dimensions of at most 25 adding up to it."""
    parts = [min(25, max(0, total - 25 * i)) for i in range(4)]
    return scripted_verdict((parts[0], parts[1], parts[2], parts[3]))


def outcome_first_verdict(total: int) -> dict[str, Any]:
    """A valid outcome-first verdict of this holistic total, its conclusion the one whose range holds it."""
    verdict = copy.deepcopy(OUTCOME_FIRST_VERDICT)
    verdict["total_score"] = total
    verdict["conclusion"] = "correct" if total >= 60 else "partially_correct" if total >= 35 else "wrong"
    verdict["score_breakdown"] = {key: min(20, total // 5) for key in OUTCOME_FIRST_KEYS}
    return verdict


def ranks(values: list[int]) -> list[int]:
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0] * len(values)
    for rank, index in enumerate(order, start=1):
        result[index] = rank
    return result


def band(total: int) -> str:
    return next(b.band for b in SCORE_BANDS if b.min_score <= total <= b.max_score)


@pytest.fixture
def sessions_in_tarsy(fake_tarsy: FakeTarsy) -> list[str]:
    template = detailed(REACT_ID)
    for i, session_id in enumerate(SESSIONS):
        document = json.loads(json.dumps(template))
        document["session_id"] = session_id
        document["started_at_us"] = 1_763_000_000 * MICROS + i * 60 * MICROS
        fake_tarsy.add_detailed(document)
    return SESSIONS


def score_each(stack: Stack, fake_claude: FakeClaude, verdicts: list[dict[str, Any]]) -> None:
    """Score each session with its own verdict: one request, its reply scripted, the queue drained, in turn."""
    for session_id, verdict in zip(SESSIONS, verdicts, strict=True):
        fake_claude.script(reply_verdict(verdict))
        assert stack.request_score(session_id, force=True).status_code == 202
        stack.poller.drain()
        score = stack.score(session_id).json()
        assert score["status"] == "completed", score["error_message"]
        assert score["total_score"] == verdict["total_score"]


@pytest.mark.usefixtures("sessions_in_tarsy")
def test_twenty_sessions_under_two_rubrics_compare_by_their_totals_and_name_the_unshared_dimensions(
    make_stack: Any, tarsy_env: dict[str, str], fake_claude: FakeClaude
) -> None:
    claude = {
        "SCORING_LLM_PROVIDER": "anthropic",
        "ANTHROPIC_API_KEY": "test-key-not-secret",
        "ANTHROPIC_BASE_URL": fake_claude.base_url,
        "JUDGE_TIMEOUT_SECONDS": "5",
    }
    methodology: Stack = make_stack(**tarsy_env, **claude)
    score_each(methodology, fake_claude, [methodology_verdict(t) for t in BASE_TOTALS])
    base = methodology.container.config.criteria_hash
    outcome_first: Stack = make_stack(SCORING_RUBRIC="outcome-first")
    score_each(outcome_first, fake_claude, [outcome_first_verdict(t) for t in CANDIDATE_TOTALS])
    candidate = outcome_first.container.config.criteria_hash
    assert base != candidate

    response = outcome_first.client.get(COMPARISON, params={"base": base, "candidate": candidate})

    assert response.status_code == 200, response.text
    body = response.json()
    n = len(SESSIONS)
    assert body["n"] == n
    assert body["total"]["n"] == n
    assert body["total"]["mean_delta"] == pytest.approx(sum(DELTAS) / n)
    # rank correlations of the totals (no ties: the textbook formulas)
    rank_differences = [a - b for a, b in zip(ranks(BASE_TOTALS), ranks(CANDIDATE_TOTALS), strict=True)]
    rho = 1 - 6 * sum(d * d for d in rank_differences) / (n * (n * n - 1))
    pairs = list(itertools.combinations(range(n), 2))
    concordant = sum(
        (BASE_TOTALS[i] - BASE_TOTALS[j]) * (CANDIDATE_TOTALS[i] - CANDIDATE_TOTALS[j]) > 0 for i, j in pairs
    )
    tau = (2 * concordant - len(pairs)) / len(pairs)
    assert body["spearman_rho"] == pytest.approx(rho)
    assert body["kendall_tau_b"] == pytest.approx(tau)
    assert 0 < tau < rho < 1  # the two rubrics mostly agree on the order, not everywhere
    # the band matrix: each session counted once, from its base band to its candidate band
    assert body["bands"] == [b.band for b in SCORE_BANDS]
    expected = [[0] * len(SCORE_BANDS) for _ in SCORE_BANDS]
    for b, c in zip(BASE_TOTALS, CANDIDATE_TOTALS, strict=True):
        expected[body["bands"].index(band(b))][body["bands"].index(band(c))] += 1
    assert body["band_transitions"] == expected
    assert sum(map(sum, body["band_transitions"])) == n
    assert sum(expected[i][j] for i in range(5) for j in range(5) if i != j) > 0  # some sessions change band
    # the movers: every rise and every fall (ten of each), biggest first
    moves = [
        {"session_id": s, "base": b, "candidate": c, "delta": c - b}
        for s, b, c in zip(SESSIONS, BASE_TOTALS, CANDIDATE_TOTALS, strict=True)
    ]
    assert body["movers_up"] == sorted((m for m in moves if m["delta"] > 0), key=lambda m: -m["delta"])
    assert body["movers_down"] == sorted((m for m in moves if m["delta"] < 0), key=lambda m: m["delta"])
    assert len(body["movers_up"]) == len(body["movers_down"]) == 10
    # the dimensions: none shared, each side's named
    assert body["shared_dimensions"] == []
    assert body["dimensions"] == {}
    assert body["base_only_dimensions"] == METHODOLOGY_KEYS
    assert body["candidate_only_dimensions"] == OUTCOME_FIRST_KEYS
