"""The Alembic revisions apply, roll back (dropping every table) and apply again on a fresh database, and they build
exactly the tables db/schema.py declares."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import CheckConstraint, Engine, create_engine, inspect, text

from session_scoring.configuration.settings import Settings
from session_scoring.db.schema import metadata
from session_scoring.infrastructure import migrate
from tests.support.databases import scratch_database

TABLES = {
    "score_writebacks",
    "scoring_criteria_definitions",
    "session_scores",
    "score_missing_tools",
    "score_alternative_approaches",
    "score_alternative_approach_steps",
    "uploaded_sessions",
    "scoring_runs",
    "latest_scores",
    "latest_tool_counts",
    "latest_score_counts",
    "latest_score_tools",
    "judge_labels",
    "export_jobs",
    "trend_members",
    "trend_histograms",
    "trend_dimension_sums",
    "comparison_pairs",
    "comparison_cells",
    "session_references",
    "outcome_counts",
    "score_dimensions",
    "score_failure_tags",
}


@pytest.fixture
def fresh_engine(postgres_url: str) -> Iterator[Engine]:
    with scratch_database(postgres_url, "migr") as url:
        engine = create_engine(url)
        try:
            yield engine
        finally:
            engine.dispose()


def tables(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names()) - {"alembic_version"}


def test_upgrade_downgrade_upgrade(fresh_engine: Engine) -> None:
    settings = Settings()
    migrate.upgrade(fresh_engine, settings)
    assert tables(fresh_engine) == TABLES
    from tests.support.migrations import head_revision

    assert migrate.current_revision(fresh_engine) == head_revision()
    indexes = {i["name"] for i in inspect(fresh_engine).get_indexes("session_scores")}
    assert {
        "uq_session_scores_one_active_attempt",
        "ix_session_scores_total_score",
        "ix_session_scores_latest_completed",
        "ix_session_scores_latest_completed_by_criteria",
    } <= indexes

    migrate.downgrade(fresh_engine, settings, "0001_scoring_tables")
    indexes = {i["name"] for i in inspect(fresh_engine).get_indexes("session_scores")}
    assert "ix_session_scores_latest_completed" not in indexes
    assert "uq_session_scores_one_active_attempt" in indexes

    migrate.downgrade(fresh_engine, settings, "base")
    assert tables(fresh_engine) == set()

    migrate.upgrade(fresh_engine, settings)
    assert tables(fresh_engine) == TABLES


def test_database_enforces_score_range_and_one_active_attempt(fresh_engine: Engine) -> None:
    migrate.upgrade(fresh_engine, Settings())
    insert_criteria = text(
        "INSERT INTO scoring_criteria_definitions (criteria_hash, criteria_content) VALUES ('h', '{}')"
    )
    insert_attempt = text(
        "INSERT INTO session_scores (score_id, session_id, criteria_hash, status, total_score, scored_triggered_by) "
        "VALUES (:id, 's', 'h', :status, :score, 'test')"
    )
    with fresh_engine.begin() as conn:
        conn.execute(insert_criteria)
        conn.execute(insert_attempt, {"id": uuid.uuid4(), "status": "completed", "score": 80})
        conn.execute(insert_attempt, {"id": uuid.uuid4(), "status": "pending", "score": None})
    with pytest.raises(Exception, match="uq_session_scores_one_active_attempt"), fresh_engine.begin() as conn:
        conn.execute(insert_attempt, {"id": uuid.uuid4(), "status": "in_progress", "score": None})
    with pytest.raises(Exception, match="ck_session_scores_total_score_range"), fresh_engine.begin() as conn:
        conn.execute(insert_attempt, {"id": uuid.uuid4(), "status": "completed", "score": 101})
    with pytest.raises(Exception, match="ck_session_scores_completed_has_score"), fresh_engine.begin() as conn:
        conn.execute(insert_attempt, {"id": uuid.uuid4(), "status": "completed", "score": None})


def test_the_migrations_build_exactly_the_table_schema(fresh_engine: Engine) -> None:
    """Alembic's autogenerate finds nothing to add: a column, index or constraint added to db/schema.py without a
    migration (or the other way round) fails here, naming it."""
    migrate.upgrade(fresh_engine, Settings())
    with fresh_engine.connect() as conn:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True, "include_schemas": False}
        )
        diff = compare_metadata(context, metadata)
    assert diff == [], "db/schema.py and migrations/versions differ; add a migration:\n" + "\n".join(map(str, diff))


def test_the_migrations_create_the_check_constraints_the_schema_declares(fresh_engine: Engine) -> None:
    """Autogenerate does not compare check constraints; their names at least must match."""
    migrate.upgrade(fresh_engine, Settings())
    inspector = inspect(fresh_engine)
    for table in metadata.sorted_tables:
        declared = {c.name for c in table.constraints if isinstance(c, CheckConstraint)}
        created = {c["name"] for c in inspector.get_check_constraints(table.name)}
        assert created == declared, f"check constraints of {table.name}"
