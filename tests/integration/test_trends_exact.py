"""The trends from ``trend_histograms`` (and the members of a day a bound cuts) and the comparison from histograms give
the same answers as the statistics over every score (``percentile_cont`` over every latest score; every pair loaded
into Python), on a few hundred random scores in real PostgreSQL."""

from __future__ import annotations

import itertools
import json
import random
import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import text

from session_scoring.models.scores import band_for
from session_scoring.models.trends import HumanAgreement, TrendBucket, TrendGroup, TrendRow
from session_scoring.repositories.comparison import ComparisonRepository
from session_scoring.repositories.trends import TrendsRepository
from session_scoring.services.trends import MOVERS, compare_histograms
from tests.conftest import Stack
from tests.support.comparison_oracle import compare, compared_scores
from tests.support.trends_oracle import scanned_trends
from tests.support.verdicts import DEFAULT_DIMENSIONS as DIMENSIONS
from tests.support.verdicts import stored_verdict

BASE, CANDIDATE = "b" * 64, "c" * 64
START = datetime(2026, 1, 1, tzinfo=UTC)


OUTCOMES = [None, "no_reference", "found", "partly_found", "missed"]


def _latest(
    conn: Any,
    session: str,
    criteria: str,
    score_id: uuid.UUID,
    total: int,
    at: datetime,
    dims: dict[str, int],
    outcome: str | None = None,
) -> None:
    conn.execute(
        text(
            "INSERT INTO latest_scores (session_id, criteria_hash, score_id, total_score, band, dimensions, "
            "scored_at, outcome) VALUES (:s, :h, :id, :t, :band, CAST(:dims AS jsonb), :at, :outcome)"
        ),
        {"s": session, "h": criteria, "id": score_id, "t": total, "band": band_for(total).band, "at": at}
        | {"dims": json.dumps(dims), "outcome": outcome},
    )


@pytest.fixture
def seeded(stack: Stack) -> TrendsRepository:
    """300 sessions with a latest score under the base criteria and '*' over 40 days (agents and alert types, some
    unknown; some dimensions missing), 250 of them also under the candidate; the trend and comparison tables rebuilt
    from them."""
    rng = random.Random(12)
    with stack.container.engine.begin() as conn:
        for criteria in (BASE, CANDIDATE):
            conn.execute(
                text("INSERT INTO scoring_criteria_definitions (criteria_hash, criteria_content) VALUES (:h, '{}')"),
                {"h": criteria},
            )
        for i in range(300):
            session = f"r-{i}"
            at = START + timedelta(seconds=rng.randrange(40 * 86400))
            total = rng.choice([rng.randrange(101), rng.randrange(40, 60)])  # ties and spread alike
            picked = [rng.choice([None, rng.randrange(26)]) if d == 0 else rng.randrange(26) for d in range(4)]
            dims = {d: v for d, v in zip(DIMENSIONS, picked, strict=True) if v is not None}
            score_id = uuid.uuid4()
            conn.execute(
                text(
                    "INSERT INTO session_scores (score_id, session_id, criteria_hash, status, total_score, "
                    "scored_triggered_by, requested_at, scored_at, session_agent, session_alert_type) "
                    "VALUES (:id, :s, :h, 'completed', :t, 'test', :at, :at, :agent, :alert)"
                ),
                {
                    "id": score_id,
                    "s": session,
                    "h": BASE,
                    "t": total,
                    "at": at,
                    "agent": rng.choice(["KubernetesAgent", "NetworkAgent", None]),
                    "alert": rng.choice(["PodOOMKilled", "HighLatency", None]),
                },
            )
            outcome = rng.choice(OUTCOMES)
            for scope in (BASE, "*"):
                _latest(conn, session, scope, score_id, total, at, dims, outcome)
            if i < 250:  # the candidate moves most scores a little, some a lot
                moved = max(0, min(100, total + rng.choice([0, 0, rng.randrange(-8, 9), rng.randrange(-60, 61)])))
                # The candidate's rubric shares three of the base's dimensions and has one of its own.
                other = {d: rng.randrange(26) for d in (*DIMENSIONS[1:], "evidence_gathering") if rng.random() < 0.8}
                _latest(conn, session, CANDIDATE, uuid.uuid4(), moved, at, other)
    repository = TrendsRepository(stack.container.query_engine)
    repository.rebuild()
    ComparisonRepository(stack.container.query_engine).rebuild()
    return repository


