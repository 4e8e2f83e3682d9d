"""The fleet query (``GET /scores``) and the training export's selection at scale (issue 12).

Loads ``BENCH_SCALE`` completed scores (20,000 by default; ``BENCH_SCALE=1000000`` for the issue's million) with
session facts into a database of its own — 0.8 x scale sessions (a fifth re-scored), a tenth under older criteria,
three agents, a missing tool on one score in ten — then times one JSON page (50 rows) of the common queries through
the service, a page deep in the keyset, and 10,000 rows streamed as CSV, and prints the plan of each page query.
Nothing here asserts speed.
"""

from __future__ import annotations

import json
import statistics
import time
import uuid
from typing import Any

import pytest
from sqlalchemy import make_url

from session_scoring.models.api import FleetScorePage
from session_scoring.services.insights import FleetParams, StreamedRows
from tests.benchmarks.conftest import BenchTable
from tests.benchmarks.test_paths_bench import SCALE, _capturing, _explain, pg_connect, timed

pytestmark = pytest.mark.benchmark
RUNS = 5


def _load(cur: Any, scale: int, criteria: str, other: str) -> None:
    sessions = max(1, int(scale * 0.8))
    cur.execute(
        "INSERT INTO scoring_criteria_definitions (criteria_hash, criteria_content) VALUES (%s, %s), (%s, %s) "
        "ON CONFLICT DO NOTHING",
        (criteria, json.dumps({"scoring": {}}), other, json.dumps({"scoring": {}})),
    )
    cur.execute(
        """
        INSERT INTO session_scores (score_id, session_id, criteria_hash, status, total_score, score_breakdown,
                                    scored_triggered_by, requested_at, started_at, scored_at, judge_provider,
                                    session_agent, session_alert_type, session_started_at, session_ended_at,
                                    session_stages, session_tool_calls, session_source, facts_captured_at)
        SELECT md5('score' || i)::uuid, 'bench-' || (i %% %s), CASE WHEN i %% 10 = 0 THEN %s ELSE %s END,
               'completed', (i * 37) %% 101,
               jsonb_build_object('logical_flow', ((i * 37) %% 101) / 4, 'consistency', (i %% 26),
                                  'tool_relevance', ((i * 37) %% 101) / 4, 'synthesis_quality', (i %% 26)),
               'bench', now() - make_interval(secs => %s - i), now() - make_interval(secs => %s - i),
               now() - make_interval(secs => %s - i), 'heuristic',
               (ARRAY['KubernetesAgent', 'NetworkAgent', 'DatabaseAgent'])[1 + i %% 3], 'PodOOMKilled',
               now() - make_interval(secs => %s - i + 600), now() - make_interval(secs => %s - i + 60),
               3, 12, 'file', now()
        FROM generate_series(1, %s) AS i
        """,
        (sessions, other, criteria, scale, scale, scale, scale, scale, scale),
    )
    cur.execute(
        """
        INSERT INTO score_missing_tools (id, score_id, position, tool_name, rationale)
        SELECT md5('tool' || i)::uuid, md5('score' || i)::uuid, 0, 'kubectl-top', 'needed'
        FROM generate_series(1, %s) AS i WHERE i %% 10 = 3
        """,
        (scale,),
    )
    cur.execute("VACUUM ANALYZE")


def test_fleet_query_at_scale(postgres_url: str, bench_table: BenchTable, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy import create_engine

    from session_scoring.configuration.settings import Settings
    from session_scoring.container import Container
    from session_scoring.infrastructure import migrate

    database = f"bench_fleet_{uuid.uuid4().hex[:6]}"
    admin = pg_connect(postgres_url)
    admin.cursor().execute(f'CREATE DATABASE "{database}"')
    admin.close()
    url = make_url(postgres_url).set(database=database).render_as_string(hide_password=False)
    engine = create_engine(url)
    migrate.upgrade(engine, Settings())
    engine.dispose()
    monkeypatch.setenv("SCORING_DATABASE_URL", url)
    monkeypatch.setenv("SCORING_SESSIONS_DIR", "config/sample_sessions")
    container = Container(Settings())
    criteria = container.config.criteria_hash
    conn = pg_connect(url)
    started = time.perf_counter()
    _load(conn.cursor(), SCALE, criteria, "0" * 64)
    print(f"\nloaded {SCALE:,} completed scores with session facts in {time.perf_counter() - started:.0f} s")
    conn.close()
    scale = f"{SCALE:,} scores"
    service = container.insights_service
    deep_cursor = None
    for _ in range(10):  # the cursor after ten pages of 500: the timed page is rows 5,001-5,050
        page = service.fleet(FleetParams(sort="total_score", limit=500, cursor=deep_cursor))
        assert isinstance(page, FleetScorePage)
        deep_cursor = page.next_cursor

    for name, params in (
        ("GET /scores default page (latest, current, newest)", FleetParams()),
        ("GET /scores min_score=80 sort=total_score asc", FleetParams(min_score=80, sort="total_score", order="asc")),
        (
            "GET /scores agent=NetworkAgent sort=session_started_at",
            FleetParams(agent="NetworkAgent", sort="session_started_at"),
        ),
        ("GET /scores missing_tool=kubectl-top", FleetParams(missing_tool="kubectl-top")),
        ("GET /scores sort=consistency (a dimension)", FleetParams(sort="consistency")),
        ("GET /scores criteria=any band=failed", FleetParams(criteria_hash="any", band="failed")),
        ("GET /scores page after 5,000 rows (keyset)", FleetParams(sort="total_score", cursor=deep_cursor)),
    ):

        def call(p: FleetParams = params) -> Any:
            return service.fleet(p)

        call()
        with _capturing(container.query_engine) as statements:
            call()
        figures = timed(RUNS, call)
        print(f"\nEXPLAIN (ANALYZE, BUFFERS) of {name} at {scale}:\n{_explain(container.query_engine, statements)}")
        bench_table.add(f"{name} ({scale})", statistics.median(figures), "ms", None, "<= 100 ms", f"median of {RUNS}")

    def stream() -> int:
        rows = service.fleet(FleetParams(format="csv", limit=10_000))
        assert isinstance(rows, StreamedRows)
        return sum(len(chunk) for chunk in rows.chunks)

    size = stream()
    figures = timed(3, stream)
    bench_table.add(
        f"GET /scores format=csv, 10,000 rows ({scale})",
        statistics.median(figures),
        "ms",
        None,
        "",
        f"median of 3, {size / 1e6:.1f} MB",
    )
    container.query_engine.dispose()
    container.engine.dispose()
