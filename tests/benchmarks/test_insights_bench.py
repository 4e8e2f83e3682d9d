"""The fleet query (``GET /scores``) and the training export's selection at scale (docs/performance.md).

Loads ``BENCH_SCALE`` completed scores (20,000 by default; ``BENCH_SCALE=1000000`` for the million-score goals) with
session facts into a database of its own — 0.8 x scale sessions (a fifth re-scored), a tenth under older criteria,
three agents, a missing tool on one score in ten — then times one JSON page (50 rows) of the common queries through
the service, a page deep in the keyset, and 10,000 rows streamed as CSV, and prints the plan of each page query.
Nothing here asserts speed.
"""

from __future__ import annotations

import importlib.util
import json
import statistics
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import text

from session_scoring.models.api import FleetScorePage
from session_scoring.models.insights import FleetParams
from session_scoring.models.tools import canonical_tool_name
from session_scoring.services.analytics import bucket_starts
from session_scoring.services.insights import StreamedRows
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
from tests.conftest import ROOT
from tests.support.trends_oracle import scanned_trends

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
    # With its canonical name, as the verdict statement stores it (a NULL one, as written by hand, left the planner
    # without statistics for the missing_tool filter: it read all 100,000 scores naming the tool, 3.1 s at 1M).
    cur.execute(
        """
        INSERT INTO score_missing_tools (id, score_id, position, tool_name, canonical_name, rationale)
        SELECT md5('tool' || i)::uuid, md5('score' || i)::uuid, 0, 'kubectl-top', %s, 'needed'
        FROM generate_series(1, %s) AS i WHERE i %% 10 = 3
        """,
        (canonical_tool_name("kubectl-top"), scale),
    )
    cur.execute("VACUUM ANALYZE")


def test_fleet_query_at_scale(postgres_url: str, bench_table: BenchTable, monkeypatch: pytest.MonkeyPatch) -> None:
    url = migrated_database(postgres_url, "bench_fleet")
    container = bench_container(monkeypatch, url)
    criteria = container.config.criteria_hash
    conn = pg_connect(url)
    started = time.perf_counter()
    _load(conn.cursor(), SCALE, criteria, "0" * 64)
    report(f"\nloaded {SCALE:,} completed scores with session facts in {time.perf_counter() - started:.0f} s")
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
        report(f"\nEXPLAIN (ANALYZE, BUFFERS) of {name} at {scale}:\n{_explain(container.query_engine, statements)}")
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


# ---------------------------------------------------------------- missing tools by canonical name (tools-canonical)

TOOL_SPELLINGS = ("k8s.Tool_{n}", "mcp__k8s__tool_{n}", "tool_{n}")


def _load_tools(cur: Any, scale: int, criteria: str, other: str) -> None:
    """``scale`` completed scores over 0.8 x ``scale`` sessions (a tenth under older criteria), stored over the
    last 180 days, three agents, two missing tools each out of 300, each tool written three ways; then each
    session's latest rows as migration 0006 builds them (its own SQL), ready for 0011's backfill."""
    sessions = max(1, int(scale * 0.8))
    cur.execute(
        "INSERT INTO scoring_criteria_definitions (criteria_hash, criteria_content) VALUES (%s, %s), (%s, %s) "
        "ON CONFLICT DO NOTHING",
        (criteria, json.dumps({"scoring": {}}), other, json.dumps({"scoring": {}})),
    )
    cur.execute(
        """
        INSERT INTO session_scores (score_id, session_id, criteria_hash, status, total_score, score_breakdown,
                                    scored_triggered_by, requested_at, started_at, scored_at, session_agent)
        SELECT md5('score' || i)::uuid, 'bench-' || (i %% %s), CASE WHEN i %% 10 = 0 THEN %s ELSE %s END,
               'completed', (i * 37) %% 101, '{"logical_flow": 10}', 'bench',
               now() - make_interval(secs => (%s - i) * 15552000.0 / %s), now(),
               now() - make_interval(secs => (%s - i) * 15552000.0 / %s),
               (ARRAY['KubernetesAgent', 'NetworkAgent', 'DatabaseAgent'])[1 + i %% 3]
        FROM generate_series(1, %s) AS i
        """,
        (sessions, other, criteria, scale, scale, scale, scale, scale),
    )
    spellings = "ARRAY[" + ", ".join(f"'{s.replace('{n}', '')}'" for s in TOOL_SPELLINGS) + "]"
    cur.execute(
        f"""
        INSERT INTO score_missing_tools (id, score_id, position, tool_name, rationale)
        SELECT md5('tool' || i || '-' || k)::uuid, md5('score' || i)::uuid, k,
               ({spellings})[1 + (i + k) %% 3] || ((i * (k + 7) * 31) %% 300), 'needed'
        FROM generate_series(1, %s) AS i, generate_series(0, 1) AS k
        """,
        (scale,),
    )
    migration = importlib.util.spec_from_file_location(
        "latest_0006", ROOT / "migrations" / "versions" / "0006_latest_scores.py"
    )
    assert migration is not None
    assert migration.loader is not None
    module = importlib.util.module_from_spec(migration)
    migration.loader.exec_module(module)
    cur.execute(module.BACKFILL_LATEST)
    cur.execute(module.BACKFILL_ANY_CRITERIA)


