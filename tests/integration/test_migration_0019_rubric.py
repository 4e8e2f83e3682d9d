"""Migration 0019_rubric on a database of the previous release holding 2,000 scores (two criteria, so comparisons),
labels and a scoring run: the upgrade moves every score's dimensions into the per-dimension store and changes
nothing else, the per-dimension figures are identical before and after, the default criteria keep their hash, and
``downgrade -1`` gives back the database exactly as it was."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, create_engine, inspect, text

from devstack.seed import seed
from session_scoring.configuration.settings import Settings
from session_scoring.infrastructure import migrate
from tests.support.databases import scratch_database
from tests.unit.configuration.test_rubric import MAIN_HASH_HEURISTIC

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
PREVIOUS = "0018_outcome"
SCORES = 2_000
SEEDED = 250
"""Scores written by the scorer's own statement (with every read model); the rest are earlier attempts copied from
them by SQL, to reach :data:`SCORES` in seconds rather than minutes."""


def _previous_tables(engine: Engine) -> dict[str, list[str]]:
    """Every table of the previous release with its columns (at that revision)."""
    names = set(inspect(engine).get_table_names()) - {"alembic_version"}
    return {name: [c["name"] for c in inspect(engine).get_columns(name)] for name in sorted(names)}


def _snapshot(engine: Engine, tables: dict[str, list[str]]) -> dict[str, tuple[int, str]]:
    """Each table's row count and a digest of every row's values in the previous release's columns."""
    result: dict[str, tuple[int, str]] = {}
    with engine.connect() as conn:
        for table, columns in tables.items():
            row = ", ".join(f'"{c}"' for c in columns)
            count, digest = conn.execute(
                text(
                    f"SELECT count(*), md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), '')) "
                    f"FROM (SELECT ROW({row}) AS r FROM {table}) AS t"
                )
            ).one()
            result[table] = (count, digest)
    return result


def _dimension_figures(engine: Engine) -> dict[tuple[str, str], tuple[int, int]]:
    """Per criteria and dimension: how many completed scores have it and the sum of its points, from the breakdowns."""
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT s.criteria_hash, d.key, count(*), sum((d.value #>> '{}')::integer) FROM session_scores s "
                "CROSS JOIN LATERAL jsonb_each(s.score_breakdown) d WHERE s.status = 'completed' "
                "AND s.sample_kind IS NULL GROUP BY 1, 2"
            )
        ).all()
    return {(r[0], r[1]): (r[2], r[3]) for r in rows}


def _stored_dimension_figures(engine: Engine) -> dict[tuple[str, str], tuple[int, int]]:
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT s.criteria_hash, d.dimension_key, count(*), sum(d.points) FROM score_dimensions d "
                "JOIN session_scores s USING (score_id) GROUP BY 1, 2"
            )
        ).all()
    return {(r[0], r[1]): (r[2], r[3]) for r in rows}


def _earlier_attempts(engine: Engine, count: int) -> None:
    """``count`` more completed attempts, each a copy of a seeded one made a day earlier (never the latest)."""
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO session_scores SELECT (jsonb_populate_record(NULL::session_scores, to_jsonb(s) || "
                "jsonb_build_object('score_id', gen_random_uuid(), 'requested_at', s.requested_at - n * interval "
                "'1 day', 'scored_at', s.scored_at - n * interval '1 day'))).* FROM session_scores s "
                "CROSS JOIN generate_series(1, 10) AS n ORDER BY n, s.score_id LIMIT :count"
            ),
            {"count": count},
        )


def _labels_and_a_run(engine: Engine) -> None:
    with engine.begin() as conn:
        sessions = [r[0] for r in conn.execute(text("SELECT DISTINCT session_id FROM session_scores LIMIT 40"))]
        for number, session_id in enumerate(sessions):
            conn.execute(
                text(
                    "INSERT INTO judge_labels (label_id, session_id, labeller, revision, total_score, "
                    "score_breakdown, band) VALUES (:id, :s, 'ann', 1, 40, CAST(:b AS jsonb), 'failed')"
                ),
                {
                    "id": uuid.uuid4(),
                    "s": session_id,
                    "b": json.dumps(
                        {
                            "logical_flow": 10,
                            "consistency": 10,
                            "tool_relevance": number % 11,
                            "synthesis_quality": 20 - number % 11,
                        }
                    ),
                },
            )
        run_id = uuid.uuid4()
        conn.execute(
            text(
                "INSERT INTO scoring_runs (run_id, name, status, selection, max_sessions, criteria_hash, judge_model, "
                "started_by) SELECT :id, 'nightly', 'completed', '{}'::jsonb, 100, criteria_hash, 'm', 'ann' "
                "FROM session_scores LIMIT 1"
            ),
            {"id": run_id},
        )
        conn.execute(
            text(
                "UPDATE session_scores SET run_id = :id WHERE score_id IN (SELECT DISTINCT ON (session_id) score_id "
                "FROM session_scores ORDER BY session_id, score_id LIMIT 100)"
            ),
            {"id": run_id},
        )


def previous_release(engine: Engine, url: str, make_stack: Any, revision: str) -> None:
    """Fill the empty database at ``url`` as a deployment of the release at ``revision`` would be: :data:`SCORES`
    scores of two criteria (the scorer's statement keeps every read model), labels and a run; then downgrade it."""
    settings = Settings()
    migrate.upgrade(engine, settings)
    # main's offline judge (heuristic-rules-v3), so the seeded scores carry main's criteria hash
    stack = make_stack(SCORING_DATABASE_URL=url, SCORING_LLM_MODEL="heuristic-rules-v3")
    assert seed(stack.container, SEEDED, weeks=6, now=NOW).scores == SEEDED
    _earlier_attempts(engine, SCORES - SEEDED)
    assert stack.container.config.criteria_hash == MAIN_HASH_HEURISTIC  # the default rubric's hash
    _labels_and_a_run(engine)
    stack.container.engine.dispose()
    migrate.downgrade(engine, settings, revision)


def test_the_upgrade_moves_every_dimension_and_the_downgrade_gives_the_database_back(
    postgres_url: str, make_stack: Any
) -> None:
    settings = Settings()
    with scratch_database(postgres_url, "rubric") as url:
        engine = create_engine(url)
        try:
            previous_release(engine, url, make_stack, PREVIOUS)
            tables = _previous_tables(engine)
            assert {"comparison_pairs", "comparison_cells", "judge_labels", "scoring_runs"} <= set(tables)
            before = _snapshot(engine, tables)
            assert before["session_scores"][0] == SCORES
            assert before["comparison_pairs"][0] > 0
            figures = _dimension_figures(engine)

            migrate.upgrade(engine, settings, "0019_rubric")

            assert _snapshot(engine, tables) == before  # nothing of the previous release lost or changed
            assert _stored_dimension_figures(engine) == figures  # every score's dimensions, identical figures
            with engine.connect() as conn:
                maxima = conn.execute(text("SELECT DISTINCT max_points FROM score_dimensions")).scalars().all()
                hashes = set(conn.execute(text("SELECT criteria_hash FROM scoring_criteria_definitions")).scalars())
            assert maxima == [25]
            assert MAIN_HASH_HEURISTIC in hashes
            assert sum(n for n, _ in figures.values()) == 4 * SCORES

            migrate.downgrade(engine, settings, "-1")

            assert migrate.current_revision(engine) == PREVIOUS
            assert _snapshot(engine, tables) == before
            assert _previous_tables(engine) == tables
        finally:
            engine.dispose()
