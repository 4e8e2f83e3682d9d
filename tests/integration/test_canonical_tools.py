"""Missing tools by canonical name on real PostgreSQL: the migration's SQL form agrees with ``models.tools``, the
Claude judge's spelling is matched to the session's available tool end to end, and ``GET /analytics/missing-tools``
answers each tool's spellings, trend, agents and availability."""

from __future__ import annotations

import importlib.util
import itertools
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import text

from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict
from session_scoring.models.records import PromptStats, SessionFacts
from session_scoring.models.tools import canonical_tool_name
from tests.conftest import ROOT, THOROUGH_ID, Stack
from tests.support.fake_claude import reply_verdict, scripted_verdict
from tests.unit.models.test_tools import SPELLINGS

ANALYTICS = "/api/v1/scoring/analytics"


def _migration() -> Any:
    path = ROOT / "migrations" / "versions" / "0011_canonical_tools.py"
    spec = importlib.util.spec_from_file_location("migration_0011", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_migrations_sql_form_agrees_with_the_python_one(stack: Stack) -> None:
    names = [written for written, _ in SPELLINGS] + [
        "\tk8s.pods_log\n",
        "mcp__kubernetes-server__pods_log",
        "Prometheus / Query_Range",
        "a:b.c__d/e",
        "x" * 200,
        " . ",
        "Ünïcode.Tool",
    ]
    expression = _migration().canonical_sql("CAST(:name AS text)")
    with stack.container.query_engine.connect() as conn:
        in_sql = [conn.execute(text(f"SELECT {expression}"), {"name": name}).scalar_one() for name in names]

    assert in_sql == [canonical_tool_name(name) for name in names]


def _session_with_tool(tmp_path: Path) -> Path:
    """The sample sessions, the thorough one offering ``kubernetes-server.get_pod_logs`` instead of ``pods_log``."""
    for sample in (ROOT / "config" / "sample_sessions").glob("*.json"):
        body = json.loads(sample.read_text())
        if body.get("session_id") == THOROUGH_ID:
            for tool in body["available_tools"]:
                if tool["name"] == "pods_log":
                    tool["name"] = "get_pod_logs"
        (tmp_path / sample.name).write_text(json.dumps(body))
    return tmp_path


def test_the_judges_spelling_is_counted_as_the_sessions_available_tool(
    make_stack: Any, fake_claude: Any, tmp_path: Path
) -> None:
    stack: Stack = make_stack(
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="5",
        SCORING_SESSIONS_DIR=str(_session_with_tool(tmp_path)),
    )
    fake_claude.script(
        reply_verdict(scripted_verdict((15, 15, 15, 15), ("K8s.Get_Pod_Logs", "Prometheus: Query-Range")))
    )

    assert stack.request_score(THOROUGH_ID).status_code == 202
    stack.poller.drain()
    score = stack.score(THOROUGH_ID).json()
    assert score["status"] == "completed", score

    # The judge's words are kept as written; the counted names are canonical.
    assert [t["tool_name"] for t in score["missing_tools"]] == ["K8s.Get_Pod_Logs", "Prometheus: Query-Range"]
    report = stack.client.get(f"{ANALYTICS}/missing-tools").json()
    items = {item["tool_name"]: item for item in report["items"]}
    assert set(items) == {"get_pod_logs", "query-range"}
    assert items["get_pod_logs"]["spellings"] == ["K8s.Get_Pod_Logs"]
    assert items["get_pod_logs"]["available_in_sessions"] == 1  # the agent had it and did not call it
    assert items["query-range"]["available_in_sessions"] == 0  # nobody built it
    assert items["get_pod_logs"]["by_agent"] == [{"agent": "KubernetesAgent", "count": 1}]
    assert items["get_pod_logs"]["trend"][-1]["count"] == 1

    # Its sessions are found by the canonical name, and by another spelling of it.
    for asked in ("get_pod_logs", "mcp__k8s__GET_POD_LOGS"):
        page = stack.client.get(f"{ANALYTICS}/missing-tools/{asked}/sessions").json()
        assert page["canonical_name"] == "get_pod_logs"
        assert [(s["session_id"], s["tool_name"]) for s in page["items"]] == [(THOROUGH_ID, "K8s.Get_Pod_Logs")]


def _store(stack: Stack, session_id: str, agent: str | None, tools: tuple[str, ...], days_ago: int) -> None:
    """A completed score naming ``tools``, stored ``days_ago`` days back (its attempt and latest rows moved)."""
    repo = stack.container.score_repository
    criteria = stack.container.config.criteria_hash
    repo.ensure_criteria(criteria, {"scoring": {"llm_provider": "test"}})
    score_id = uuid.uuid4()
    repo.create_attempt(score_id, session_id, criteria, "test", SessionFacts(agent, None, None, None, None, None, "x"))
    claim = repo.claim(score_id, 60)
    assert claim.claim_token is not None
    output = JudgeOutputSchema.model_validate(
        {
            "total_score": 40,
            "score_breakdown": {"logical_flow": 10, "consistency": 10, "tool_relevance": 10, "synthesis_quality": 10},
            "score_reasoning": "seeded",
            "missing_tools": [{"tool_name": name, "rationale": "needed"} for name in tools],
            "alternative_approaches": [],
            "outcome": "no_reference",
            "outcome_reason": "no reference root cause was given for this session",
        }
    )
    verdict = JudgeVerdict(output=output, provider="test", model="m")
    assert repo.complete(score_id, claim.claim_token, criteria, verdict, PromptStats(False, None, None))
    if days_ago:  # as if stored then: the day and week counters move with it (what a score stored that day would count)
        shift = {"id": score_id, "d": days_ago}
        with stack.container.engine.begin() as conn:
            conn.execute(
                text(
                    "UPDATE session_scores SET scored_at = scored_at - make_interval(days => :d) WHERE score_id = :id"
                ),
                shift,
            )
            conn.execute(
                text("UPDATE latest_scores SET scored_at = scored_at - make_interval(days => :d) WHERE score_id = :id"),
                shift,
            )
            for name in {canonical_tool_name(t) for t in tools}:
                for (facet, utc), (moment, delta) in itertools.product(
                    (("day", "{}"), ("week", "date_trunc('week', {})")),
                    (("now()", -1), ("now() - make_interval(days => :d)", 1)),
                ):
                    at = utc.format(f"({moment}) AT TIME ZONE 'UTC'")
                    conn.execute(
                        text(
                            "INSERT INTO latest_tool_counts (criteria_hash, tool_name, facet, value, sessions) "
                            f"SELECT h, :n, '{facet}', to_char({at}, 'YYYY-MM-DD'), :delta "
                            "FROM unnest(ARRAY[:c, '*']) AS h ON CONFLICT (criteria_hash, tool_name, facet, value) "
                            "DO UPDATE SET sessions = latest_tool_counts.sessions + excluded.sessions"
                        ),
                        {"n": name, "c": stack.container.config.criteria_hash, "delta": delta, "d": days_ago},
                    )


def test_missing_tools_report_each_tools_spellings_trend_and_agents(stack: Stack) -> None:
    _store(stack, "s1", "KubernetesAgent", ("k8s.pods_log", "prom.query"), 0)
    _store(stack, "s2", "KubernetesAgent", ("K8s.Pods_Log",), 0)
    _store(stack, "s3", "NetworkAgent", ("mcp__k8s__pods_log",), 1)
    _store(stack, "s4", None, ("k8s.pods_log",), 8)
    _store(stack, "s5", "NetworkAgent", ("k8s.pods_log",), 400)  # before any trend window asked for below

    body = stack.client.get(f"{ANALYTICS}/missing-tools", params={"bucket": "day", "periods": 3}).json()

    assert (body["bucket"], body["periods"]) == ("day", 3)
    first = body["items"][0]
    assert (first["tool_name"], first["count"]) == ("pods_log", 5)
    assert first["spellings"] == ["k8s.pods_log", "K8s.Pods_Log", "mcp__k8s__pods_log"]
    assert first["by_agent"] == [
        {"agent": "KubernetesAgent", "count": 2},
        {"agent": "NetworkAgent", "count": 2},
        {"agent": None, "count": 1},
    ]
    assert first["available_in_sessions"] == 0
    today = datetime.now(UTC).date()
    assert [(p["bucket_start"][:10], p["count"]) for p in first["trend"]] == [
        ((today - timedelta(days=2)).isoformat(), 0),
        ((today - timedelta(days=1)).isoformat(), 1),
        (today.isoformat(), 2),
    ]

    weekly = stack.client.get(f"{ANALYTICS}/missing-tools", params={"periods": 2}).json()  # default: weeks
    assert weekly["bucket"] == "week"
    stored_days = [(today, 2), (today - timedelta(days=1), 1), (today - timedelta(days=8), 1)]
    mondays = [today - timedelta(days=today.weekday() + 7), today - timedelta(days=today.weekday())]
    assert [(p["bucket_start"], p["count"]) for p in weekly["items"][0]["trend"]] == [
        (f"{monday.isoformat()}T00:00:00Z", sum(n for day, n in stored_days if monday <= day < monday + timedelta(7)))
        for monday in mondays
    ]
    assert stack.client.get(f"{ANALYTICS}/missing-tools", params={"periods": 105}).status_code == 422
    assert stack.client.get(f"{ANALYTICS}/missing-tools", params={"bucket": "month"}).status_code == 422


def test_each_attempts_missing_tools_carry_the_canonical_name_two_spellings_share(stack: Stack) -> None:
    _store(stack, THOROUGH_ID, "KubernetesAgent", ("kubernetes-server.pods_logs",), 0)
    _store(stack, THOROUGH_ID, "KubernetesAgent", ("kubernetes_server__pods_logs", "Prom: Query"), 0)

    scoring = stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}/scoring")
    assert scoring.status_code == 200, scoring.text
    named = [[(t["tool_name"], t["canonical_name"]) for t in a["missing_tools"]] for a in scoring.json()["attempts"]]
    assert named == [  # newest first; the judge's words kept as written beside what they are counted as
        [("kubernetes_server__pods_logs", "pods_logs"), ("Prom: Query", "query")],
        [("kubernetes-server.pods_logs", "pods_logs")],
    ]
    report = stack.client.get(f"{ANALYTICS}/missing-tools").json()
    assert {item["tool_name"] for item in report["items"]} >= {"pods_logs", "query"}  # the analytics' names