def test_missing_tools_by_canonical_name_at_scale(
    postgres_url: str, bench_table: BenchTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine

    from session_scoring.configuration.settings import Settings
    from session_scoring.infrastructure import migrate

    before = ScriptDirectory.from_config(migrate.alembic_config(Settings())).get_revision("0011_canonical_tools")
    url = migrated_database(postgres_url, "bench_tools", str(before.down_revision))
    engine = create_engine(url)
    container = bench_container(monkeypatch, url)
    criteria = container.config.criteria_hash
    conn = pg_connect(url)
    cur = conn.cursor()
    started = time.perf_counter()
    _load_tools(cur, SCALE, criteria, "0" * 64)
    report(f"\nloaded {SCALE:,} completed scores, two missing tools each, in {time.perf_counter() - started:.0f} s")
    started = time.perf_counter()
    migrate.upgrade(engine, Settings(), "0011_canonical_tools")  # 0011 alone: the later ones are timed elsewhere
    scale = f"{SCALE:,} scores"
    bench_table.add(
        f"0011_canonical_tools backfill ({scale})", (time.perf_counter() - started) * 1000, "ms", None, "-", "once"
    )
    migrate.upgrade(engine, Settings())
    engine.dispose()
    cur.execute("VACUUM ANALYZE")
    conn.close()

    analytics = container.analytics_service
    query_engine = container.query_engine
    for name, call in (
        ("GET /analytics/missing-tools top 10, 12 weeks", lambda: analytics.missing_tools(None, 10)),
        (
            "GET /analytics/missing-tools top 20, one criteria, 104 days",
            lambda: analytics.missing_tools(criteria, 20, "day", 104),
        ),
        ("GET /analytics/missing-tools top 100, 104 weeks", lambda: analytics.missing_tools(None, 100, "week", 104)),
    ):
        answer = call()
        assert answer.items
        assert answer.items[0].spellings
        with _capturing(query_engine) as statements:
            call()
        figures = timed(RUNS, call)
        report(f"\nEXPLAIN (ANALYZE, BUFFERS) of {name} at {scale}:\n{_explain(query_engine, statements)}")
        bench_table.add(f"{name} ({scale})", statistics.median(figures), "ms", None, "<= 100 ms", f"median of {RUNS}")
    # The largest answer split: the repository (statement and driver) without the service's mapping to the API model.
    since = bucket_starts(datetime.now(UTC).date(), "week", 104)[0]
    figures = timed(RUNS, lambda: container.analytics_repository.missing_tools(None, 100, since, weekly=True))
    bench_table.add(
        f"  of which statement + driver, top 100, 104 weeks ({scale})",
        statistics.median(figures),
        "ms",
        None,
        "-",
        f"median of {RUNS}",
    )
    query_engine.dispose()
    container.engine.dispose()


# ---------------------------------------------------------------- trends and criteria comparison at scale

TREND_DAYS = 180
CANDIDATE = "c" * 64


def _load_pairs(cur: Any, scale: int, base: str, candidate: str) -> None:
    """``scale`` completed scores: every session scored once under ``base`` and once under ``candidate`` (the
    comparison's worst case: scale / 2 pairs), over 180 days, three agents, four alert types; then their
    ``latest_scores`` rows as the verdict statement leaves them (one per criteria hash, and the newer under '*'), in
    the columns of the revision it loads at (before 0012: a column per dimension, which 0021 moves into a map)."""
    sessions = max(1, scale // 2)
    cur.execute(
        "INSERT INTO scoring_criteria_definitions (criteria_hash, criteria_content) VALUES (%s, %s), (%s, %s) "
        "ON CONFLICT DO NOTHING",
        (base, json.dumps({"scoring": {}}), candidate, json.dumps({"scoring": {}})),
    )
    cur.execute(
        """
        INSERT INTO session_scores (score_id, session_id, criteria_hash, status, total_score, score_breakdown,
                                    scored_triggered_by, requested_at, started_at, scored_at, judge_provider,
                                    session_agent, session_alert_type, facts_captured_at)
        SELECT md5('pair' || i || '-' || k)::uuid, 'pair-' || i, CASE WHEN k = 0 THEN %s ELSE %s END, 'completed',
               t.total,
               jsonb_build_object('logical_flow', t.total / 4, 'consistency', (i + k) %% 26,
                                  'tool_relevance', t.total / 4, 'synthesis_quality', (i * 7 + k) %% 26),
               'bench', s.at, s.at, s.at, 'heuristic',
               (ARRAY['KubernetesAgent', 'NetworkAgent', 'DatabaseAgent'])[1 + i %% 3],
               CASE WHEN i %% 5 = 4 THEN NULL  -- a fifth without an alert type (the unknown group)
                    ELSE (ARRAY['PodOOMKilled', 'HighLatency', 'DiskFull', 'CrashLoop'])[1 + i %% 4] END,
               now()
        FROM generate_series(1, %s) AS i, generate_series(0, 1) AS k,
             LATERAL (SELECT CASE WHEN k = 0 THEN (i * 37) %% 101
                                  ELSE least(100, greatest(0, (i * 37) %% 101 + (i %% 21) - 10)) END AS total) AS t,
             LATERAL (SELECT now() - make_interval(secs => (i::bigint * 15551) %% (%s * 86400) + k * 3600) AS at) AS s
        """,
        (base, candidate, sessions, TREND_DAYS),
    )
    cur.execute(
        """
        INSERT INTO latest_scores (session_id, criteria_hash, score_id, total_score, band, logical_flow, consistency,
                                   tool_relevance, synthesis_quality, scored_at, missing_tools)
        SELECT s.session_id, c.criteria_hash, s.score_id, s.total_score,
               CASE WHEN s.total_score <= 44 THEN 'failed' WHEN s.total_score <= 59 THEN 'weak'
                    WHEN s.total_score <= 74 THEN 'adequate' WHEN s.total_score <= 89 THEN 'good'
                    ELSE 'near_perfect' END,
               (s.score_breakdown ->> 'logical_flow')::int, (s.score_breakdown ->> 'consistency')::int,
               (s.score_breakdown ->> 'tool_relevance')::int, (s.score_breakdown ->> 'synthesis_quality')::int,
               s.scored_at, '{}'
        FROM session_scores s
        CROSS JOIN LATERAL (VALUES (s.criteria_hash), ('*')) AS c(criteria_hash)
        WHERE c.criteria_hash <> '*' OR s.criteria_hash = %s  -- the base score is the newer (k = 0)
        """,
        (base,),
    )


def test_trends_and_comparison_at_scale(
    postgres_url: str, bench_table: BenchTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trends (day/week x none/agent/alert_type) and the criteria comparison over ``BENCH_SCALE`` scores: the
    histogram table and the aggregated join (after) beside the scan with ``percentile_cont`` and every pair loaded
    into Python (before)."""
    from alembic.script import ScriptDirectory
    from sqlalchemy import create_engine

    from session_scoring.configuration.settings import Settings
    from session_scoring.infrastructure import migrate
    from session_scoring.models.trends import TrendBucket, TrendGroup
    from session_scoring.services.agreement import kendall_tau_b

    # Loaded before the migration that builds the trend tables: its backfill fills them as on a deployed database.
    config = migrate.alembic_config(Settings())
    before_trends = str(ScriptDirectory.from_config(config).get_revision("0012_trend_buckets").down_revision)
    url = migrated_database(postgres_url, "bench_trends", before_trends)
    engine = create_engine(url)
    # The "before" scans run for seconds at a million: measured, not cut off by the service's 8 s timeout.
    container = bench_container(monkeypatch, url, SCORING_DATABASE_STATEMENT_TIMEOUT_MS="600000")
    base = container.config.criteria_hash
    conn = pg_connect(url)
    cur = conn.cursor()
    started = time.perf_counter()
    _load_pairs(cur, SCALE, base, CANDIDATE)
    report(f"\nloaded {SCALE:,} completed scores ({SCALE // 2:,} pairs) in {time.perf_counter() - started:.0f} s")
    scale = f"{SCALE:,} scores"
    for revision, what in (
        ("0014_session_list", "0012_trend_buckets backfill (with 0013, 0014)"),
        ("0015_trend_histograms", "0015_trend_histograms backfill"),
        (COMPARISON_MIGRATION, "0016_comparison_pairs backfill"),
        ("0021_dimension_maps", "0017-0021, 0021_dimension_maps moving the dimensions"),
    ):
        started = time.perf_counter()
        migrate.upgrade(engine, Settings(), revision)
        bench_table.add(f"{what} ({scale})", (time.perf_counter() - started) * 1000, "ms", None, "-", "once")
    migrate.upgrade(engine, Settings())
    engine.dispose()
    cur.execute("VACUUM ANALYZE")
    cur.execute("SELECT bucket, group_by, count(*) FROM trend_histograms GROUP BY 1, 2 ORDER BY 1, 2")
    report(f"\ntrend_histograms rows at {scale} (all criteria): {cur.fetchall()}")
    cur.execute("SELECT (SELECT count(*) FROM comparison_pairs), (SELECT count(*) FROM comparison_cells)")
    report("\ncomparison_pairs, comparison_cells rows at {}: {:,}, {:,}".format(scale, *cur.fetchone()))
    conn.close()

    service = container.trends_service
    query_engine = container.query_engine
    for bucket in TrendBucket:
        for group in TrendGroup:

            def after(b: TrendBucket = bucket, g: TrendGroup = group) -> Any:
                return service.trends(None, b, g)

            def before(b: TrendBucket = bucket, g: TrendGroup = group) -> Any:
                return scanned_trends(query_engine, None, b, g, None, None)

            name = f"GET /analytics/trends bucket={bucket.value} group_by={group.value}"
            with _capturing(query_engine) as statements:
                after()
            report(f"\nEXPLAIN (ANALYZE, BUFFERS) of {name} at {scale}:\n{_explain(query_engine, statements)}")
            after_ms = statistics.median(timed(RUNS, after))
            before_ms = statistics.median(timed(2, before))
            bench_table.add(f"{name} ({scale})", after_ms, "ms", None, "<= 100 ms", f"median of {RUNS}")
            bench_table.add(f"  before: percentile_cont scan ({scale})", before_ms, "ms", None, "", "median of 2")

    def compare() -> Any:
        return service.criteria_comparison(base, CANDIDATE)

    name = f"GET /analytics/criteria-comparison, {SCALE // 2:,} pairs"
    with _capturing(query_engine) as statements:
        answer = compare()
    assert answer.n == SCALE // 2
    report(f"\nEXPLAIN (ANALYZE, BUFFERS) of {name} at {scale}:\n{_explain(query_engine, statements)}")
    joined_ms = statistics.median(timed(2, lambda: _former_comparison(url, base, CANDIDATE)))
    bench_table.add(f"{name} ({scale})", statistics.median(timed(RUNS, compare)), "ms", joined_ms, "<= 100 ms", "")
    bench_table.add(f"  before: the aggregated join ({scale})", joined_ms, "ms", None, "", "median of 2")

    def flipped() -> Any:
        return service.criteria_comparison(CANDIDATE, base)

    with _capturing(query_engine) as statements:
        assert flipped().n == SCALE // 2
    report(f"\nEXPLAIN (ANALYZE, BUFFERS) of the flipped comparison at {scale}:\n{_explain(query_engine, statements)}")
    bench_table.add(
        f"{name}, base the higher hash ({scale})", statistics.median(timed(RUNS, flipped)), "ms", None, "<= 100 ms", ""
    )
    # Before: every pair loaded into Python (the former repository query; on a connection without the service's
    # statement timeout, which it exceeds at a million), then the former O(n^2) Kendall tau timed on a slice and
    # scaled by (n / slice)^2.
    conn = pg_connect(url)
    cur = conn.cursor()
    started = time.perf_counter()
    cur.execute(
        "SELECT b.session_id, b.total_score, c.total_score, b.band, c.band, b.dimensions, c.dimensions "
        "FROM latest_scores b JOIN latest_scores c ON c.session_id = b.session_id "
        "WHERE b.criteria_hash = %s AND c.criteria_hash = %s ORDER BY b.session_id",
        (base, CANDIDATE),
    )
    pairs = cur.fetchall()
    load_ms = (time.perf_counter() - started) * 1000
    conn.close()
    bench_table.add(f"  before: every pair loaded ({scale})", load_ms, "ms", None, "", f"{len(pairs):,} pairs")
    sample = 5_000
    xs = [float(p[1]) for p in pairs[:sample]]
    ys = [float(p[2]) for p in pairs[:sample]]
    started = time.perf_counter()
    kendall_tau_b(xs, ys)
    tau_ms = (time.perf_counter() - started) * 1000 * (len(pairs) / sample) ** 2
    bench_table.add(f"  before: Kendall tau O(n^2), estimated ({scale})", tau_ms, "ms", None, "", f"from {sample:,}")
    _verdict_statement_cost(container, base, scale, bench_table, monkeypatch)
    container.query_engine.dispose()
    container.engine.dispose()


COMPARISON_MIGRATION = "0016_comparison_pairs"

# The comparison as it was first computed (TrendsRepository.comparison_histograms and comparison_points, before
# migration 0016): both criteria's latest_scores rows joined per request, aggregated to histograms and movers (the
# default rubric's four dimensions read from today's maps, where they were columns then).
_FORMER_HISTOGRAMS = """
WITH pairs AS MATERIALIZED (
    SELECT b.session_id, b.total_score AS base_total, c.total_score AS candidate_total,
           (c.dimensions ->> 'logical_flow')::int - (b.dimensions ->> 'logical_flow')::int AS logical_flow,
           (c.dimensions ->> 'consistency')::int - (b.dimensions ->> 'consistency')::int AS consistency,
           (c.dimensions ->> 'tool_relevance')::int - (b.dimensions ->> 'tool_relevance')::int AS tool_relevance,
           (c.dimensions ->> 'synthesis_quality')::int - (b.dimensions ->> 'synthesis_quality')::int
               AS synthesis_quality
    FROM latest_scores b JOIN latest_scores c ON c.session_id = b.session_id AND c.criteria_hash = %s
    WHERE b.criteria_hash = %s)
SELECT 'joint', base_total, candidate_total, count(*), NULL FROM pairs GROUP BY base_total, candidate_total
UNION ALL SELECT 'logical_flow', logical_flow, NULL::int, count(*), NULL FROM pairs
          WHERE logical_flow IS NOT NULL GROUP BY logical_flow
UNION ALL SELECT 'consistency', consistency, NULL::int, count(*), NULL FROM pairs
          WHERE consistency IS NOT NULL GROUP BY consistency
UNION ALL SELECT 'tool_relevance', tool_relevance, NULL::int, count(*), NULL FROM pairs
          WHERE tool_relevance IS NOT NULL GROUP BY tool_relevance
UNION ALL SELECT 'synthesis_quality', synthesis_quality, NULL::int, count(*), NULL FROM pairs
          WHERE synthesis_quality IS NOT NULL GROUP BY synthesis_quality
UNION ALL (SELECT 'up', base_total, candidate_total, NULL::int, session_id FROM pairs
           WHERE candidate_total - base_total > 0
           ORDER BY candidate_total - base_total DESC, session_id COLLATE "C" LIMIT 10)
UNION ALL (SELECT 'down', base_total, candidate_total, NULL::int, session_id FROM pairs
           WHERE candidate_total - base_total < 0
           ORDER BY candidate_total - base_total, session_id COLLATE "C" LIMIT 10)
"""

_FORMER_POINTS = """
SELECT b.session_id, b.total_score, c.total_score FROM latest_scores b
JOIN latest_scores c ON c.session_id = b.session_id
WHERE b.criteria_hash = %s AND c.criteria_hash = %s ORDER BY b.session_id LIMIT 2000
"""


def _former_comparison(url: str, base: str, candidate: str) -> None:
    """The former comparison's two statements (the statistics computed from their rows are the same as now)."""
    conn = pg_connect(url)
    try:
        cur = conn.cursor()
        for statement, params in ((_FORMER_HISTOGRAMS, (candidate, base)), (_FORMER_POINTS, (base, candidate))):
            cur.execute(statement, params)
            cur.fetchall()
    finally:
        conn.close()


def _verdict_statement_cost(
    container: Any, criteria: str, scale: str, bench_table: BenchTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the trend, the outcome and the comparison upkeep add to storing a verdict: ``complete()`` of new attempts
    with the statement as built (after) and as built without the trends' (and the outcome counts', which follow the
    trend members), without the outcome counts' or without the comparison's upkeep (``read_models``) (before),
    interleaved, on the loaded database (last: the "before" statements leave those tables behind). Each re-scored
    session has a score under the other criteria: the comparison upkeep moves one pair."""
    from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict
    from session_scoring.models.records import PromptStats
    from session_scoring.repositories.read_models import comparison, outcomes, trends
    from session_scoring.repositories.scores import ScoreRepository

    with_upkeep = ScoreRepository(container.query_engine)
    _ = with_upkeep._verdict_routine
    with monkeypatch.context() as patch:
        patch.setattr(trends, "upkeep", lambda _done: (None, None, None))
        patch.setattr(outcomes, "upkeep", lambda _members: None)
        without_trends = ScoreRepository(container.query_engine)
        # The statement (and its routine) is built on first use: here, without the upkeep.
        _ = without_trends._store_verdict, without_trends._verdict_routine
    with monkeypatch.context() as patch:
        patch.setattr(outcomes, "upkeep", lambda _members: None)
        without_outcomes = ScoreRepository(container.query_engine)
        _ = without_outcomes._store_verdict, without_outcomes._verdict_routine
    with monkeypatch.context() as patch:
        patch.setattr(comparison, "upkeep", lambda _done, _latest: ())
        without_comparison = ScoreRepository(container.query_engine)
        _ = without_comparison._store_verdict, without_comparison._verdict_routine
    variants = {
        "all": with_upkeep,
        "no trends": without_trends,
        "no outcomes": without_outcomes,
        "no comparison": without_comparison,
    }
    # Each variant's statement as the routine a deploy would install for it (a name of its own, by its definition),
    # so that every variant is timed as the service stores a verdict.
    with container.engine.begin() as conn:
        for repo in variants.values():
            conn.execute(text(repo._verdict_routine.definition).execution_options(no_parameters=True))
    output = JudgeOutputSchema.model_validate(
        {
            "total_score": 72,
            "score_breakdown": {"logical_flow": 20, "consistency": 18, "tool_relevance": 17, "synthesis_quality": 17},
            "score_reasoning": "bench",
            "missing_tools": [{"tool_name": "kubectl-top", "rationale": "needed"}],
            "alternative_approaches": [],
            "outcome": "no_reference",
            "outcome_reason": "no reference root cause was given for this session",
        }
    )
    judged = JudgeVerdict(output=output, provider="bench", model="m")
    figures: dict[str, list[float]] = {name: [] for name in variants}
    for i in range(len(variants) * RUNS * 10):
        variant = list(variants)[i % len(variants)]
        repo = variants[variant]
        attempt = repo.create_attempt(uuid.uuid4(), f"pair-{i * 7 % 1000 + 1}", criteria, "bench")
        claim = repo.claim(attempt.attempt.score_id, 60)
        assert claim.claim_token is not None
        started = time.perf_counter()
        repo.complete(attempt.attempt.score_id, claim.claim_token, criteria, judged, PromptStats(False, None, None))
        figures[variant].append((time.perf_counter() - started) * 1000)
    after = statistics.median(figures["all"])
    for upkeep, without in (
        ("trend (with outcome)", "no trends"),
        ("outcome", "no outcomes"),
        ("comparison", "no comparison"),
    ):
        before = statistics.median(figures[without])
        bench_table.add(
            f"store a verdict (complete), {upkeep} upkeep ({scale})", after, "ms", before, "", "floor: without"
        )


# ------------------------------------------------------------------------------------------------- outcome (issue 31)

# Per session i: found (i % 10 in 0, 1), partly found (2), missed (3), no reference (the rest): 40 % judged against a
# reference, as a fleet where a benchmark's sessions sit beside everyday ones.
_OUTCOME_OF_I = (
    "CASE WHEN i %% 10 < 2 THEN 'found' WHEN i %% 10 = 2 THEN 'partly_found' WHEN i %% 10 = 3 THEN 'missed' "
    "ELSE 'no_reference' END"
)


def _load_outcomes(cur: Any, scale: int, base: str, candidate: str) -> None:
    """``scale`` completed scores with outcomes: every session scored under ``base`` and ``candidate`` (as
    ``_load_pairs``) over 180 days, three agents, four alert types (a fifth unknown), and their ``latest_scores``."""
    sessions = max(1, scale // 2)
    cur.execute(
        "INSERT INTO scoring_criteria_definitions (criteria_hash, criteria_content) VALUES (%s, %s), (%s, %s) "
        "ON CONFLICT DO NOTHING",
        (base, json.dumps({"scoring": {}}), candidate, json.dumps({"scoring": {}})),
    )
    cur.execute(
        f"""
        INSERT INTO session_scores (score_id, session_id, criteria_hash, status, total_score, score_breakdown,
                                    scored_triggered_by, requested_at, started_at, scored_at, judge_provider,
                                    session_agent, session_alert_type, facts_captured_at, outcome, outcome_reason,
                                    reference_source)
        SELECT md5('outcome' || i || '-' || k)::uuid, 'outcome-' || i, CASE WHEN k = 0 THEN %s ELSE %s END,
               'completed', t.total,
               jsonb_build_object('logical_flow', t.total / 4, 'consistency', (i + k) %% 26,
                                  'tool_relevance', t.total / 4, 'synthesis_quality', (i * 7 + k) %% 26),
               'bench', s.at, s.at, s.at, 'heuristic',
               (ARRAY['KubernetesAgent', 'NetworkAgent', 'DatabaseAgent'])[1 + i %% 3],
               CASE WHEN i %% 5 = 4 THEN NULL
                    ELSE (ARRAY['PodOOMKilled', 'HighLatency', 'DiskFull', 'CrashLoop'])[1 + i %% 4] END,
               now(), o.outcome, 'bench', CASE WHEN o.outcome = 'no_reference' THEN NULL ELSE 'import' END
        FROM generate_series(1, %s) AS i, generate_series(0, 1) AS k,
             LATERAL (SELECT CASE WHEN k = 0 THEN (i * 37) %% 101
                                  ELSE least(100, greatest(0, (i * 37) %% 101 + (i %% 21) - 10)) END AS total) AS t,
             LATERAL (SELECT now() - make_interval(secs => (i::bigint * 15551) %% (%s * 86400) + k * 3600) AS at) AS s,
             LATERAL (SELECT {_OUTCOME_OF_I} AS outcome) AS o
        """,
        (base, candidate, sessions, TREND_DAYS),
    )
    cur.execute(
        """
        INSERT INTO latest_scores (session_id, criteria_hash, score_id, total_score, band, dimensions,
                                   scored_at, missing_tools, outcome)
        SELECT s.session_id, c.criteria_hash, s.score_id, s.total_score,
               CASE WHEN s.total_score <= 44 THEN 'failed' WHEN s.total_score <= 59 THEN 'weak'
                    WHEN s.total_score <= 74 THEN 'adequate' WHEN s.total_score <= 89 THEN 'good'
                    ELSE 'near_perfect' END,
               s.score_breakdown,
               s.scored_at, '{}', s.outcome
        FROM session_scores s
        CROSS JOIN LATERAL (VALUES (s.criteria_hash), ('*')) AS c(criteria_hash)
        WHERE c.criteria_hash <> '*' OR s.criteria_hash = %s
        """,
        (base,),
    )


def test_outcome_analytics_at_scale(
    postgres_url: str, bench_table: BenchTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``GET /analytics/outcome``, the fleet query's outcome filter, the trends with their outcome counts and the
    comparison restricted to sessions with a reference, over ``BENCH_SCALE`` scores (40 % judged against a
    reference). The read models are rebuilt from ``latest_scores`` after loading (timed, once)."""
    from session_scoring.models.trends import TrendBucket, TrendGroup
    from session_scoring.repositories.comparison import ComparisonRepository

    url = migrated_database(postgres_url, "bench_outcome")
    # The rebuilds run for minutes at a million: neither the statement nor the socket may time out.
    container = bench_container(
        monkeypatch, url, SCORING_DATABASE_STATEMENT_TIMEOUT_MS="3600000", SCORING_DATABASE_TIMEOUT_SECONDS="3600"
    )
    base = container.config.criteria_hash
    conn = pg_connect(url)
    cur = conn.cursor()
    started = time.perf_counter()
    _load_outcomes(cur, SCALE, base, CANDIDATE)
    loaded_s = time.perf_counter() - started
    report(f"\nloaded {SCALE:,} completed scores with outcomes ({SCALE // 2:,} sessions) in {loaded_s:.0f} s")
    scale = f"{SCALE:,} scores"
    started = time.perf_counter()
    container.trends_repository.rebuild()  # trend members and histograms, then outcome_counts from the members
    bench_table.add(f"rebuild trends and outcome_counts ({scale})", (time.perf_counter() - started) * 1000, "ms")
    started = time.perf_counter()
    ComparisonRepository(container.query_engine).rebuild()
    bench_table.add(f"rebuild comparison pairs and cells ({scale})", (time.perf_counter() - started) * 1000, "ms")
    cur.execute("VACUUM ANALYZE")
    cur.execute("SELECT count(*) FROM outcome_counts")
    report(f"\noutcome_counts rows at {scale} (all criteria): {cur.fetchone()[0]:,}")
    conn.close()
    query_engine = container.query_engine

    analytics = container.analytics_service
    for name, criteria in (("current", base), ("any", None)):

        def outcome(c: str | None = criteria) -> Any:
            return analytics.outcome(c)

        answer = outcome()
        assert answer.overall.with_reference > 0
        with _capturing(query_engine) as statements:
            outcome()
        report(
            f"\nEXPLAIN (ANALYZE, BUFFERS) of GET /analytics/outcome criteria={name}:\n"
            f"{_explain(query_engine, statements)}"
        )
        bench_table.add(
            f"GET /analytics/outcome criteria={name} ({scale})",
            statistics.median(timed(RUNS, outcome)),
            "ms",
            None,
            "<= 100 ms",
            f"median of {RUNS}, {len(answer.groups)} groups",
        )

    insights = container.insights_service
    for name, params in (
        ("GET /scores outcome=found (latest, current, newest)", FleetParams(outcome="found")),
        (
            "GET /scores outcome=missed sort=total_score asc",
            FleetParams(outcome="missed", sort="total_score", order="asc"),
        ),
        ("GET /scores outcome=partly_found criteria=any", FleetParams(outcome="partly_found", criteria_hash="any")),
    ):

        def fleet(p: FleetParams = params) -> Any:
            return insights.fleet(p)

        page = fleet()
        assert isinstance(page, FleetScorePage)
        assert page.items
        with _capturing(query_engine) as statements:
            fleet()
        report(f"\nEXPLAIN (ANALYZE, BUFFERS) of {name} at {scale}:\n{_explain(query_engine, statements)}")
        bench_table.add(f"{name} ({scale})", statistics.median(timed(RUNS, fleet)), "ms", None, "<= 100 ms", "")

    trends = container.trends_service

    def trend() -> Any:
        return trends.trends(None, TrendBucket.DAY, TrendGroup.ALERT_TYPE)

    assert any(point.found_share is not None for point in trend().points)
    bench_table.add(
        f"GET /analytics/trends bucket=day group_by=alert_type, with outcome shares ({scale})",
        statistics.median(timed(RUNS, trend)),
        "ms",
        None,
        "<= 100 ms",
        "",
    )

    def restricted() -> Any:
        return trends.criteria_comparison(base, CANDIDATE, with_reference=True)

    answer = restricted()
    with _capturing(query_engine) as statements:
        restricted()
    report(
        f"\nEXPLAIN (ANALYZE, BUFFERS) of the comparison with_reference at {scale}:\n"
        f"{_explain(query_engine, statements)}"
    )
    bench_table.add(
        f"GET /analytics/criteria-comparison with_reference, {answer.n:,} sessions ({scale})",
        statistics.median(timed(RUNS, restricted)),
        "ms",
        None,
        "<= 100 ms",
        f"median of {RUNS}",
    )
    container.query_engine.dispose()
    container.engine.dispose()