def test_trends_equal_the_percentile_cont_scan(stack: Stack, seeded: TrendsRepository) -> None:
    days = (START + timedelta(days=3), START + timedelta(days=31))  # a Sunday to a Sunday: weeks cut
    mondays = (datetime(2026, 1, 5, tzinfo=UTC), datetime(2026, 2, 2, tzinfo=UTC))  # whole weeks
    for bucket, group_by, criteria_hash, bounds in itertools.product(
        TrendBucket, TrendGroup, (None, BASE), ((None, None), days, mondays, (None, mondays[1]))
    ):
        scanned = scanned_trends(stack.container.query_engine, criteria_hash, bucket, group_by, *bounds)
        bucketed = seeded.trends(criteria_hash, bucket, group_by, *bounds)
        assert len(bucketed) == len(scanned) > 1
        _assert_same(bucketed, scanned)


def _assert_same(bucketed: list[TrendRow], scanned: list[TrendRow]) -> None:
    """The same points with the same statistics (floats to 1e-9: the means are divided in a different order)."""
    assert len(bucketed) == len(scanned)
    for got, want in zip(bucketed, scanned, strict=True):
        assert (got.bucket_start, got.group, got.count, got.band_counts, got.outcome_counts) == (
            want.bucket_start,
            want.group,
            want.count,
            want.band_counts,
            want.outcome_counts,
        )
        assert [got.mean, got.p10, got.p50, got.p90] == pytest.approx(
            [want.mean, want.p10, want.p50, want.p90], abs=1e-9, rel=0
        )
        assert set(got.dimension_means) == set(want.dimension_means)
        for d, expected in want.dimension_means.items():
            assert got.dimension_means[d] == pytest.approx(expected, abs=1e-9, rel=0)


def test_bounds_that_cut_days_count_the_members_of_those_days(stack: Stack, seeded: TrendsRepository) -> None:
    """A bound off a UTC midnight takes the day it cuts from its members: the same trend as the scan, for bounds in
    one day, across days and weeks, on a Sunday or a Monday, in another time zone, and naive (as UTC)."""
    plus_two = timezone(timedelta(hours=2))
    monday = datetime(2026, 1, 12, tzinfo=UTC)
    cuts = [
        (START + timedelta(hours=5), None),
        (None, START + timedelta(days=20, hours=13, minutes=7)),
        (START + timedelta(days=2, hours=1), START + timedelta(days=2, hours=23)),  # inside one day
        (monday + timedelta(hours=6), monday + timedelta(days=13, hours=18)),  # a Monday to a Sunday
        (monday - timedelta(hours=7), monday + timedelta(days=7, hours=3)),  # a Sunday to a Monday
        (datetime(2026, 1, 9, 1, 30, tzinfo=plus_two), datetime(2026, 1, 20, tzinfo=plus_two)),  # 23:30 and 22:00 UTC
        (datetime(2026, 1, 3, 12), datetime(2026, 1, 30)),  # naive
    ]
    for bucket, group_by, bounds in itertools.product(TrendBucket, TrendGroup, cuts):
        scanned = scanned_trends(stack.container.query_engine, BASE, bucket, group_by, *bounds)
        bucketed = seeded.trends(BASE, bucket, group_by, *bounds)
        assert scanned
        _assert_same(bucketed, scanned)


def test_comparison_from_histograms_equals_every_pair_in_python(stack: Stack, seeded: TrendsRepository) -> None:
    agreement = HumanAgreement(
        criteria_hash=BASE, n=0, spearman_rho=None, kendall_tau=None, mean_absolute_error=None, weighted_kappa=None
    )
    comparison = ComparisonRepository(stack.container.query_engine)
    for base, candidate in ((BASE, CANDIDATE), (CANDIDATE, BASE), (BASE, BASE)):
        oracle = compare(
            base, candidate, compared_scores(stack.container.query_engine, base, candidate), agreement, agreement
        )
        got = compare_histograms(base, candidate, comparison.histograms(base, candidate, MOVERS), agreement, agreement)
        assert got.n == oracle.n > 200
        assert got.band_transitions == oracle.band_transitions
        assert got.movers_up == oracle.movers_up
        assert got.movers_down == oracle.movers_down
        assert len(got.movers_up) == len(got.movers_down) == (0 if candidate == base else MOVERS)
        shared = {d for d, summary in oracle.dimensions.items() if summary.n}
        assert set(got.dimensions) == shared
        assert "evidence_gathering" not in shared  # the candidate's own dimension has nothing to compare with
        for summary, want in [(got.total, oracle.total)] + [(got.dimensions[d], oracle.dimensions[d]) for d in shared]:
            assert summary.n == want.n
            assert summary.mean_delta == pytest.approx(want.mean_delta, abs=1e-9, rel=0)
            assert summary.median_delta == want.median_delta
        assert oracle.spearman_rho is not None
        assert oracle.kendall_tau_b is not None
        assert got.spearman_rho == pytest.approx(oracle.spearman_rho, abs=1e-9, rel=0)
        assert got.kendall_tau_b == pytest.approx(oracle.kendall_tau_b, abs=1e-9, rel=0)


