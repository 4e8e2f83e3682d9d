"""A run's selection applied to one page of sessions: which are selected, which skipped and why."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from session_scoring.models.runs import RunSelection
from session_scoring.models.session import SessionSummary
from session_scoring.repositories.runs import SessionScoreState
from session_scoring.services.runs import decide_page

SCORABLE = {"completed"}


def summary(session_id: str, status: str = "completed", **fields: object) -> SessionSummary:
    return SessionSummary(session_id=session_id, status=status, **fields)  # type: ignore[arg-type]


def state(**fields: object) -> SessionScoreState:
    values: dict[str, object] = {
        "any_completed": False,
        "current_completed": False,
        "active": False,
        "latest_status": None,
        "latest_current_score": None,
        "in_run": None,
    }
    values.update(fields)
    return SessionScoreState(**values)  # type: ignore[arg-type]


def test_unscored_skips_scored_sessions_and_counts_active_and_unfinished_ones() -> None:
    page = [summary("new"), summary("scored"), summary("busy"), summary("running", status="in_progress")]
    states = {"scored": state(any_completed=True, latest_status="completed"), "busy": state(active=True)}

    decision = decide_page(RunSelection(which="unscored"), page, states, SCORABLE)

    assert decision.candidates == ["new"]
    assert decision.skipped == {"already_active": 1, "not_completed": 1}


def test_not_current_criteria_selects_sessions_scored_only_under_older_criteria() -> None:
    page = [summary("old"), summary("current")]
    states = {"old": state(any_completed=True), "current": state(any_completed=True, current_completed=True)}

    assert decide_page(RunSelection(which="not_current_criteria"), page, states, SCORABLE).candidates == ["old"]


def test_failed_and_score_below_look_at_the_latest_attempt_and_score() -> None:
    page = [summary("failed"), summary("low"), summary("high")]
    states = {
        "failed": state(latest_status="failed"),
        "low": state(latest_status="completed", current_completed=True, latest_current_score=40),
        "high": state(latest_status="completed", current_completed=True, latest_current_score=90),
    }

    assert decide_page(RunSelection(which="failed"), page, states, SCORABLE).candidates == ["failed"]
    below = RunSelection(which="score_below", score_below=60)
    assert decide_page(below, page, states, SCORABLE).candidates == ["low"]


def test_filters_by_ids_agent_alert_type_and_start_time() -> None:
    when = datetime(2026, 11, 10, tzinfo=UTC)
    page = [
        summary("a", agent_type="K8s", alert_type="OOM", started_at=when),
        summary("b", agent_type="Other", alert_type="OOM", started_at=when),
        summary("c", agent_type="K8s", alert_type="OOM", started_at=datetime(2026, 11, 1, tzinfo=UTC)),
        summary("d", agent_type="K8s", alert_type="OOM", started_at=when),
    ]
    selection = RunSelection(
        which="all",
        agent="K8s",
        alert_type="OOM",
        submitted_after=datetime(2026, 11, 5, tzinfo=UTC),
        session_ids=["a", "b", "c"],
    )

    assert decide_page(selection, page, {}, SCORABLE).candidates == ["a"]


def test_a_resumed_page_does_not_select_the_runs_own_sessions_again() -> None:
    page = [summary("queued"), summary("done"), summary("fresh")]
    queued = uuid.uuid4()
    states = {
        "queued": state(active=True, in_run="pending", in_run_score_id=queued),
        "done": state(any_completed=True, in_run="completed"),
    }

    decision = decide_page(RunSelection(which="all"), page, states, SCORABLE)

    assert decision.candidates == ["fresh"]
    assert decision.in_run_pending == [(queued, "queued")]
    assert not decision.skipped


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"which": "score_below"}, "needs score_below"),
        ({"which": "all", "score_below": 50}, "only used with which=score_below"),
        ({"submitted_after": "2026-11-02T00:00:00Z", "submitted_before": "2026-11-01T00:00:00Z"}, "earlier"),
        ({"session_ids": ["../etc/passwd"]}, "not a valid session id"),
        ({"session_ids": ["abc\n"]}, "not a valid session id"),  # ``$`` alone matched before a final newline
        ({"session_ids": ["abc\r"]}, "not a valid session id"),
    ],
)
def test_bad_selections_say_what_is_wrong(fields: dict[str, object], problem: str) -> None:
    with pytest.raises(ValidationError) as raised:
        RunSelection.model_validate(fields)

    assert problem in str(raised.value)


def test_with_reference_selects_the_sessions_with_a_reference_whatever_their_scores() -> None:
    page = [summary("benchmark-1"), summary("benchmark-2"), summary("plain"), summary("busy")]
    page.append(summary("unfinished", status="in_progress"))
    states = {"benchmark-2": state(any_completed=True, current_completed=True), "busy": state(active=True)}
    referenced = {"benchmark-1", "benchmark-2", "busy", "unfinished"}

    decision = decide_page(RunSelection(which="with_reference"), page, states, SCORABLE, referenced)

    assert decision.candidates == ["benchmark-1", "benchmark-2"]
    assert decision.skipped == {"already_active": 1, "not_completed": 1}
    assert decide_page(RunSelection(which="with_reference"), page, states, SCORABLE).candidates == []
