"""``latest_scores``, its tool rows and its counters (band and tool counters, the per-tool counters by day, agent,
spelling and availability), and the trend tables (``trend_histograms``), on real PostgreSQL: kept right by concurrent
completes and backfilled by the migrations, all compared with a recount of the stored attempts."""

from __future__ import annotations

import itertools
import random
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text

from session_scoring.models.judge import JudgeVerdict
from session_scoring.models.records import PromptStats, SessionFacts
from session_scoring.models.scores import band_for
from session_scoring.models.tools import ToolNamer
from session_scoring.repositories.scores import ScoreRepository
from tests.conftest import Stack
from tests.support.databases import scratch_database
from tests.support.verdicts import stored_verdict

HASHES = ("a" * 64, "b" * 64)
# Several spellings of one tool: counted as one canonical name (matched to an available tool where the session has it).
TOOLS = (
    "k8s.pods_log",
    "K8s.Pods-Log",
    "mcp__k8s__pods_log",
    "k8s.events",
    "prom.query",
    "loki.search",
    "aws.describe",
)
AVAILABLE = ("kubernetes-server.pods_log", "prometheus.query")
"""The available tools of sessions s0-s2 (s3-s5 have none)."""
AGENTS = ("KubernetesAgent", "NetworkAgent", None)
MIGRATION = "0006_latest_scores"

Counts = Counter[tuple[str, ...]]


def available_to(session_id: str) -> tuple[str, ...]:
    return AVAILABLE if int(session_id[1:]) < 3 else ()


def expected(
    engine: Engine, available: Callable[[str], tuple[str, ...]] = lambda _: ()
) -> tuple[dict[tuple[str, str], tuple[Any, ...]], Counts]:
    """The latest completed attempt of each (criteria hash, session) and of each session ('*'), and the band, tool
    and per-tool counts over them, recounted in Python from every stored attempt: tools by canonical name
    (``ToolNamer`` over the session's ``available`` tools), per UTC day of scoring, agent, spelling, availability."""
    with engine.connect() as conn:
        attempts = conn.execute(
            text(
                "SELECT score_id, session_id, criteria_hash, total_score, scored_at, session_agent FROM session_scores "
                "WHERE status = 'completed' AND sample_kind IS NULL"
            )
        ).all()
        written: dict[Any, list[str]] = {}
        for score_id, tool_name in conn.execute(text("SELECT score_id, tool_name FROM score_missing_tools")):
            written.setdefault(score_id, []).append(tool_name)
    sessions = {row.score_id: row.session_id for row in attempts}
    tools: dict[Any, set[str]] = {}
    facets: dict[Any, set[tuple[str, str, str]]] = {}
    for score_id, names in written.items():
        namer = ToolNamer(available(sessions.get(score_id, "")))
        for name in names:
            canonical = namer.canonical(name)
            tools.setdefault(score_id, set()).add(canonical.name)
            facets.setdefault(score_id, set()).add((canonical.name, "spelling", name))
            if canonical.available:
                facets[score_id].add((canonical.name, "available", ""))
    latest: dict[tuple[str, str], Any] = {}
    for row in attempts:
        for scope in (row.criteria_hash, "*"):
            key = (scope, row.session_id)
            if key not in latest or (row.scored_at, row.score_id) > (latest[key].scored_at, latest[key].score_id):
                latest[key] = row
    counts: Counts = Counter()
    rows = {}
    for (scope, session_id), row in latest.items():
        names = sorted(tools.get(row.score_id, ()))
        band = band_for(row.total_score).band
        rows[(scope, session_id)] = (row.score_id, row.total_score, band, names)
        counts[(scope, "band", band)] += 1
        counts.update((scope, "tool", name) for name in names)
        day = row.scored_at.astimezone(UTC).date()
        monday = (day - timedelta(days=day.weekday())).isoformat()
        for name in names:
            agent = row.session_agent or ""
            counts.update([(scope, name, "day", day.isoformat()), (scope, name, "week", monday)])
            counts.update([(scope, name, "agent", agent)])
        counts.update((scope, *key) for key in facets.get(row.score_id, ()))
    return rows, counts


