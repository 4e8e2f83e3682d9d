"""``GET .../score`` (the hot read) answers the session's latest attempt with every field as stored: the same mapping
(``to_record``, ``to_session_score``) as every other read of an attempt."""

from __future__ import annotations

import uuid

from sqlalchemy import text

from tests.conftest import THOROUGH_ID, Stack


def _sql(stack: Stack, statement: str) -> None:
    with stack.container.engine.begin() as conn:
        conn.execute(text(statement))


def test_a_completed_attempt_answers_every_optional_field(stack: Stack) -> None:
    assert stack.request_score(THOROUGH_ID).status_code == 202
    assert stack.poller.drain() == 1
    # What the heuristic judge leaves empty: an ensemble's spread, a price, a run.
    run_id = uuid.uuid4()
    _sql(
        stack,
        "INSERT INTO scoring_runs (run_id, name, selection, max_sessions, criteria_hash, judge_model, started_by) "
        f"SELECT '{run_id}', 'a run', '{{}}', 1, criteria_hash, 'heuristic', 'test' FROM session_scores LIMIT 1",
    )
    _sql(
        stack,
        f"""UPDATE session_scores SET estimated_cost_usd = 0.012345, run_id = '{run_id}',
               score_spread = '{{"totals": [60, 62, 61], "total": {{"min": 60, "max": 62, "stdev": 0.82}}}}'""",
    )

    response = stack.score(THOROUGH_ID)

    assert response.status_code == 200
    score = response.json()
    assert score["status"] == "completed"
    assert score["is_current_criteria"] is True
    assert score["missing_tools"] or score["alternative_approaches"]
    assert score["session_facts"]["captured_at"] is not None
    assert score["judge"]["estimated_cost_usd"] == 0.012345
    assert score["judge"]["provider"] == "heuristic"
    assert score["run_id"] == str(run_id)
    assert score["score_spread"]["totals"] == [60, 62, 61]
    history = stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}/scores").json()
    assert history[0] == score


def test_a_pending_attempt_without_facts_answers_none_for_them(stack: Stack) -> None:
    assert stack.request_score(THOROUGH_ID).status_code == 202
    _sql(stack, "UPDATE session_scores SET " + ", ".join(f"{c} = NULL" for c in _FACT_COLUMNS))

    score = stack.score(THOROUGH_ID).json()

    assert score["status"] == "pending"
    assert score["session_facts"] is None
    assert score["missing_tools"] == []
    assert score["total_score"] is None


def test_a_session_never_scored_answers_404(stack: Stack) -> None:
    response = stack.score("never-scored")

    assert response.status_code == 404
    assert response.json()["code"] == "score_not_found"


_FACT_COLUMNS = (
    "session_agent",
    "session_alert_type",
    "session_started_at",
    "session_ended_at",
    "session_stages",
    "session_tool_calls",
    "session_source",
    "facts_captured_at",
)
