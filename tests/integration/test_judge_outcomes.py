"""What the stored attempt says for each kind of judge answer (real SDK, fake Messages API over HTTP)."""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.conftest import THOROUGH_ID, Stack
from tests.support.fake_claude import SAMPLE_VERDICT, reply_error, reply_verdict


def scored(stack: Stack) -> dict[str, Any]:
    stack.request_score(THOROUGH_ID)
    stack.poller.drain()
    result: dict[str, Any] = stack.score(THOROUGH_ID).json()
    return result


def test_invalid_json_then_still_invalid_fails_with_a_reason_not_a_zero(claude_stack: Stack, fake_claude: Any) -> None:
    fake_claude.script(reply_verdict("this is not json"), reply_verdict('{"total_score": 50'))

    score = scored(claude_stack)

    assert score["status"] == "failed"
    assert score["total_score"] is None
    assert "invalid after one repair turn" in score["error_message"]
    assert "not JSON" in score["error_message"]
    assert len(fake_claude.requests) == 2


def test_repair_turn_sends_the_errors_back_and_a_corrected_answer_completes(
    claude_stack: Stack, fake_claude: Any
) -> None:
    wrong_total = {**copy.deepcopy(SAMPLE_VERDICT), "total_score": 90}
    fake_claude.script(reply_verdict(wrong_total), reply_verdict(SAMPLE_VERDICT))

    score = scored(claude_stack)

    assert score["status"] == "completed"
    assert score["total_score"] == SAMPLE_VERDICT["total_score"]
    repair = fake_claude.requests[1]["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    assert "add up to 67" in repair[2]["content"]
    assert score["judge"]["input_tokens"] == 2 * 1200


def test_out_of_range_dimension_is_rejected_after_repair(claude_stack: Stack, fake_claude: Any) -> None:
    bad = copy.deepcopy(SAMPLE_VERDICT)
    bad["score_breakdown"]["logical_flow"] = 40
    bad["total_score"] = 92
    fake_claude.script(reply_verdict(bad), reply_verdict(bad))

    score = scored(claude_stack)

    assert score["status"] == "failed"
    assert "score_breakdown.logical_flow" in score["error_message"]


def test_authentication_error_fails_at_once_naming_the_setting(claude_stack: Stack, fake_claude: Any) -> None:
    fake_claude.script(reply_error(401, "authentication_error", "invalid x-api-key"))

    score = scored(claude_stack)

    assert score["status"] == "failed"
    assert "ANTHROPIC_API_KEY" in score["error_message"]
    assert len(fake_claude.requests) == 1


def test_request_carries_schema_constrained_output_and_no_sdk_retries(claude_stack: Stack, fake_claude: Any) -> None:
    scored(claude_stack)

    request = fake_claude.requests[0]
    assert request["output_config"]["format"]["type"] == "json_schema"
    schema = json.dumps(request["output_config"]["format"]["schema"])
    assert "synthesis_quality" in schema
    assert request["model"] == "claude-sonnet-4-6"
    headers = fake_claude.request_headers[0]
    assert headers.get("x-stainless-retry-count", "0") == "0"
    assert "test-key-not-secret" not in json.dumps(request)


def test_transient_errors_are_retried_then_complete(claude_stack: Stack, fake_claude: Any) -> None:
    fake_claude.script(
        reply_error(529, "overloaded_error", "Overloaded"),
        reply_error(500, "api_error", "Internal error"),
    )

    score = scored(claude_stack)

    assert score["status"] == "completed"
    assert len(fake_claude.requests) == 3