def stored(engine: Engine) -> tuple[dict[tuple[str, str], tuple[Any, ...]], Counts]:
    with engine.connect() as conn:
        rows = {
            (r.criteria_hash, r.session_id): (r.score_id, r.total_score, r.band, list(r.missing_tools))
            for r in conn.execute(text("SELECT * FROM latest_scores"))
        }
        counts = Counter(
            {
                (r.criteria_hash, r.kind, r.name): int(r.sessions)
                for r in conn.execute(text("SELECT * FROM latest_score_counts WHERE sessions <> 0"))
            }
        )
        counts.update(
            {
                (r.criteria_hash, r.tool_name, r.facet, r.value): int(r.sessions)
                for r in conn.execute(text("SELECT * FROM latest_tool_counts WHERE sessions <> 0"))
            }
        )
        listed: dict[tuple[str, str], list[str]] = {}
        for r in conn.execute(text("SELECT * FROM latest_score_tools ORDER BY tool_name")):
            assert r.score_id == rows[(r.criteria_hash, r.session_id)][0]
            listed.setdefault((r.criteria_hash, r.session_id), []).append(r.tool_name)
    # latest_score_tools lists exactly the tools of each latest score, under the same score id.
    assert listed == {key: row[3] for key, row in rows.items() if row[3]}
    return rows, counts


Histograms = dict[tuple[Any, ...], tuple[Any, ...]]
DIMENSIONS = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")
"""The default rubric's dimensions, as migrations 0012-0014 made a column of each (``stored_buckets``)."""


def expected_histograms(engine: Engine) -> Histograms:
    """``trend_histograms`` and ``trend_dimension_sums`` recounted in Python from every stored completed attempt: per
    scope, bucket (UTC day and week), grouping and group, the latest scores' sessions, how many have each total 0-100,
    and each dimension's (any key a breakdown has) sum and count."""
    with engine.connect() as conn:
        attempts = conn.execute(
            text(
                "SELECT score_id, session_id, criteria_hash, total_score, scored_at, score_breakdown, session_agent, "
                "session_alert_type, date_trunc('day', scored_at AT TIME ZONE 'UTC')::date AS day, "
                "date_trunc('week', scored_at AT TIME ZONE 'UTC')::date AS week FROM session_scores "
                "WHERE status = 'completed'"
            )
        ).all()
    latest: dict[tuple[str, str], Any] = {}
    for row in attempts:
        for scope in (row.criteria_hash, "*"):
            key = (scope, row.session_id)
            if key not in latest or (row.scored_at, row.score_id) > (latest[key].scored_at, latest[key].score_id):
                latest[key] = row
    sessions: dict[tuple[Any, ...], int] = {}
    totals: dict[tuple[Any, ...], list[int]] = {}
    dimensions: dict[tuple[Any, ...], dict[str, list[int]]] = {}
    for (scope, _), row in latest.items():
        for (unit, start), (group_by, value) in itertools.product(
            (("day", row.day), ("week", row.week)),
            (("none", ""), ("agent", row.session_agent), ("alert_type", row.session_alert_type)),
        ):
            key = (scope, unit, group_by, start, value is None, value or "")
            sessions[key] = sessions.get(key, 0) + 1
            totals.setdefault(key, [0] * 101)[row.total_score] += 1
            for d, points in (row.score_breakdown or {}).items():
                sums = dimensions.setdefault(key, {}).setdefault(d, [0, 0])
                sums[0] += points
                sums[1] += 1
    return {
        key: (n, tuple(totals[key]), tuple(sorted((d, *sums) for d, sums in dimensions.get(key, {}).items())))
        for key, n in sessions.items()
    }


def stored_histograms(engine: Engine) -> Histograms:
    """The non-empty rows of ``trend_histograms`` (a row a replacement emptied stays, all zero), each with its
    dimensions' non-empty ``trend_dimension_sums`` rows."""
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value, sessions, totals "
                "FROM trend_histograms"
            )
        ).all()
        sums = conn.execute(
            text(
                "SELECT criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value, dimension_key, "
                "points, sessions FROM trend_dimension_sums WHERE sessions <> 0 OR points <> 0"
            )
        ).all()
    assert all(len(row.totals) == 101 and sum(row.totals) == row.sessions for row in rows)
    assert all(any(row.totals) == (row.sessions != 0) for row in rows)
    dimensions: dict[tuple[Any, ...], list[tuple[str, int, int]]] = {}
    for row in sums:
        dimensions.setdefault(tuple(row[:6]), []).append((row.dimension_key, row.points, row.sessions))
    histograms = {tuple(row[:6]): row for row in rows}
    assert set(dimensions) <= {key for key, row in histograms.items() if row.sessions != 0}
    return {
        key: (row.sessions, tuple(row.totals), tuple(sorted(dimensions.get(key, []))))
        for key, row in histograms.items()
        if row.sessions != 0
    }


def stored_buckets(engine: Engine) -> Histograms:
    """The non-empty rows of ``trend_buckets`` (0012-0014: one per total score)."""
    columns = ", ".join(f"{d}_sum, {d}_n" for d in DIMENSIONS)
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT criteria_hash, bucket, group_by, bucket_start, group_unknown, group_value, total_score, "
                f"sessions, {columns} FROM trend_buckets WHERE sessions <> 0"
            )
        ).all()
    return {tuple(row[:7]): tuple(row[7:]) for row in rows}


