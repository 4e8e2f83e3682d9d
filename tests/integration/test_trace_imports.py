"""Every trace format end to end: read from a file and uploaded through POST .../sessions:import, listed with its
source, scored through the real Anthropic SDK against the fake Messages API, with all its tool calls in the judge
request. Also the per-route body limits (5 MiB uploads, 4 KB score requests) on the bytes actually sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from session_scoring.models.session import Session
from tests.conftest import Stack
from tests.support.labelled_traces import TRACES, load_trace, trace_paths

IMPORT = "/api/v1/scoring/sessions:import"
FIXTURES = [p.name for p in trace_paths()]


@pytest.fixture
def traces_stack(make_stack: Any, fake_claude: Any) -> Stack:
    """The stack reading the trace fixtures from files, judged by Claude (real SDK -> fake Messages API)."""
    result: Stack = make_stack(
        SCORING_SESSIONS_DIR=str(TRACES),
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="5",
    )
    return result


def _prompt_text(request: dict[str, Any]) -> str:
    parts: list[str] = []
    for message in request["messages"]:
        content = message["content"]
        parts.extend([content] if isinstance(content, str) else [b.get("text", "") for b in content])
    return "\n".join(parts)


def assert_every_call_reached_the_judge(session: Session, fake_claude: Any) -> None:
    assert fake_claude.requests, "the judge was never called"
    prompt = _prompt_text(fake_claude.requests[-1])
    names = [c.qualified_name for c in session.tool_calls]
    assert names
    for name in set(names):
        assert prompt.count(name) >= names.count(name), name
    for call in session.tool_calls:
        for value in call.arguments.values():
            if isinstance(value, str) and '"' not in value and "\\" not in value:
                assert value[:60] in prompt, (call.qualified_name, value)


def _score(stack: Stack, session_id: str) -> dict[str, Any]:
    assert stack.request_score(session_id).status_code == 202
    assert stack.poller.drain() == 1
    score: dict[str, Any] = stack.score(session_id).json()
    assert score["status"] == "completed", score
    return score


@pytest.mark.parametrize("fixture", FIXTURES)
def test_a_trace_file_is_listed_and_scored_with_all_its_tool_calls(
    traces_stack: Stack, fake_claude: Any, fixture: str
) -> None:
    _, session = load_trace(TRACES / fixture)
    listing = traces_stack.client.get("/api/v1/scoring/sessions", params={"page_size": 50}).json()
    listed = {item["session_id"]: item for item in listing["items"]}
    assert listed[session.session_id]["source"] == "file"
    assert listing["skipped"] == []

    _score(traces_stack, session.session_id)

    assert_every_call_reached_the_judge(session, fake_claude)


@pytest.mark.parametrize("fixture", FIXTURES)
def test_an_uploaded_trace_is_stored_listed_and_scored_with_all_its_tool_calls(
    traces_stack: Stack, fake_claude: Any, fixture: str
) -> None:
    path = TRACES / fixture
    trace_format, session = load_trace(path)

    response = traces_stack.client.post(
        IMPORT, params={"file_name": fixture}, content=path.read_bytes(), headers={"content-type": "application/json"}
    )

    assert response.status_code == 201, response.text
    imported = response.json()
    new_id = imported["session_id"]
    assert new_id.startswith("upload:")
    assert response.headers["location"] == f"/api/v1/scoring/sessions/{new_id}"
    assert imported["trace_format"] == trace_format
    assert imported["tool_calls"] == len(session.tool_calls)
    assert imported["source"] == "upload"
    listing = traces_stack.client.get("/api/v1/scoring/sessions", params={"page_size": 50}).json()
    assert listing["items"][0]["session_id"] == new_id
    assert listing["items"][0]["source"] == "upload"
    assert listing["total_items"] == len(FIXTURES) + 1
    detail = traces_stack.client.get(f"/api/v1/scoring/sessions/{new_id}").json()
    assert detail["source"] == "upload"
    assert detail["final_analysis"] == session.final_analysis

    _score(traces_stack, new_id)

    assert_every_call_reached_the_judge(session, fake_claude)


def test_an_upload_never_takes_a_file_or_tarsy_id(stack: Stack) -> None:
    body = (TRACES / "openai_responses_disk.json").read_bytes()
    first = stack.client.post(IMPORT, content=body).json()
    second = stack.client.post(IMPORT, content=body).json()

    assert first["original_session_id"] == "resp-disk-db3"
    assert first["session_id"] != second["session_id"]
    assert {first["session_id"][:7], second["session_id"][:7]} == {"upload:"}


def _codex_log_of(size: int) -> bytes:
    """The Codex fixture with its tool output padded until the log is about ``size`` bytes."""
    lines = (TRACES / "codex_cert_expiry.jsonl").read_text().splitlines()
    filler = "log line: upstream handshake retried; "
    pad = filler * ((size - sum(map(len, lines)) - 200) // len(filler))
    event = json.loads(lines[6])
    event["payload"]["output"] = json.dumps({"output": pad, "metadata": {"exit_code": 0}})
    lines.insert(7, json.dumps(event | {"payload": event["payload"] | {"call_id": "call_k1"}}))
    return ("\n".join(lines) + "\n").encode()


def test_a_5_mb_upload_is_accepted_and_a_larger_one_gets_413_naming_the_limit(stack: Stack) -> None:
    body = _codex_log_of(5_000_000)
    accepted = stack.client.post(IMPORT, params={"file_name": "big.jsonl"}, content=body)
    too_large = stack.client.post(IMPORT, params={"file_name": "big.jsonl"}, content=b"x" * (5 * 1024 * 1024 + 1))

    assert 4_900_000 < len(body) <= 5_000_000
    assert accepted.status_code == 201, accepted.text[:300]
    assert accepted.json()["size_bytes"] == len(body)
    assert too_large.status_code == 413
    assert too_large.json()["code"] == "body_too_large"
    assert "5242880 bytes (5 MiB)" in too_large.json()["detail"]


def test_the_limit_applies_to_a_streamed_body_without_content_length(stack: Stack) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(6):
            yield b" " * (1024 * 1024)

    upload = stack.client.post(IMPORT, content=chunks())
    score = stack.client.post(
        "/api/v1/scoring/sessions/x-1/score",
        content=iter([b"{", b" " * 5000, b"}"]),
        headers={"content-type": "application/json"},
    )

    assert upload.status_code == 413
    assert score.status_code == 413
    assert "4096 bytes" in score.json()["detail"]


def test_an_unreadable_upload_gets_400_naming_the_line_and_what_was_expected(stack: Stack) -> None:
    broken = b'{"type": "session_meta", "payload": {}}\n{"type": "response_item", "payload": \n'
    response = stack.client.post(IMPORT, params={"file_name": "rollout.jsonl"}, content=broken)
    unknown = stack.client.post(IMPORT, json={"hello": "world"})

    assert response.status_code == 400
    assert "rollout.jsonl: line 2: expected one JSON object per line" in response.json()["detail"]
    assert unknown.status_code == 400
    assert "unrecognised session document" in unknown.json()["detail"]
    assert "OpenAI chat messages" in unknown.json()["detail"]


def test_files_that_fail_to_parse_are_listed_as_skipped_with_their_error(make_stack: Any, tmp_path: Path) -> None:
    (tmp_path / "good.jsonl").write_bytes((TRACES / "claude_code_node_notready.jsonl").read_bytes())
    (tmp_path / "broken.json").write_text('{"messages": [')
    stack: Stack = make_stack(SCORING_SESSIONS_DIR=str(tmp_path))

    listing = stack.client.get("/api/v1/scoring/sessions").json()

    assert [item["source"] for item in listing["items"]] == ["file"]
    assert listing["skipped"] == [
        {"origin": "broken.json", "error": listing["skipped"][0]["error"]},
    ]
    assert listing["skipped"][0]["error"].startswith("broken.json: not valid JSON")
