"""Faults of the judge, injected through the fake Claude server the real SDK talks to over HTTP.

Transient faults are retried within the same delivery and the attempt completes; invalid output gets one repair
turn and otherwise fails with a reason that names the problem (never a score of 0).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import FAILING_TOOLS_ID, Stack
from tests.support.fake_claude import SAMPLE_VERDICT, FakeReply, reply_error, reply_verdict

TRANSIENT_FAULTS = {
    "429 with retry-after": reply_error(429, "rate_limit_error", "slow down", headers={"retry-after": "1"}),
    "529 overloaded": reply_error(529, "overloaded_error", "Overloaded"),
    "500 server error": reply_error(500, "api_error", "Internal server error"),
    "hang past the timeout": FakeReply(body=reply_verdict(SAMPLE_VERDICT).body, delay_seconds=1.5),
    "connection reset": FakeReply(drop_connection=True),
}


@pytest.mark.parametrize("fault", list(TRANSIENT_FAULTS), ids=list(TRANSIENT_FAULTS))
def test_transient_judge_fault_is_retried_and_the_attempt_completes(
    fault: str, fault_stack: Stack, fake_claude: Any, settle: Any
) -> None:
    fake_claude.script(TRANSIENT_FAULTS[fault], reply_verdict(SAMPLE_VERDICT))

    fault_stack.request_score(FAILING_TOOLS_ID)
    state = settle(fault_stack, faults=1, jobs=1)

    assert state.completed == 1
    score = fault_stack.score(FAILING_TOOLS_ID).json()
    assert score["status"] == "completed"
    assert score["total_score"] == SAMPLE_VERDICT["total_score"]
    assert score["error_message"] is None
    assert len(fake_claude.requests) == 2  # the fault, then the retry


OUTPUT_FAULTS = {
    "invalid JSON": (reply_verdict('{"total_score": 67, "score_breakdown": '), "not JSON"),
    "JSON violating the schema": (
        reply_verdict({**SAMPLE_VERDICT, "score_breakdown": {"logical_flow": 40}}),
        "score_breakdown lacks consistency, tool_relevance, synthesis_quality",
    ),
    "output truncated at max_tokens": (
        reply_verdict('{"total_score": 67, "score_reasoning": "The agent', stop_reason="max_tokens"),
        "cut off at max_tokens",
    ),
    "empty response": (reply_verdict(""), "empty"),
}


@pytest.mark.parametrize("fault", list(OUTPUT_FAULTS), ids=list(OUTPUT_FAULTS))
def test_invalid_output_twice_fails_the_attempt_with_the_reason(
    fault: str, fault_stack: Stack, fake_claude: Any, settle: Any
) -> None:
    reply, problem = OUTPUT_FAULTS[fault]
    fake_claude.script(reply, reply)

    fault_stack.request_score(FAILING_TOOLS_ID)
    state = settle(fault_stack, faults=2, jobs=1)

    assert state.completed == 0
    score = fault_stack.score(FAILING_TOOLS_ID).json()
    assert score["status"] == "failed"
    assert score["total_score"] is None
    assert "invalid after one repair turn" in score["error_message"]
    assert problem in score["error_message"]
    assert len(fake_claude.requests) == 2  # the answer and one repair turn; invalid output is not retried
    assert "was not a valid evaluation" in fake_claude.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize("fault", list(OUTPUT_FAULTS), ids=list(OUTPUT_FAULTS))
def test_invalid_output_once_is_repaired(fault: str, fault_stack: Stack, fake_claude: Any, settle: Any) -> None:
    reply, _problem = OUTPUT_FAULTS[fault]
    fake_claude.script(reply, reply_verdict(SAMPLE_VERDICT))

    fault_stack.request_score(FAILING_TOOLS_ID)
    state = settle(fault_stack, faults=1, jobs=1)

    assert state.completed == 1
    assert fault_stack.score(FAILING_TOOLS_ID).json()["total_score"] == SAMPLE_VERDICT["total_score"]


def test_rejected_credentials_fail_at_once_without_retry(fault_stack: Stack, fake_claude: Any, settle: Any) -> None:
    fake_claude.script(reply_error(401, "authentication_error", "invalid x-api-key"))

    fault_stack.request_score(FAILING_TOOLS_ID)
    state = settle(fault_stack, faults=1, jobs=1)

    assert "refused our credentials" in state.reason(FAILING_TOOLS_ID)
    assert len(fake_claude.requests) == 1


def test_transient_faults_beyond_the_retries_come_back_on_a_later_delivery(
    fault_stack: Stack, fake_claude: Any, settle: Any
) -> None:
    # One delivery makes 1 + 3 calls; all four fail, so the attempt goes back to pending and the message returns.
    fake_claude.script(*[reply_error(500, "api_error", "boom") for _ in range(4)])

    fault_stack.request_score(FAILING_TOOLS_ID)
    fault_stack.poller.drain()
    pending = fault_stack.score(FAILING_TOOLS_ID).json()
    assert pending["status"] == "pending"
    assert "transient failure, will retry" in pending["error_message"]
    assert "500" in pending["error_message"]

    fault_stack.poller.make_deferred_visible()
    state = settle(fault_stack, faults=4, jobs=1)
    assert state.completed == 1


def test_the_repair_turn_never_runs_past_the_callers_deadline(fault_stack: Stack, fake_claude: Any) -> None:
    from session_scoring.errors import JudgeTransientError
    from session_scoring.judge.base import JudgeRequest
    from session_scoring.judge.rendering import build_prompt

    container = fault_stack.container
    session = container.source.get_session(FAILING_TOOLS_ID)
    slow_invalid = FakeReply(body=reply_verdict("not json").body, delay_seconds=0.5)
    fake_claude.script(slow_invalid, reply_verdict(SAMPLE_VERDICT))
    request = JudgeRequest(
        session=session, prompt=build_prompt(container.config, session), timeout_seconds=1.0, budget_seconds=1.2
    )

    with pytest.raises(JudgeTransientError, match="no time left for the repair turn"):
        container.judge.evaluate(request)
    assert len(fake_claude.requests) == 1
