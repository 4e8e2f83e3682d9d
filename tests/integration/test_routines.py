"""The hot statements as database routines (repositories/routines.py): a database with them and one without store and
read the same scores; the migrations install this release's routines and drop another release's."""

from __future__ import annotations

import io
import json
import random
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text

from session_scoring.configuration.settings import Settings
from session_scoring.db.engine import create_db_engine
from session_scoring.infrastructure import migrate
from session_scoring.models.records import PromptStats, SessionFacts
from session_scoring.repositories.scores import (
    VERDICT_ROUTINE_PREFIX,
    ScoreRepository,
    active_or_completed_routine,
    install_routines,
    latest_routine,
    verdict_routine,
)
from tests.support.databases import scratch_database
from tests.support.verdicts import stored_verdict

SESSIONS = [f"s{i}" for i in range(5)]
HASHES = ["a" * 64, "b" * 64]


@pytest.fixture
def two_databases(postgres_url: str) -> Iterator[tuple[Engine, Engine]]:
    """Two fresh databases at head: the first with the routines installed (as a deploy's migration does), the second
    without (a database migrated by another tool, or a deploy whose migration has not run yet)."""
    with scratch_database(postgres_url, "rtn") as with_url, scratch_database(postgres_url, "nortn") as without_url:
        engines = []
        for url, then in ((with_url, install_routines), (without_url, None)):
            admin = create_engine(url)
            try:
                migrate.upgrade(admin, Settings(), then=then)
            finally:
                admin.dispose()
            engines.append(create_db_engine(Settings(database_url=url), autocommit=True))
        try:
            yield engines[0], engines[1]
        finally:
            for engine in engines:
                engine.dispose()


def score_sessions(repo: ScoreRepository, seed: int) -> list[tuple[Any, ...]]:
    """Request, claim and complete re-scores of a few sessions under two criteria; returns what each session's GET
    and POST reads answer afterwards, without ids and times."""
    rng = random.Random(seed)
    for criteria in HASHES:
        repo.ensure_criteria(criteria, {"scoring": {"llm_provider": "test"}})
    for _ in range(30):
        session_id, criteria = rng.choice(SESSIONS), rng.choice(HASHES)
        facts = SessionFacts(rng.choice(["a1", "a2"]), "PodOOMKilled", None, None, None, None, "file")
        attempt = repo.create_attempt(uuid.uuid4(), session_id, criteria, "test", facts)
        claim = repo.claim(attempt.attempt.score_id, 60)
        assert claim.claim_token is not None
        parts = [rng.randrange(26) for _ in range(4)]
        breakdown = dict(
            zip(["logical_flow", "consistency", "tool_relevance", "synthesis_quality"], parts, strict=True)
        )
        tools = rng.sample(["kubectl-logs", "prometheus-query", "get-events"], rng.randrange(3))
        verdict = stored_verdict(breakdown, tools, f"reasoning {rng.random()}")
        assert repo.complete(
            attempt.attempt.score_id, claim.claim_token, criteria, verdict, PromptStats(False, None, None)
        )
    answers: list[tuple[Any, ...]] = []
    for session_id in SESSIONS:
        for record in (repo.latest(session_id), repo.active_or_latest_completed(session_id)):
            if record is None:
                answers.append((session_id, None))
                continue
            answers.append(
                (
                    session_id,
                    record.status,
                    record.criteria_hash,
                    record.total_score,
                    record.score_breakdown,
                    record.score_reasoning,
                    [(t.tool_name, t.canonical_name) for t in record.missing_tools],
                    None if record.facts is None else replace(record.facts, captured_at=None),
                )
            )
    return answers


def read_models(engine: Engine) -> dict[str, list[Any]]:
    """The read models' rows a verdict keeps, without ids and times, in a fixed order."""
    queries = {
        "latest_scores": "SELECT session_id, criteria_hash, total_score, dimensions::text FROM latest_scores",
        "latest_score_counts": "SELECT * FROM latest_score_counts",
        "trend_dimension_sums": "SELECT * FROM trend_dimension_sums",
        "comparison_cells": "SELECT * FROM comparison_cells",
        "score_dimensions": "SELECT dimension_key, points, max_points FROM score_dimensions",
    }
    with engine.connect() as conn:
        return {
            name: sorted(json.dumps(list(row), default=str) for row in conn.execute(text(sql)))
            for name, sql in queries.items()
        }


def test_with_or_without_the_routines_the_same_scores_are_stored_and_read(
    two_databases: tuple[Engine, Engine], json_logs: io.StringIO
) -> None:
    with_routines, without = two_databases

    answers = [score_sessions(ScoreRepository(engine), seed=11) for engine in (with_routines, without)]

    assert answers[0] == answers[1]
    assert any(answer[1:2] != (None,) for answer in answers[0])
    assert read_models(with_routines) == read_models(without)
    assert read_models(with_routines)["latest_scores"], "the verdicts moved the read models"
    missing = [json.loads(line) for line in json_logs.getvalue().splitlines() if "routine is missing" in line]
    # Only the database without them, and once per routine, not once per call.
    assert sorted(line["routine"] for line in missing) == sorted(
        routine().name for routine in (verdict_routine, latest_routine, active_or_completed_routine)
    )


def functions_named(engine: Engine, prefix: str) -> list[str]:
    with engine.connect() as conn:
        return sorted(
            str(name)
            for name in conn.execute(
                text("SELECT proname FROM pg_proc WHERE proname LIKE :pattern"), {"pattern": f"{prefix}%"}
            ).scalars()
        )


def test_the_migrations_install_this_releases_routines_and_drop_another_releases(postgres_url: str) -> None:
    with scratch_database(postgres_url, "rtninst") as url:
        engine = create_engine(url)
        try:
            migrate.upgrade(engine, Settings())
            with engine.begin() as conn:  # a routine an earlier release installed, with another body and signature
                conn.execute(
                    text(
                        f"CREATE FUNCTION {VERDICT_ROUTINE_PREFIX}_0123456789abcdef(p_score_id uuid) "
                        "RETURNS SETOF uuid LANGUAGE sql AS 'SELECT p_score_id'"
                    )
                )
            migrate.upgrade(engine, Settings(), then=install_routines)
            migrate.upgrade(engine, Settings(), then=install_routines)  # again: nothing changes, nothing fails

            assert functions_named(engine, VERDICT_ROUTINE_PREFIX) == [verdict_routine().name]
            assert functions_named(engine, latest_routine().prefix) == [latest_routine().name]
        finally:
            engine.dispose()
