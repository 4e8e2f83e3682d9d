"""Migration 0021_dimension_maps on a database of the previous release holding 2,000 scores (two criteria, so
comparisons), labels and a scoring run: the upgrade moves the read models' four dimension columns into maps and the
per-dimension sums table, every per-dimension figure is the same before and after (and the same as a rebuild by
today's code), the default criteria keep their hash, and ``downgrade -1`` gives back every value of the previous
release."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, text

from session_scoring.configuration.settings import Settings
from session_scoring.infrastructure import migrate
from session_scoring.repositories.comparison import ComparisonRepository
from tests.integration.test_migration_0019_rubric import SCORES, _previous_tables, _snapshot, previous_release
from tests.support.databases import scratch_database
from tests.unit.configuration.test_rubric import MAIN_HASH_HEURISTIC

PREVIOUS = "0020_masking"
FOUR = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")

Figures = dict[str, dict[tuple[Any, ...], tuple[int, int]]]


def _figures_before(engine: Engine) -> Figures:
    """Per read model and key, each dimension's sum of points and count, from the previous release's columns."""
    latest = " UNION ALL ".join(
        f"SELECT criteria_hash, '{d}', sum({d}), count({d}) FROM latest_scores GROUP BY 1" for d in FOUR
    )
    members = latest.replace("latest_scores", "trend_members")
    histogram_key = "criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value"
    histograms = " UNION ALL ".join(
        f"SELECT {histogram_key}, '{d}', {d}_sum, {d}_n FROM trend_histograms WHERE {d}_n <> 0" for d in FOUR
    )
    cells = (
        "SELECT low_hash, high_hash, kind, a, b, sessions, 0 FROM comparison_cells "
        "WHERE kind NOT IN ('total', 'ref_total') AND sessions <> 0"
    )
    return _read(engine, {"latest": latest, "members": members, "histograms": histograms, "cells": cells})


def _figures_after(engine: Engine) -> Figures:
    """The same figures from the maps, the sums table and the ``dim:`` kinds."""
    latest = (
        "SELECT criteria_hash, d.key, sum(d.value::integer), count(*) FROM latest_scores "
        "CROSS JOIN LATERAL jsonb_each_text(dimensions) AS d GROUP BY 1, 2"
    )
    members = latest.replace("latest_scores", "trend_members")
    histograms = (
        "SELECT criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value, dimension_key, points, "
        "sessions FROM trend_dimension_sums WHERE sessions <> 0"
    )
    cells = (
        "SELECT low_hash, high_hash, replace(kind, 'dim:', ''), a, b, sessions, 0 FROM comparison_cells "
        "WHERE kind NOT IN ('total', 'ref_total') AND sessions <> 0"
    )
    return _read(engine, {"latest": latest, "members": members, "histograms": histograms, "cells": cells})


def _read(engine: Engine, statements: dict[str, str]) -> Figures:
    with engine.connect() as conn:
        return {
            name: {tuple(row[:-2]): (int(row[-2]), int(row[-1])) for row in conn.execute(text(sql))}
            for name, sql in statements.items()
        }


CHANGED = ("latest_scores", "trend_members", "trend_histograms", "comparison_cells")


def test_the_upgrade_moves_every_dimension_value_and_the_downgrade_gives_them_back(
    postgres_url: str, make_stack: Any
) -> None:
    settings = Settings()
    with scratch_database(postgres_url, "dimension_maps") as url:
        engine = create_engine(url)
        try:
            previous_release(engine, url, make_stack, PREVIOUS)
            tables = _previous_tables(engine)
            before = _snapshot(engine, tables)
            figures = _figures_before(engine)
            assert before["session_scores"][0] == SCORES
            assert all(figures.values())  # every read model holds dimensions, comparison cells included
            others = {table: columns for table, columns in tables.items() if table not in CHANGED}

            migrate.upgrade(engine, settings, "0021_dimension_maps")

            assert _figures_after(engine) == figures  # every dimension value moved, none changed
            assert _snapshot(engine, others) == {table: before[table] for table in others}
            with engine.connect() as conn:
                hashes = set(conn.execute(text("SELECT criteria_hash FROM scoring_criteria_definitions")).scalars())
            assert MAIN_HASH_HEURISTIC in hashes

            migrate.downgrade(engine, settings, "-1")

            assert migrate.current_revision(engine) == PREVIOUS
            assert _snapshot(engine, tables) == before  # every value of the previous release
            restored = _previous_tables(engine)
            # the same columns (those the downgrade restores come last)
            assert {t: sorted(c) for t, c in restored.items()} == {t: sorted(c) for t, c in tables.items()}

            # Upgraded again, today's code derives from latest_scores the same rows the migration moved.
            migrate.upgrade(engine, settings)
            rebuilt = make_stack(SCORING_DATABASE_URL=url, SCORING_LLM_MODEL="heuristic-rules-v3")
            rebuilt.container.trends_repository.rebuild()
            ComparisonRepository(rebuilt.container.query_engine).rebuild()
            rebuilt.container.engine.dispose()
            assert _figures_after(engine) == figures
        finally:
            engine.dispose()
