"""The criteria comparison's tables (``comparison_pairs``, ``comparison_cells``) as the verdict statement keeps them:
random scores under three criteria stored through ``ScoreRepository`` (threads racing on shared sessions, re-scores
that replace a session's latest score, backdated verdicts that do not), then every comparison both ways round
equals the oracle over every pair, and the tables equal a rebuild from ``latest_scores`` and the migration's
backfill."""

from __future__ import annotations

import itertools
import random
import uuid
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, inspect, text

from session_scoring.models.judge import JudgeVerdict
from session_scoring.models.records import PromptStats
from session_scoring.models.trends import CriteriaComparison, HumanAgreement
from session_scoring.repositories.comparison import ComparisonRepository
from session_scoring.repositories.scores import ScoreRepository
from session_scoring.services.trends import MOVERS, compare_histograms
from tests.conftest import Stack
from tests.support.comparison_oracle import ComparedScore, compare, compared_scores
from tests.support.databases import scratch_database
from tests.support.verdicts import DEFAULT_DIMENSIONS as DIMENSIONS
from tests.support.verdicts import stored_verdict

HASHES = ("1" * 64, "a" * 64, "f" * 64)
# Upper and lower case, digits and punctuation: code point order differs from a linguistic collation's.
SESSIONS = [f"{prefix}{i}" for i in range(12) for prefix in ("S-", "s_", "a.")]
NOBODY = HumanAgreement(
    criteria_hash="x", n=0, spearman_rho=None, kendall_tau=None, mean_absolute_error=None, weighted_kappa=None
)


OUTCOMES = ("no_reference", "no_reference", "found", "partly_found", "missed")


def _verdict(rng: random.Random, outcomes: Sequence[str]) -> JudgeVerdict:
    parts = [rng.randrange(26) for _ in DIMENSIONS]
    return stored_verdict(dict(zip(DIMENSIONS, parts, strict=True)), reasoning="random", outcome=rng.choice(outcomes))


def _score_many(repo: ScoreRepository, seed: int, rounds: int, outcomes: Sequence[str] = OUTCOMES) -> int:
    """Request, claim and complete (sometimes fail) scores of shared sessions under random criteria; a tenth are
    backdated a year (older than any latest score they meet: stored, but not the session's latest). Returns how many
    completed."""
    rng = random.Random(seed)
    completed = 0
    for _ in range(rounds):
        session_id = rng.choice(SESSIONS)
        criteria = rng.choice(HASHES)
        attempt = repo.create_attempt(uuid.uuid4(), session_id, criteria, "test")
        claim = repo.claim(attempt.attempt.score_id, 60)
        if claim.claim_token is None:
            continue  # another thread holds the session's attempt
        if rng.random() < 0.1:
            repo.fail(attempt.attempt.score_id, claim.claim_token, "judge said no")
            continue
        backdated = datetime.now(UTC) - timedelta(days=365 + rng.randrange(30)) if rng.random() < 0.1 else None
        completed += repo.complete(
            attempt.attempt.score_id,
            claim.claim_token,
            criteria,
            _verdict(rng, outcomes),
            PromptStats(False, None, None),
            scored_at=backdated,
        )
    return completed


def _tables(engine: Engine) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
    """Every pair row and every non-empty cell."""
    with engine.connect() as conn:
        pairs = {tuple(r) for r in conn.execute(text("SELECT * FROM comparison_pairs"))}
        cells = {tuple(r) for r in conn.execute(text("SELECT * FROM comparison_cells WHERE sessions <> 0"))}
    return pairs, cells


def _assert_same(got: CriteriaComparison, oracle: CriteriaComparison) -> None:
    assert got.n == oracle.n
    assert got.band_transitions == oracle.band_transitions
    assert got.movers_up == oracle.movers_up
    assert got.movers_down == oracle.movers_down
    assert set(oracle.dimensions) <= set(got.dimensions)
    dimensions = [(got.dimensions[key], want) for key, want in oracle.dimensions.items()]
    for summary, want in [(got.total, oracle.total), *dimensions]:
        assert summary.n == want.n
        assert summary.mean_delta == pytest.approx(want.mean_delta, abs=1e-9, rel=0)
        assert summary.median_delta == want.median_delta
    for value, expected in ((got.spearman_rho, oracle.spearman_rho), (got.kendall_tau_b, oracle.kendall_tau_b)):
        assert (value is None) == (expected is None)
        if expected is not None:
            assert value == pytest.approx(expected, abs=1e-9, rel=0)


