"""Insights on real PostgreSQL: session facts on attempts and their backfill, the fleet query (filters, sorts,
keyset pages, CSV and JSON Lines), and the training export."""

from __future__ import annotations

import csv
import io
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from session_scoring.entrypoints.cli import main as cli
from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict
from session_scoring.models.records import PromptStats, SessionFacts
from session_scoring.models.session import Session
from tests.conftest import FAILING_TOOLS_ID, SAMPLES, SHALLOW_ID, THOROUGH_ID, Stack

SCORES = "/api/v1/scoring/scores"
EXPORT = "/api/v1/scoring/exports/training"
OTHER_HASH = "c" * 64
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _breakdown(total: int) -> dict[str, int]:
    parts = [min(25, max(0, total - 25 * i)) for i in range(4)]
    return dict(zip(["logical_flow", "consistency", "tool_relevance", "synthesis_quality"], parts, strict=True))


def seed(
    stack: Stack,
    session_id: str,
    total: int,
    agent: str = "KubernetesAgent",
    criteria: str | None = None,
    missing: tuple[str, ...] = (),
    started: datetime | None = T0,
) -> uuid.UUID:
    """One completed attempt with session facts, stored through the repository."""
    repo = stack.container.score_repository
    criteria = criteria or stack.container.config.criteria_hash
    repo.ensure_criteria(criteria, {"scoring": {"llm_provider": "test", "llm_model": "m"}})
    score_id = uuid.uuid4()
    facts = SessionFacts(agent, "PodOOMKilled", started, started, 2, 5, "file")
    repo.create_attempt(score_id, session_id, criteria, "test", facts)
    claim = repo.claim(score_id, 60)
    assert claim.claim_token is not None
    output = JudgeOutputSchema.model_validate(
        {
            "total_score": total,
            "score_breakdown": _breakdown(total),
            "score_reasoning": "seeded",
            "missing_tools": [{"tool_name": name, "rationale": "needed"} for name in missing],
            "alternative_approaches": [],
            "outcome": "no_reference",
            "outcome_reason": "no reference root cause was given for this session",
        }
    )
    verdict = JudgeVerdict(output=output, provider="test", model="m")
    assert repo.complete(score_id, claim.claim_token, criteria, verdict, PromptStats(False, None, None))
    return score_id


def sample(session_id: str) -> Session:
    return Session.model_validate_json((SAMPLES / f"{session_id}.json").read_text())