def verdict(total: int, tools: list[str]) -> JudgeVerdict:
    parts = [min(25, max(0, total - 25 * i)) for i in range(4)]
    return stored_verdict(
        dict(zip(["logical_flow", "consistency", "tool_relevance", "synthesis_quality"], parts, strict=True)),
        tools,
        "seeded",
    )


def score_many(repo: ScoreRepository, seed: int, rounds: int) -> int:
    """Request, claim and complete (or fail) scores for a few shared sessions; returns how many completed. Threads
    running this collide on the same sessions (one gets the active attempt, another is refused or loses the claim)
    and on the same counters."""
    rng = random.Random(seed)
    completed = 0
    for _ in range(rounds):
        session_id = f"s{rng.randrange(6)}"
        criteria = rng.choice(HASHES)
        # Facts per attempt (an agent may be unknown), so a replacement can move a session between groups.
        facts = SessionFacts(
            agent=rng.choice(AGENTS),
            alert_type=rng.choice(["PodOOMKilled", None]),
            started_at=None,
            ended_at=None,
            stages=None,
            tool_calls=None,
            source="file",
        )
        attempt = repo.create_attempt(uuid.uuid4(), session_id, criteria, "test", facts)
        claim = repo.claim(attempt.attempt.score_id, 60)
        if claim.claim_token is None:
            continue
        if rng.random() < 0.2:  # a failed re-score never replaces a completed one
            repo.fail(attempt.attempt.score_id, claim.claim_token, "judge said no")
            continue
        tools = rng.sample(TOOLS, rng.randrange(4))
        tools += tools[:1]  # a tool named twice in one verdict counts once for the session
        stored_it = repo.complete(
            attempt.attempt.score_id,
            claim.claim_token,
            criteria,
            verdict(rng.randrange(101), tools),
            PromptStats(False, None, None),
            available_tools=available_to(session_id),
        )
        completed += int(stored_it)
    return completed


def test_concurrent_completes_keep_latest_scores_and_counters_equal_to_a_recount(stack: Stack) -> None:
    repo = stack.container.score_repository
    for criteria in HASHES:
        repo.ensure_criteria(criteria, {"scoring": {"llm_provider": "test"}})

    with ThreadPoolExecutor(max_workers=4) as pool:
        completed = sum(pool.map(lambda seed: score_many(repo, seed, 40), range(4)))
    # Then one verdict naming a spelling of the pods-log tool for a session that has it available, so the checks of
    # spellings below hold whichever of the threads' verdicts became the latest.
    attempt = repo.create_attempt(uuid.uuid4(), "s0", HASHES[0], "test")
    claim = repo.claim(attempt.attempt.score_id, 60)
    assert claim.claim_token is not None
    assert repo.complete(
        attempt.attempt.score_id,
        claim.claim_token,
        HASHES[0],
        verdict(50, ["K8s.Pods-Log"]),
        PromptStats(False, None, None),
        available_tools=available_to("s0"),
    )

    engine = stack.container.query_engine
    want_rows, want_counts = expected(engine, available_to)
    got_rows, got_counts = stored(engine)
    assert completed > 20  # the threads did store verdicts, several per session
    assert got_rows == want_rows
    assert got_counts == want_counts
    assert stored_histograms(engine) == expected_histograms(engine)
    assert sum(n for (scope, kind, *_), n in got_counts.items() if scope == "*" and kind == "band") == len(
        {session for scope, session in want_rows if scope == "*"}
    )
    # Spelled out: the spellings of the pods-log tool are counted by canonical name; where the session has the
    # tool available every spelling (K8s.Pods-Log too) is the available tool's name, and counts as available.
    named = {key[2] for key in got_counts if key[1] == "tool"}
    assert "pods_log" in named
    assert not named & {"k8s.pods_log", "mcp__k8s__pods_log", "K8s.Pods-Log"}
    assert any(key[1:] == ("pods_log", "available", "") for key in got_counts)


def test_a_facts_backfill_moves_scored_sessions_to_their_trend_groups(stack: Stack) -> None:
    from session_scoring.repositories.trends import TrendsRepository

    repo = stack.container.score_repository
    repo.ensure_criteria(HASHES[0], {"scoring": {"llm_provider": "test"}})
    for session_id, total in (("f1", 30), ("f1", 70), ("f2", 90)):  # f1 re-scored: its first score is no member
        attempt = repo.create_attempt(uuid.uuid4(), session_id, HASHES[0], "test")  # no facts yet
        claim = repo.claim(attempt.attempt.score_id, 60)
        assert claim.claim_token is not None
        repo.complete(
            attempt.attempt.score_id, claim.claim_token, HASHES[0], verdict(total, []), PromptStats(False, None, None)
        )
    engine = stack.container.query_engine
    facts = SessionFacts(
        agent="NetworkAgent", alert_type=None, started_at=None, ended_at=None, stages=1, tool_calls=2, source="file"
    )
    trends = TrendsRepository(engine)

    assert stack.container.insights_repository.fill_facts("f1", facts) == 2
    assert trends.refresh_facts("f1") == 2  # its member under the hash and under '*'
    assert trends.refresh_facts("f1") == 0  # nothing left to move

    histograms = stored_histograms(engine)
    assert histograms == expected_histograms(engine)
    assert {key[5] for key in histograms if key[2] == "agent"} == {"NetworkAgent", ""}  # f2 still unknown


