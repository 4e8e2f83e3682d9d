"""The canary: secrets of 30+ kinds planted in a trace never leave and are never stored.

The same planted tool output reaches the service three ways: an upload, a session file of the file source, and a
Phoenix trace (the fake store). Each session is scored by the Claude judge (the real SDK against the fake Messages
API, whose verdict quotes a secret too, as an untrusted judge might), exported for training and, from Phoenix,
written back. No planted value may then appear in the judge's recorded requests, in any text or JSON column of any
table, in the training export, in the write-back the fake store received, or in the logs.
"""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests.conftest import SAMPLES, THOROUGH_ID, Stack
from tests.support.fake_claude import SAMPLE_VERDICT, FakeClaude, FakeReply, batch_succeeded, verdict_body
from tests.support.fake_phoenix import FakePhoenix
from tests.support.planted_secrets import PlantedSecret, planted_secrets, planted_text

IMPORT = "/api/v1/scoring/sessions:import"
EXPORT = "/api/v1/scoring/exports/training"
SECRETS = planted_secrets()
FILE_SESSION_ID = "5e1c7a3b-9d2f-4b6e-8a0c-1f3e5d7b9a24"
TRACE_ID = "b977888902399071243ee9b9b36f7fe7"
QUOTED = next(s for s in SECRETS if s.kind == "aws-access-key-id")
"""The secret the fake judge's verdict quotes (a judge's output is untrusted text too)."""


def _planted_session(session_id: str) -> dict[str, Any]:
    """The thorough sample session with the planted output as one more tool call, in the alert and in arguments."""
    document = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text(encoding="utf-8"))
    document["session_id"] = session_id
    document["alert"]["runbook_note"] = next(s for s in SECRETS if s.kind == "url-password").text
    call = {
        "server": "kubernetes-server",
        "name": "resources_get",
        "arguments": {
            "kind": "Secret",
            "name": "checkout-db",
            "password": next(s for s in SECRETS if s.kind == "json-password").value,
        },
        "result": planted_text(SECRETS),
        "success": True,
    }
    document["stages"][0]["steps"].insert(1, {"kind": "tool_call", "tool_call": call})
    return document


def _occurrences(where: str, haystack: str, secrets: Iterable[PlantedSecret] = SECRETS) -> list[str]:
    return [f"{where}: {s.kind}" for s in secrets if s.value in haystack]


def _every_column(database_url: str) -> str:
    """Every text, character and JSON column of every table, as text."""
    engine = create_engine(database_url)
    parts: list[str] = []
    try:
        with engine.connect() as conn:
            columns = conn.execute(
                text(
                    "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' "
                    "AND data_type IN ('text', 'character varying', 'json', 'jsonb', 'ARRAY', 'character')"
                )
            ).all()
            for table, column in columns:
                rows = conn.execute(text(f'SELECT "{column}"::text FROM "{table}"')).scalars().all()
                parts += [f"{table}.{column}={value}" for value in rows if value]
    finally:
        engine.dispose()
    return "\n".join(parts)


@pytest.fixture
def judge_quoting_a_secret(fake_claude: FakeClaude) -> FakeClaude:
    verdict = copy.deepcopy(SAMPLE_VERDICT)
    verdict["score_reasoning"] = f"{verdict['score_reasoning']} The agent printed the key {QUOTED.value} in its output."
    fake_claude.default = FakeReply(body=verdict_body(verdict))
    return fake_claude


def _claude(fake_claude: FakeClaude) -> dict[str, str]:
    return {
        "SCORING_LLM_PROVIDER": "anthropic",
        "ANTHROPIC_API_KEY": "test-key-not-secret",
        "ANTHROPIC_BASE_URL": fake_claude.base_url,
        "JUDGE_TIMEOUT_SECONDS": "5",
    }


def _score(stack: Stack, session_id: str) -> dict[str, Any]:
    assert stack.request_score(session_id).status_code == 202
    stack.poller.drain()
    score: dict[str, Any] = stack.score(session_id).json()
    assert score["status"] == "completed", score
    return score


