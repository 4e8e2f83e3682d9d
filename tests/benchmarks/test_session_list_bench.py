"""The sessions list's scored pages (``GET /sessions?scored=...&band=...&sort=score_*``) at scale.

Loads ``BENCH_SCALE`` scored sessions (20,000 by default; ``BENCH_SCALE=1000000`` for the million-score goals) into a
database of its own: one completed attempt each with its session facts, its ``latest_scores`` rows (current
criteria and any) and the band counters, as the verdict statement keeps them; then times pages through the service
and prints each page query's plan. Nothing here asserts speed.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

import pytest

from session_scoring.models.session_list import SessionListParams
from tests.benchmarks.conftest import BenchTable, report
from tests.benchmarks.test_paths_bench import (
    SCALE,
    _capturing,
    _explain,
    bench_container,
    migrated_database,
    pg_connect,
    timed,
)

pytestmark = pytest.mark.benchmark
RUNS = 5
BAND = (
    "CASE WHEN (i * 37) %% 101 < 45 THEN 'failed' WHEN (i * 37) %% 101 < 60 THEN 'weak' "
    "WHEN (i * 37) %% 101 < 75 THEN 'adequate' WHEN (i * 37) %% 101 < 90 THEN 'good' ELSE 'near_perfect' END"
)


def _load(cur: Any, scale: int, criteria: str) -> None:
    cur.execute(
        "INSERT INTO scoring_criteria_definitions (criteria_hash, criteria_content) VALUES (%s, '{}')", (criteria,)
    )
    cur.execute(
        """
        INSERT INTO session_scores (score_id, session_id, criteria_hash, status, total_score, scored_triggered_by,
                                    scored_at, session_agent, session_alert_type, session_started_at,
                                    session_ended_at, session_source, facts_captured_at)
        SELECT md5('score' || i)::uuid, 'bench-' || i, %s, 'completed', (i * 37) %% 101, 'bench',
               now() - make_interval(secs => %s - i), 'KubernetesAgent', 'PodOOMKilled',
               now() - make_interval(secs => %s - i + 600), now() - make_interval(secs => %s - i + 60), 'file', now()
        FROM generate_series(1, %s) AS i
        """,
        (criteria, scale, scale, scale, scale),
    )
    for key in (criteria, "*"):
        cur.execute(
            f"""
            INSERT INTO latest_scores (session_id, criteria_hash, score_id, total_score, band, scored_at)
            SELECT 'bench-' || i, %s, md5('score' || i)::uuid, (i * 37) %% 101, {BAND},
                   now() - make_interval(secs => %s - i)
            FROM generate_series(1, %s) AS i
            """,
            (key, scale, scale),
        )
        cur.execute(
            "INSERT INTO latest_score_counts (criteria_hash, kind, name, sessions) "
            "SELECT criteria_hash, 'band', band, count(*) FROM latest_scores WHERE criteria_hash = %s GROUP BY 1, 3",
            (key,),
        )
    cur.execute("VACUUM ANALYZE")


def test_scored_session_pages_at_scale(
    postgres_url: str, bench_table: BenchTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = migrated_database(postgres_url, "bench_sessions")
    container = bench_container(monkeypatch, url)
    conn = pg_connect(url)
    started = time.perf_counter()
    _load(conn.cursor(), SCALE, container.config.criteria_hash)
    report(f"\nloaded {SCALE:,} scored sessions in {time.perf_counter() - started:.0f} s")
    conn.close()
    scale = f"{SCALE:,} scored sessions"
    service = container.session_list_service
    deep = max(1, min(500, SCALE // 20))

    for name, params in (
        ("GET /sessions scored=scored (newest score first)", SessionListParams(scored="scored")),
        ("GET /sessions sort=score_desc criteria=current", SessionListParams(sort="score_desc", criteria="current")),
        ("GET /sessions band=good sort=score_asc", SessionListParams(bands=("good",), sort="score_asc")),
        (
            "GET /sessions band=failed&band=good sort=score_desc",
            SessionListParams(bands=("failed", "good"), sort="score_desc"),
        ),
        (f"GET /sessions sort=score_desc page={deep}", SessionListParams(sort="score_desc", page=deep)),
    ):

        def call(p: SessionListParams = params) -> Any:
            return service.list_sessions(p)

        call()
        with _capturing(container.query_engine) as statements:
            call()
        figures = timed(RUNS, call)
        report(f"\nEXPLAIN (ANALYZE, BUFFERS) of {name} at {scale}:\n{_explain(container.query_engine, statements)}")
        bench_table.add(f"{name} ({scale})", statistics.median(figures), "ms", None, "<= 100 ms", f"median of {RUNS}")
    container.query_engine.dispose()
    container.engine.dispose()
