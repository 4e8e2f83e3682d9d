"""The judge's input through the real scorer path: prompt caching, long sessions, rate limits (real SDK, fake
Messages API over HTTP, real PostgreSQL, moto)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FAILING_TOOLS_ID, SAMPLES, SHALLOW_ID, THOROUGH_ID, Stack
from tests.support.fake_claude import SAMPLE_VERDICT, FakeReply, reply_error, verdict_body
from tests.support.long_session import long_session_document, tool_name


def _score(stack: Stack, session_id: str, force: bool = False) -> dict[str, Any]:
    stack.request_score(session_id, force=force)
    stack.poller.drain()
    result: dict[str, Any] = stack.score(session_id).json()
    return result


def test_every_score_after_the_first_reads_the_rubric_from_the_cache(claude_stack: Stack, fake_claude: Any) -> None:
    first = _score(claude_stack, THOROUGH_ID)
    second = _score(claude_stack, SHALLOW_ID)
    third = _score(claude_stack, THOROUGH_ID, force=True)

    assert [s["status"] for s in (first, second, third)] == ["completed"] * 3
    assert first["judge"]["cache_write_tokens"] > 1024
    assert first["judge"]["cache_read_tokens"] == 0
    for later in (second, third):
        assert later["judge"]["cache_read_tokens"] == first["judge"]["cache_write_tokens"]
        assert later["judge"]["cache_write_tokens"] == 0
    systems = [request["system"] for request in fake_claude.requests]
    assert systems[0] == systems[1] == systems[2]
    assert systems[0][-1]["cache_control"] == {"type": "ephemeral"}
    users = [request["messages"][0]["content"] for request in fake_claude.requests]
    assert users[0] != users[2]  # same session, a fresh fence marker per request


def test_the_repair_turn_reads_the_prefix_its_first_call_wrote(claude_stack: Stack, fake_claude: Any) -> None:
    wrong_total = {**SAMPLE_VERDICT, "total_score": 90}
    fake_claude.script(
        FakeReply(body=verdict_body(wrong_total), cache_accounting=True),
        FakeReply(body=verdict_body(SAMPLE_VERDICT), cache_accounting=True),
    )

    score = _score(claude_stack, FAILING_TOOLS_ID)

    assert score["status"] == "completed"
    assert len(fake_claude.requests) == 2
    assert fake_claude.requests[0]["system"] == fake_claude.requests[1]["system"]
    assert score["judge"]["cache_write_tokens"] > 0
    assert score["judge"]["cache_read_tokens"] == score["judge"]["cache_write_tokens"]


def test_a_long_retry_after_gives_the_job_back_instead_of_sleeping(claude_stack: Stack, fake_claude: Any) -> None:
    fake_claude.script(reply_error(429, "rate_limit_error", "Number of requests exceeded", {"retry-after": "40"}))

    score = _score(claude_stack, THOROUGH_ID)

    assert len(fake_claude.requests) == 1  # not retried inside the invocation
    assert score["status"] == "pending"
    assert "will retry in about 40 s" in score["error_message"]
    assert "429" in score["error_message"]


def test_a_short_retry_after_is_retried_in_the_same_invocation(claude_stack: Stack, fake_claude: Any) -> None:
    fake_claude.script(reply_error(429, "rate_limit_error", "slow down", {"retry-after-ms": "50"}))

    score = _score(claude_stack, THOROUGH_ID)

    assert score["status"] == "completed"
    assert len(fake_claude.requests) == 2
    # The whole judging (both calls and the 50 ms wait) is stored beside the successful call's latency.
    assert score["judge"]["judging_ms"] >= score["judge"]["latency_ms"] + 50


def test_a_2400_tool_call_session_is_scored_at_a_50k_budget_with_every_call_named_and_the_compaction_stored(
    make_stack: Any, fake_claude: Any, tmp_path: Path
) -> None:
    session_id = "0b7e2c1a-2400-4000-8000-000000002400"
    document = long_session_document(session_id, tool_calls=2_400)
    (tmp_path / f"{session_id}.json").write_text(json.dumps(document), encoding="utf-8")
    assert (tmp_path / f"{session_id}.json").stat().st_size > 2_000_000
    stack: Stack = make_stack(
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="10",
        JUDGE_INPUT_BUDGET_TOKENS="50000",
        SCORING_SESSIONS_DIR=str(tmp_path),
    )

    score = _score(stack, session_id)

    assert score["status"] == "completed", score.get("error_message")
    sent = fake_claude.requests[0]["messages"][0]["content"]
    # Every call is its own line, in order, named, with its error status.
    named = re.findall(r"^1\.\d+ k8s\.(probe_\d{4}) ", sent, flags=re.MULTILINE)
    assert named == [tool_name(index) for index in range(2_400)]
    failed = re.findall(r"^1\.\d+ k8s\.(probe_\d{4}) \S+ FAILED\b", sent, flags=re.MULTILINE)
    assert failed == [tool_name(index) for index in range(2_400) if index % 100 == 7]
    assert "NOTE: this session was compacted" in sent
    assert "Tool calls are listed tersely" in sent
    judge = score["judge"]
    assert judge["prompt_compacted"] is True
    assert judge["prompt_tokens_before"] > 500_000
    assert judge["prompt_tokens_after"] <= 50_000


def test_a_heuristic_score_stores_no_prompt_token_counts(stack: Stack) -> None:
    score = _score(stack, THOROUGH_ID)

    assert score["status"] == "completed"
    judge = score["judge"]
    assert judge["provider"] == "heuristic"
    assert judge["prompt_compacted"] is False
    assert judge["prompt_tokens_before"] is None
    assert judge["prompt_tokens_after"] is None
    assert judge["judging_ms"] is not None
    assert judge["estimated_cost_usd"] == 0  # priced at 0 in config/scoring_config.yaml


@pytest.mark.parametrize("session_id", [THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID])
def test_the_sample_sessions_are_sent_once_without_a_second_copy_of_the_schema(
    claude_stack: Stack, fake_claude: Any, session_id: str
) -> None:
    assert (SAMPLES / f"{session_id}.json").is_file()

    _score(claude_stack, session_id)

    request = fake_claude.requests[0]
    sent_text = "".join(block["text"] for block in request["system"]) + request["messages"][0]["content"]
    assert "properties" not in sent_text
    assert "properties" in json.dumps(request["output_config"])
