"""Write-back as the scorer runs it, on the local stack (real PostgreSQL, moto, the heuristic judge).

The round trips against real Phoenix and MLflow servers are in ``tests/trace_stores`` (``make trace-stores``); here,
what holds whatever the store: a write-back that cannot be done fails visibly on the attempt and never the score,
and an attempt without write-back shows none.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import THOROUGH_ID, Stack


def test_write_back_asked_of_a_source_without_traces_fails_on_the_attempt_and_the_score_completes(
    make_stack: Any,
) -> None:
    stack: Stack = make_stack(SCORING_WRITEBACK="true")  # sessions from files: nothing to write back to

    assert stack.request_score(THOROUGH_ID).status_code == 202
    assert stack.poller.drain() == 1

    score = stack.score(THOROUGH_ID).json()
    assert score["status"] == "completed"
    writeback = score["writeback"]
    assert (writeback["sink"], writeback["status"], writeback["tries"]) == ("file", "failed", 1)
    assert "SCORING_WRITEBACK" in writeback["error_message"]
    assert "phoenix or mlflow" in writeback["error_message"]
    history = stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}/scores").json()
    assert history[0]["writeback"] == writeback
    assert stack.poller.drain() == 0  # acknowledged: a write-back that cannot be done is not retried


def test_without_write_back_a_score_has_none(stack: Stack) -> None:
    stack.request_score(THOROUGH_ID)
    stack.poller.drain()

    assert stack.score(THOROUGH_ID).json()["writeback"] is None