@pytest.fixture
def fresh_url(postgres_url: str) -> Iterator[str]:
    with scratch_database(postgres_url, "latest") as url:
        yield url


def test_the_migration_backfills_latest_scores_and_counters_from_stored_attempts(fresh_url: str) -> None:
    from alembic.script import ScriptDirectory

    from session_scoring.configuration.settings import Settings
    from session_scoring.infrastructure import migrate

    settings = Settings()
    before = ScriptDirectory.from_config(migrate.alembic_config(settings)).get_revision(MIGRATION).down_revision
    engine = create_engine(fresh_url)
    migrate.upgrade(engine, settings, str(before))
    with engine.begin() as conn:
        for criteria in HASHES:
            conn.execute(
                text("INSERT INTO scoring_criteria_definitions (criteria_hash, criteria_content) VALUES (:h, '{}')"),
                {"h": criteria},
            )
        attempts = [
            # session, hash, status, total, seconds ago, tools
            ("rescored", HASHES[0], "completed", 30, 50, ["k8s.events"]),
            ("rescored", HASHES[0], "completed", 95, 40, ["prom.query", "prom.query"]),
            ("rescored", HASHES[1], "completed", 60, 30, []),
            ("rescored", HASHES[0], "failed", None, 10, []),
            ("other", HASHES[1], "completed", 10, 20, ["Prom.Query", "k8s.events", "mcp__prom__query"]),
            ("never", HASHES[0], "failed", None, 5, []),
        ]
        for session_id, criteria, status, total, ago, tools in attempts:
            score_id = uuid.uuid4()
            conn.execute(
                text(
                    "INSERT INTO session_scores (score_id, session_id, criteria_hash, status, total_score, "
                    "score_breakdown, scored_triggered_by, requested_at, scored_at) VALUES (:id, :s, :h, :status, "
                    ":total, '{\"logical_flow\": 5}', 'test', now() - make_interval(secs => :ago), "
                    "CASE WHEN :status = 'completed' THEN now() - make_interval(secs => :ago) END)"
                ),
                {"id": score_id, "s": session_id, "h": criteria, "status": status, "total": total, "ago": ago},
            )
            for position, name in enumerate(tools):
                conn.execute(
                    text(
                        "INSERT INTO score_missing_tools (id, score_id, position, tool_name, rationale) "
                        "VALUES (gen_random_uuid(), :id, :p, :n, 'needed')"
                    ),
                    {"id": score_id, "p": position, "n": name},
                )

    migrate.upgrade(engine, settings, "0014_session_list")
    buckets = stored_buckets(engine)
    migrate.upgrade(engine, settings)

    want_rows, want_counts = expected(engine)
    assert stored(engine) == (want_rows, want_counts)
    histograms = stored_histograms(engine)
    assert histograms == expected_histograms(engine)
    assert len({key[0] for key in histograms}) == 3  # both hashes and '*'
    # 0015's downgrade rebuilds the per-total rows of 0012 from the members, and its upgrade folds them again.
    migrate.downgrade(engine, settings, "0014_session_list")
    assert stored_buckets(engine) == buckets
    assert len(buckets) > len(histograms)  # several totals in some histograms
    migrate.upgrade(engine, settings)
    assert stored_histograms(engine) == histograms
    # Spelled out: the newest completed score of each scope wins; a later failure changes nothing.
    assert want_rows[(HASHES[0], "rescored")][1:] == (95, "near_perfect", ["query"])
    assert want_rows[("*", "rescored")][1:] == (60, "adequate", [])
    assert want_rows[("*", "other")][3] == ["events", "query"]  # by canonical name (migration 0011)
    assert want_counts[("*", "tool", "query")] == 1
    assert want_counts[("*", "query", "spelling", "mcp__prom__query")] == 1
    assert want_counts[("*", "query", "agent", "")] == 1  # attempts stored before 0007 have no agent
    assert ("*", "never") not in want_rows
    with engine.connect() as conn:
        dimension = conn.execute(
            text("SELECT dimensions FROM latest_scores WHERE session_id = 'other' AND criteria_hash = '*'")
        ).scalar()
    assert dimension == {"logical_flow": 5}
    engine.dispose()