def _first(pairs: Sequence[ComparedScore], limit: int) -> list[tuple[str, int, int]]:
    ordered = sorted(pairs, key=lambda p: p.session_id)  # code point order
    return [(p.session_id, p.base_total, p.candidate_total) for p in ordered[:limit]]


def test_the_verdict_statement_keeps_every_comparison_equal_to_the_oracle(stack: Stack) -> None:
    repo = stack.container.score_repository
    for criteria in HASHES:
        repo.ensure_criteria(criteria, {"scoring": {"llm_provider": "test"}})

    with ThreadPoolExecutor(max_workers=4) as pool:
        completed = sum(pool.map(lambda seed: _score_many(repo, seed, 90), range(4)))

    engine = stack.container.query_engine
    with engine.connect() as conn:
        replaced = conn.execute(
            text(
                "SELECT count(*) FROM (SELECT session_id, criteria_hash FROM session_scores WHERE status = 'completed' "
                "GROUP BY 1, 2 HAVING count(*) > 1) AS rescored"
            )
        ).scalar_one()
    assert completed > 200
    assert replaced > 20  # sessions re-scored under the same criteria: their latest score changed
    comparison = ComparisonRepository(engine)
    for base, candidate in itertools.product(HASHES, repeat=2):
        pairs = compared_scores(engine, base, candidate)
        assert len(pairs) > 10
        oracle = compare(base, candidate, pairs, NOBODY, NOBODY)
        got = compare_histograms(base, candidate, comparison.histograms(base, candidate, MOVERS), NOBODY, NOBODY)
        _assert_same(got, oracle)
        assert base == candidate or got.movers_up or got.movers_down
        points = comparison.points(base, candidate, 15)
        assert [(p.session_id, p.base, p.candidate) for p in points] == _first(pairs, 15)
        # Restricted to the sessions judged against a reference under either: kept apart, equal to its oracle.
        referenced = compared_scores(engine, base, candidate, with_reference=True)
        assert 0 < len(referenced) < len(pairs)
        oracle = compare(base, candidate, referenced, NOBODY, NOBODY)
        histograms = comparison.histograms(base, candidate, MOVERS, with_reference=True)
        _assert_same(compare_histograms(base, candidate, histograms, NOBODY, NOBODY), oracle)
        restricted = comparison.points(base, candidate, 15, with_reference=True)
        assert [(p.session_id, p.base, p.candidate) for p in restricted] == _first(referenced, 15)

    # What the statements kept is what a rebuild from latest_scores computes.
    kept = _tables(engine)
    comparison.rebuild()
    assert _tables(engine) == kept
    assert all(len(rows) > 0 for rows in kept)


MIGRATION = "0016_comparison_pairs"


@pytest.fixture
def fresh_url(postgres_url: str) -> Iterator[str]:
    with scratch_database(postgres_url, "comparison") as url:
        yield url


def test_the_migration_backfills_what_the_verdict_statement_keeps_and_rolls_back(fresh_url: str) -> None:
    from alembic.script import ScriptDirectory

    from session_scoring.configuration.settings import Settings
    from session_scoring.infrastructure import migrate

    settings = Settings()
    before = ScriptDirectory.from_config(migrate.alembic_config(settings)).get_revision(MIGRATION).down_revision
    engine = create_engine(fresh_url, isolation_level="AUTOCOMMIT")
    try:
        migrate.upgrade(engine, settings)
        repo = ScoreRepository(engine)
        for criteria in HASHES:
            repo.ensure_criteria(criteria, {"scoring": {"llm_provider": "test"}})
        # Without reference outcomes: rolling back 0018_outcome drops the outcomes, so the upgrade cannot restore the
        # comparison's reference cells (the migrations' backfill is checked, not the outcomes' loss).
        assert _score_many(repo, 7, 150, outcomes=("no_reference",)) > 100
        kept = _tables(engine)

        migrate.downgrade(engine, settings, str(before))
        assert not {"comparison_pairs", "comparison_cells"} & set(inspect(engine).get_table_names())
        migrate.upgrade(engine, settings)

        assert _tables(engine) == kept
        assert all(len(rows) > 0 for rows in kept)
    finally:
        engine.dispose()