def test_an_attempt_keeps_its_session_facts_and_the_backfill_fills_older_ones(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    assert stack.request_score(THOROUGH_ID).status_code == 202
    stack.poller.drain()
    facts = stack.score(THOROUGH_ID).json()["session_facts"]
    session = sample(THOROUGH_ID)
    assert facts["agent"] == session.agent_type
    assert facts["alert_type"] == session.alert_type
    assert facts["tool_calls"] == len(session.tool_calls) > 0
    assert facts["stages"] == len(session.stages)
    assert facts["source"] == "file"

    # Attempts from before the snapshot existed: one of a session the source has, one of a session it lost.
    repo = stack.container.score_repository
    repo.ensure_criteria(stack.container.config.criteria_hash, {})
    repo.create_attempt(uuid.uuid4(), SHALLOW_ID, stack.container.config.criteria_hash, "old")
    repo.create_attempt(uuid.uuid4(), "gone-session", stack.container.config.criteria_hash, "old")
    assert stack.score(SHALLOW_ID).json()["session_facts"] is None

    assert cli(["facts", "backfill"]) == 0
    out = capsys.readouterr().out
    assert "session gone-session: the source no longer has it" in out
    assert "backfilled 1 attempt(s) of 1 session(s); 1 session(s) no longer at the source" in out
    assert stack.score(SHALLOW_ID).json()["session_facts"]["tool_calls"] == len(sample(SHALLOW_ID).tool_calls)

    assert cli(["facts", "backfill"]) == 0  # idempotent: only the lost session is tried again
    assert "backfilled 0 attempt(s) of 0 session(s); 1 session(s) no longer at the source" in capsys.readouterr().out


def _all_pages(stack: Stack, **params: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    cursor = None
    while True:
        answer = stack.client.get(SCORES, params={**params, **({"cursor": cursor} if cursor else {})})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        items += body["items"]
        cursor = body["next_cursor"]
        if cursor is None:
            return items


def test_the_fleet_query_filters_sorts_and_pages(stack: Stack) -> None:
    seed(stack, "s1", 40)
    seed(stack, "s1", 92)  # rescored: the latest attempt counts
    seed(stack, "s2", 75, agent="NetworkAgent", missing=("kubectl-top",), started=T0 + timedelta(days=2))
    seed(stack, "s3", 75, started=None)
    seed(stack, "s4", 60, missing=("Kubectl-Top",), started=T0 + timedelta(days=1))
    seed(stack, "s5", 10, criteria=OTHER_HASH)

    latest = _all_pages(stack, sort="total_score", order="asc", limit=1)  # a page per row: ties cross pages
    assert [i["total_score"] for i in latest] == [60, 75, 75, 92]  # s1's latest (92), not its older 40
    assert {i["session_id"] for i in latest} == {"s1", "s2", "s3", "s4"}  # each exactly once
    assert latest[-1]["band"] == "near_perfect"
    assert latest[-1]["is_current_criteria"]
    assert latest[0]["session_facts"]["agent"] == "KubernetesAgent"

    def ids(**params: Any) -> list[str]:
        return [i["session_id"] for i in _all_pages(stack, **params)]

    assert ids(min_score=70, sort="total_score", order="desc")[0] == "s1"
    assert sorted(ids(band="good")) == ["s2", "s3"]
    assert ids(agent="NetworkAgent") == ["s2"]
    assert ids(missing_tool="kubectl-top", sort="session_started_at", order="asc") == ["s4", "s2"]
    assert ids(sort="session_started_at", order="desc", limit=2) == ["s3", "s2", "s4", "s1"]  # no start: first
    assert ids(sort="session_started_at", order="asc", limit=1) == ["s1", "s4", "s2", "s3"]  # and last
    assert ids(criteria_hash="any", max_score=20) == ["s5"]
    assert ids(session_started_after="2026-11-01T12:00:00Z") == ["s4", "s2"]  # newest scored first
    assert sorted(ids(latest_only="false", max_score=50, criteria_hash="current")) == ["s1"]  # the older 40
    by_dimension = ids(sort="tool_relevance", order="desc", max_score=80)  # 25, 25, then s4's 10
    assert by_dimension[2:] == ["s4"]

    rows = list(csv.DictReader(io.StringIO(stack.client.get(SCORES, params={"format": "csv"}).text)))
    assert len(rows) == 4
    assert {"session_id", "total_score", "agent", "tool_calls", "missing_tools"} <= rows[0].keys()
    lines = stack.client.get(SCORES, params={"format": "jsonl", "sort": "total_score"}).text.splitlines()
    ordered = [json.loads(line)["session_id"] for line in lines]
    assert ordered[0] == "s1"
    assert sorted(ordered) == ["s1", "s2", "s3", "s4"]


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"band": "great"}, "band 'great' is not one of"),
        ({"min_score": 80, "max_score": 20}, "min_score (80) is above max_score (20)"),
        ({"status": "failed"}, "pass latest_only=false"),
        ({"criteria_hash": "abc"}, "is not 'current', 'any' or a criteria hash"),
        ({"cursor": "not-a-cursor"}, "invalid cursor"),
        ({"limit": 501}, "above 500 for format=json"),
        ({"format": "xml"}, "format 'xml' is not one of"),
    ],
)
def test_bad_fleet_filters_are_clear_400s(stack: Stack, params: dict[str, Any], says: str) -> None:
    answer = stack.client.get(SCORES, params=params)
    assert answer.status_code == 400
    assert says in answer.json()["detail"]