def test_trends_kept_by_verdicts_equal_the_percentile_cont_scan(stack: Stack) -> None:
    """The histograms the verdict statement keeps (re-scores replacing members, facts moving sessions between groups),
    read for every bucket and grouping, with and without bounds, equal the scan of the latest scores."""
    from session_scoring.models.records import PromptStats, SessionFacts

    rng = random.Random(7)
    repo = stack.container.score_repository
    for criteria in (BASE, CANDIDATE):
        repo.ensure_criteria(criteria, {"scoring": {"llm_provider": "test"}})
    for _ in range(160):
        facts = SessionFacts(
            agent=rng.choice(["KubernetesAgent", "NetworkAgent", None]),
            alert_type=rng.choice(["PodOOMKilled", None]),
            started_at=None,
            ended_at=None,
            stages=None,
            tool_calls=None,
            source="file",
        )
        criteria = rng.choice((BASE, BASE, CANDIDATE))
        attempt = repo.create_attempt(uuid.uuid4(), f"v-{rng.randrange(60)}", criteria, "test", facts)
        claim = repo.claim(attempt.attempt.score_id, 60)
        assert claim.claim_token is not None
        breakdown = {d: rng.choice([rng.randrange(26), rng.randrange(11, 14)]) for d in DIMENSIONS}
        verdict = stored_verdict(breakdown, reasoning="random", outcome=rng.choice(OUTCOMES[1:]))
        assert repo.complete(
            attempt.attempt.score_id, claim.claim_token, criteria, verdict, PromptStats(False, None, None)
        )
    repository = TrendsRepository(stack.container.query_engine)
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    for bucket, group_by, criteria_hash, bounds in itertools.product(
        TrendBucket,
        TrendGroup,
        (None, BASE, CANDIDATE),
        ((None, None), (today, None), (today, today + timedelta(days=1)), (None, today - timedelta(days=1))),
    ):
        scanned = scanned_trends(stack.container.query_engine, criteria_hash, bucket, group_by, *bounds)
        bucketed = repository.trends(criteria_hash, bucket, group_by, *bounds)
        _assert_same(bucketed, scanned)
    kept = _outcome_counts(stack)
    assert kept == _scanned_outcome_counts(stack)
    assert {key[0] for key in kept} == {BASE, CANDIDATE, "*"}
    repository.rebuild()  # rebuilt from latest_scores: the same counters
    assert _outcome_counts(stack) == kept


def _outcome_counts(stack: Stack) -> dict[tuple[Any, ...], tuple[int, int]]:
    with stack.container.query_engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT criteria_hash, agent_unknown, agent, alert_type_unknown, alert_type, outcome, sessions, "
                "total_sum FROM outcome_counts WHERE sessions <> 0 OR total_sum <> 0"
            )
        ).all()
    return {tuple(row[:6]): (row.sessions, row.total_sum) for row in rows}


def _scanned_outcome_counts(stack: Stack) -> dict[tuple[Any, ...], tuple[int, int]]:
    """The outcome counters as a scan of every latest score and its attempt's facts would have them."""
    with stack.container.query_engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT l.criteria_hash, s.session_agent IS NULL, coalesce(s.session_agent, ''), "
                "s.session_alert_type IS NULL, coalesce(s.session_alert_type, ''), l.outcome, count(*), "
                "sum(l.total_score) FROM latest_scores l JOIN session_scores s ON s.score_id = l.score_id "
                "WHERE l.outcome IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6"
            )
        ).all()
    return {tuple(row[:6]): (int(row[6]), int(row[7])) for row in rows}


def test_the_comparison_is_between_two_criteria_not_any(stack: Stack) -> None:
    comparison = ComparisonRepository(stack.container.query_engine)
    with pytest.raises(ValueError, match="two criteria hashes"):
        comparison.histograms(BASE, "*", MOVERS)
    with pytest.raises(ValueError, match="two criteria hashes"):
        comparison.points("*", BASE, 10)
