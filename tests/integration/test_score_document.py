"""The latest attempt read as one JSON document (``GET .../score``) answers exactly what the record mapping
(``to_record`` + ``to_session_score``, every other read) answers, field for field and byte for byte."""

from __future__ import annotations

import uuid

from sqlalchemy import text

from session_scoring.models.api import SessionScore
from session_scoring.services.scoring import to_session_score
from tests.conftest import THOROUGH_ID, Stack


def _both(stack: Stack, current_criteria_hash: str) -> tuple[SessionScore, SessionScore]:
    """The session's latest attempt through the document and through the record mapping."""
    repository = stack.container.repository
    document = repository.latest_score_document(THOROUGH_ID, current_criteria_hash)
    assert document is not None
    newest = repository.list_for_session(THOROUGH_ID)[0]
    return SessionScore.model_validate_json(document), to_session_score(newest, current_criteria_hash)


def _sql(stack: Stack, statement: str) -> None:
    with stack.container.engine.begin() as conn:
        conn.execute(text(statement))


def test_a_completed_attempt_with_every_optional_field_reads_the_same(stack: Stack) -> None:
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
    current = stack.container.config.criteria_hash

    by_document, by_record = _both(stack, current)

    assert by_document.status == "completed"
    assert by_document.missing_tools or by_document.alternative_approaches  # children are compared too
    assert by_document.session_facts is not None
    assert by_document.judge.estimated_cost_usd == 0.012345
    assert by_document == by_record
    assert by_document.model_dump_json() == by_record.model_dump_json()
    other_criteria = _both(stack, "f" * 64)
    assert other_criteria[0].is_current_criteria is False
    assert other_criteria[0] == other_criteria[1]


def test_a_pending_attempt_without_facts_reads_the_same(stack: Stack) -> None:
    assert stack.request_score(THOROUGH_ID).status_code == 202
    _sql(stack, "UPDATE session_scores SET " + ", ".join(f"{c} = NULL" for c in _FACT_COLUMNS))

    by_document, by_record = _both(stack, stack.container.config.criteria_hash)

    assert by_document.status == "pending"
    assert by_document.session_facts is None
    assert by_document.missing_tools == []
    assert by_document.total_score is None
    assert by_document.model_dump_json() == by_record.model_dump_json()


def test_a_session_never_scored_has_no_document(stack: Stack) -> None:
    assert stack.container.repository.latest_score_document("never-scored", "a" * 64) is None


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