def test_a_sort_key_the_rubric_lacks_is_a_422_listing_the_accepted_keys(stack: Stack) -> None:
    answer = stack.client.get(SCORES, params={"sort": "colour"})
    assert answer.status_code == 422
    assert answer.json()["code"] == "invalid_parameters"
    assert answer.json()["detail"] == (
        "sort 'colour' is not one of: total_score, logical_flow, consistency, tool_relevance, synthesis_quality, "
        "scored_at, session_started_at (the dimensions are those of the current rubric)"
    )
    shapeless = stack.client.get(SCORES, params={"sort": "Total Score"})  # not a key's shape: the model's 422
    assert shapeless.status_code == 422
    assert shapeless.json()["detail"][0]["loc"] == ["query", "sort"]


def test_a_cursor_used_with_other_filters_is_refused(stack: Stack) -> None:
    seed(stack, "s1", 50)
    seed(stack, "s2", 60)
    cursor = stack.client.get(SCORES, params={"limit": 1}).json()["next_cursor"]
    answer = stack.client.get(SCORES, params={"limit": 1, "cursor": cursor, "min_score": 10})
    assert answer.status_code == 400
    assert "other filters or another sort" in answer.json()["detail"]


def test_the_training_export_carries_every_tool_call_of_each_session(
    stack: Stack, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for session_id in (THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID):
        stack.request_score(session_id)
    stack.poller.drain()
    lines = [json.loads(line) for line in stack.client.get(EXPORT, params={"min_score": 0}).text.splitlines()]
    assert sorted(line["session_id"] for line in lines) == sorted([THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID])
    for line in lines:
        session = sample(line["session_id"])
        messages = line["messages"]
        calls = [call for m in messages for call in m.get("tool_calls", [])]
        expected = [(c.server, c.name, c.arguments) for c in session.tool_calls]
        assert [
            (
                call["function"]["name"].split("__")[0] if "__" in call["function"]["name"] else None,
                call["function"]["name"].split("__")[-1],
                json.loads(call["function"]["arguments"]),
            )
            for call in calls
        ] == expected
        results = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
        assert results == {call["id"] for call in calls}
        # The recording's own conversation: no invented system prompt, the alert once, no importer notes.
        assert messages[0] == {"role": "user", "content": json.dumps(session.alert, default=str)}
        assert all(m["role"] != "system" for m in messages)
        assert sum(json.dumps(session.alert, default=str) in (m.get("content") or "") for m in messages) == 1
        assert not any("[not shown" in (m.get("content") or "") for m in messages)
        assert messages[-1] == {"role": "assistant", "content": session.final_analysis}
        assert set(line["score_breakdown"]) == {"logical_flow", "consistency", "tool_relevance", "synthesis_quality"}
        # the samples carry no reference root cause: the judge said so, and the line says what it said
        assert line["outcome"] == "no_reference"

    normalized = stack.client.get(EXPORT, params={"min_score": 0, "format": "normalized"}).text.splitlines()
    assert Session.model_validate(json.loads(normalized[0])["session"]).tool_calls

    best = max(line["total_score"] for line in lines)
    out = tmp_path / "train.jsonl"
    assert cli(["export", "training", "--min-score", str(best), "--out", str(out)]) == 0
    assert [json.loads(x)["total_score"] for x in out.read_text().splitlines()] == [
        line["total_score"] for line in lines if line["total_score"] >= best
    ]
    written = sum(1 for line in lines if line["total_score"] >= best)
    assert f"wrote {written} session(s) to {out}; 0 skipped" in capsys.readouterr().out
    assert stack.client.get(EXPORT, params={"format": "csv"}).status_code == 400


def test_missing_tool_sessions_match_every_spelling_of_the_tool(stack: Stack) -> None:
    seed(stack, "s1", 50, missing=("mcp__k8s__Get_Pod_Logs",))
    seed(stack, "s2", 70, agent="NetworkAgent", missing=("k8s.get_pod_logs", " get_pod_logs "))
    seed(stack, "s3", 80, missing=("prometheus.query",))
    seed(stack, "s4", 30, missing=("get_pod_logs",))
    seed(stack, "s4", 90)  # rescored: its latest score names nothing missing

    url = "/api/v1/scoring/analytics/missing-tools/Get_Pod_Logs/sessions"
    first = stack.client.get(url, params={"limit": 1}).json()
    assert first["canonical_name"] == "get_pod_logs"
    second = stack.client.get(url, params={"limit": 1, "cursor": first["next_cursor"]}).json()
    assert second["next_cursor"] is None
    items = first["items"] + second["items"]
    assert [i["session_id"] for i in items] == ["s2", "s1"]  # newest scored first, one line per session
    assert items[0]["tool_name"] == "k8s.get_pod_logs"
    assert items[0]["rationale"] == "needed"
    assert items[0]["agent"] == "NetworkAgent"
    # The fleet query's missing_tool finds the same scores by the canonical name the top list shows.
    fleet = stack.client.get("/api/v1/scoring/scores", params={"missing_tool": "get_pod_logs"}).json()
    assert sorted(i["session_id"] for i in fleet["items"]) == ["s1", "s2"]


def test_an_uploaded_chat_exports_as_recorded_without_its_importer_notes(stack: Stack) -> None:
    """An upload with a system prompt (which the importer drops, with a note in the transcript) and its task both in
    the envelope's alert and the user's first turn: the exported line is the recording's own conversation."""
    task = "Alert CertificateExpiring on ingress-web: the certificate expires in 2 days."
    document = {
        "alert_type": "CertificateExpiring",
        "agent_type": "KubernetesAgent",
        "alert": {"message": task},
        "messages": [
            {"role": "system", "content": "You are a careful SRE."},
            {"role": "user", "content": task},
            {
                "role": "assistant",
                "content": "Let me read the certificate.",
                "tool_calls": [{"id": "c1", "function": {"name": "get_certificate", "arguments": '{"name": "web"}'}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "notAfter: 2026-12-03"},
            {"role": "assistant", "content": "The certificate expires on 2026-12-03: renew it now."},
        ],
    }
    upload = stack.client.post("/api/v1/scoring/sessions:import", json=document)
    assert upload.status_code == 201, upload.text
    session_id = upload.json()["session_id"]
    assert stack.request_score(session_id).status_code == 202
    stack.poller.drain()

    lines = [json.loads(line) for line in stack.client.get(EXPORT, params={"min_score": 0}).text.splitlines()]
    (line,) = [line for line in lines if line["session_id"] == session_id]
    messages = line["messages"]
    text = json.dumps(messages)

    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[0]["content"] == task
    assert text.count("the certificate expires in 2 days") == 1
    assert "not shown" not in text
    assert "You are" not in text
    assert messages[-1]["content"] == "The certificate expires on 2026-12-03: renew it now."


def test_the_scores_page_names_an_upload_by_its_task_as_the_sessions_list_does(stack: Stack) -> None:
    document = {
        "messages": [
            {"role": "user", "content": "Disk full on db-7: free space below 5%."},
            {"role": "assistant", "content": "The WAL archive filled the disk; prune it."},
        ]
    }
    upload = stack.client.post("/api/v1/scoring/sessions:import", json=document).json()
    stack.request_score(upload["session_id"])
    stack.request_score(SHALLOW_ID)
    stack.poller.drain()

    rows = {row["session_id"]: row for row in stack.client.get(SCORES).json()["items"]}
    listed = {item["session_id"]: item for item in stack.client.get("/api/v1/scoring/sessions").json()["items"]}

    assert rows[upload["session_id"]]["title"] == listed[upload["session_id"]]["title"]
    assert rows[upload["session_id"]]["title"].startswith("Disk full on db-7")
    assert rows[SHALLOW_ID]["title"] is None  # the source's own session: named by its alert type