def test_secrets_planted_in_an_upload_and_a_session_file_reach_no_judge_table_export_or_log(
    make_stack: Callable[..., Stack],
    judge_quoting_a_secret: FakeClaude,
    tmp_path: Path,
    json_logs: io.StringIO,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / f"{FILE_SESSION_ID}.json").write_text(json.dumps(_planted_session(FILE_SESSION_ID)), encoding="utf-8")
    stack = make_stack(SCORING_SESSIONS_DIR=str(tmp_path), **_claude(judge_quoting_a_secret))

    uploaded = stack.client.post(
        IMPORT,
        params={"file_name": "planted.json"},
        content=json.dumps(_planted_session("planted-upload")).encode(),
        headers={"content-type": "application/json"},
    )
    assert uploaded.status_code == 201, uploaded.text
    upload_id = uploaded.json()["session_id"]
    scores = [_score(stack, upload_id), _score(stack, FILE_SESSION_ID)]
    export = stack.client.get(EXPORT, params={"min_score": 0, "format": "normalized"})
    chat_export = stack.client.get(EXPORT, params={"min_score": 0, "format": "openai_chat"})
    session_view = stack.client.get(f"/api/v1/scoring/sessions/{upload_id}")
    from session_scoring.log import logger

    logger.warning("a line carrying session text", extra={"detail": planted_text(SECRETS)})

    assert export.status_code == 200
    assert len(export.text.splitlines()) == 2
    assert session_view.status_code == 200
    leaks = [
        *_occurrences("judge requests", json.dumps(judge_quoting_a_secret.requests)),
        *_occurrences("tables", _every_column(stack.env["SCORING_DATABASE_URL"])),
        *_occurrences("training export", export.text + chat_export.text),
        *_occurrences("session view", session_view.text),
        *_occurrences("score answers", json.dumps(scores)),
        *_occurrences("logs", json_logs.getvalue() + capsys.readouterr().out),
    ]
    assert leaks == []
    assert len(judge_quoting_a_secret.requests) == 2
    assert "[masked: aws-access-key-id]" in json.dumps(judge_quoting_a_secret.requests[0])
    for score in scores:
        assert sum(score["masked_values"].values()) >= len(SECRETS)
    assert uploaded.json()["masked_values"] == scores[0]["masked_values"]


def test_secrets_planted_in_a_phoenix_trace_reach_no_judge_table_or_write_back(
    make_stack: Callable[..., Stack],
    judge_quoting_a_secret: FakeClaude,
    loopback: Callable[[type[FakePhoenix]], FakePhoenix],
    json_logs: io.StringIO,
) -> None:
    phoenix = loopback(FakePhoenix)
    tool_span = next(s for s in phoenix.spans if s["name"] == "execute_tool kubernetes.pods_get")
    tool_span["attributes"]["gen_ai.tool.call.result"] = planted_text(SECRETS)
    stack = make_stack(
        SCORING_SESSION_SOURCE="phoenix",
        SCORING_SOURCE_URL=phoenix.base_url,
        SCORING_WRITEBACK="true",
        SCORING_SOURCE_RETRY_BASE_SECONDS="0",
        **_claude(judge_quoting_a_secret),
    )

    score = _score(stack, TRACE_ID)
    stack.poller.drain()
    export = stack.client.get(EXPORT, params={"min_score": 0, "format": "normalized"})

    assert stack.score(TRACE_ID).json()["writeback"]["status"] == "written"
    assert len(phoenix.annotations) == 1
    leaks = [
        *_occurrences("judge requests", json.dumps(judge_quoting_a_secret.requests)),
        *_occurrences("tables", _every_column(stack.env["SCORING_DATABASE_URL"])),
        *_occurrences("training export", export.text),
        *_occurrences("write-back", json.dumps(phoenix.annotations)),
        *_occurrences("logs", json_logs.getvalue()),
    ]
    assert leaks == []
    assert "[masked: aws-access-key-id]" in json.dumps(phoenix.annotations)
    assert sum(score["masked_values"].values()) >= len(SECRETS)


def test_a_batch_mode_verdict_quoting_a_secret_is_stored_masked_with_the_sessions_masked_count(
    make_stack: Callable[..., Stack], fake_claude: FakeClaude, tmp_path: Path
) -> None:
    """A batch-mode score is a score like any other: the verdict the batch returned is masked before it is stored,
    and the attempt records how many secrets its session had masked."""
    from devstack.queue_poller import QueuePoller
    from functions.scorer.app import handler

    (tmp_path / f"{FILE_SESSION_ID}.json").write_text(json.dumps(_planted_session(FILE_SESSION_ID)), encoding="utf-8")
    stack = make_stack(SCORING_SESSIONS_DIR=str(tmp_path), **_claude(fake_claude))
    verdict = copy.deepcopy(SAMPLE_VERDICT)
    verdict["score_reasoning"] = f"{verdict['score_reasoning']} The agent printed the key {QUOTED.value} in its output."
    fake_claude.script_batch(batch_succeeded(verdict))
    started = stack.client.post(
        "/api/v1/scoring/runs",
        json={"max_sessions": 10, "mode": "batch", "selection": {"session_ids": [FILE_SESSION_ID]}},
    )
    assert started.status_code == 202, started.text
    QueuePoller(stack.sqs, stack.env["SCORING_RUNS_QUEUE_URL"], handler, batch_size=10, wait_seconds=0).drain(100)
    assert stack.container.batch_poller.poll(900.0).submitted == 1
    assert stack.container.batch_poller.poll(900.0).completed == 1

    score = stack.score(FILE_SESSION_ID).json()
    assert score["status"] == "completed", score["error_message"]
    assert not _occurrences("the stored batch verdict", json.dumps(score))
    assert f"[masked: {QUOTED.kind}]" in score["score_reasoning"]
    assert sum(score["masked_values"].values()) >= len(SECRETS)
    assert not _occurrences("the batch request", json.dumps(fake_claude.batch_requests))
