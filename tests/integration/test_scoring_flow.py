"""The whole flow on real PostgreSQL and moto: POST -> queue -> scoring handler -> GET."""

from __future__ import annotations

from typing import Any

from tests.conftest import FAILING_TOOLS_ID, IN_PROGRESS_ID, SHALLOW_ID, THOROUGH_ID, Stack
from tests.support.fake_claude import SAMPLE_VERDICT, reply_verdict


def test_post_queues_an_attempt_and_the_worker_completes_it(stack: Stack) -> None:
    response = stack.request_score(THOROUGH_ID)

    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "pending"
    assert body["total_score"] is None
    assert body["score_breakdown"] is None
    assert response.headers["location"] == f"/api/v1/scoring/sessions/{THOROUGH_ID}/score"

    assert stack.poller.drain() == 1

    score = stack.score(THOROUGH_ID).json()
    assert score["status"] == "completed"
    assert score["score_id"] == body["score_id"]
    assert 0 <= score["total_score"] <= 100
    assert sum(score["score_breakdown"].values()) == score["total_score"]
    assert set(score["score_breakdown"]) == {"logical_flow", "consistency", "tool_relevance", "synthesis_quality"}
    assert score["score_reasoning"]
    assert score["judge"]["provider"] == "heuristic"
    assert score["is_current_criteria"] is True
    assert score["scored_at"] is not None
    assert score["started_at"] is not None


def test_second_post_returns_the_completed_score_and_force_creates_a_second_attempt(stack: Stack) -> None:
    stack.request_score(THOROUGH_ID)
    stack.poller.drain()
    first = stack.score(THOROUGH_ID).json()

    again = stack.request_score(THOROUGH_ID)
    assert again.status_code == 200
    assert again.json() == first

    forced = stack.request_score(THOROUGH_ID, force=True)
    assert forced.status_code == 202
    assert forced.json()["score_id"] != first["score_id"]
    stack.poller.drain()

    history = stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}/scores").json()
    assert [h["score_id"] for h in history] == [forced.json()["score_id"], first["score_id"]]
    assert all(h["status"] == "completed" for h in history)


def test_active_attempt_is_returned_instead_of_a_second_one(stack: Stack) -> None:
    first = stack.request_score(SHALLOW_ID)
    again = stack.request_score(SHALLOW_ID, force=True)

    assert again.status_code == 202
    assert again.json()["score_id"] == first.json()["score_id"]
    assert stack.poller.drain() == 1


def test_session_not_completed_is_400_and_names_its_status(stack: Stack) -> None:
    response = stack.request_score(IN_PROGRESS_ID)

    assert response.status_code == 400
    assert "in_progress" in response.json()["detail"]
    assert stack.score(IN_PROGRESS_ID).status_code == 404


def test_unknown_session_is_404_and_nothing_is_stored(stack: Stack) -> None:
    response = stack.request_score("0d4b0a53-0000-4000-8000-000000000000")

    assert response.status_code == 404
    assert response.json()["code"] == "session_not_found"
    assert stack.container.score_repository.count_by_status() == {}


def test_claude_verdict_is_stored_field_for_field(claude_stack: Stack, fake_claude: Any) -> None:
    fake_claude.script(
        reply_verdict(SAMPLE_VERDICT, input_tokens=2100, output_tokens=640, cache_read=300, cache_write=50)
    )

    claude_stack.request_score(FAILING_TOOLS_ID)
    claude_stack.poller.drain()

    score = claude_stack.score(FAILING_TOOLS_ID).json()
    assert score["status"] == "completed"
    for field in ("total_score", "score_breakdown", "score_reasoning", "alternative_approaches"):
        assert score[field] == SAMPLE_VERDICT[field]
    # each missing tool as the judge wrote it, with the name the missing-tools analytics count it under
    written = [{"tool_name": t["tool_name"], "rationale": t["rationale"]} for t in score["missing_tools"]]
    assert written == SAMPLE_VERDICT["missing_tools"]
    assert [t["canonical_name"] for t in score["missing_tools"]] == [
        t["tool_name"] for t in SAMPLE_VERDICT["missing_tools"]
    ]
    assert score["judge"]["provider"] == "anthropic"
    assert score["judge"]["input_tokens"] == 2100
    assert score["judge"]["output_tokens"] == 640
    assert score["judge"]["cache_read_tokens"] == 300
    assert score["judge"]["cache_write_tokens"] == 50
    assert score["judge"]["latency_ms"] >= 0
