"""The EMF lines of the metrics recorded with a dimension of their own (printed at once, whatever the caller)."""

from __future__ import annotations

import pytest

from session_scoring.observability import (
    FailureCategory,
    Metric,
    count,
    emit_now,
    metrics,
    record_api_request,
    record_breaker_transition,
    record_score_failed,
)
from tests.support.emf import emf, named


@pytest.fixture(autouse=True)
def empty_metric_set() -> None:
    """Start from an empty shared set: code run outside a handler elsewhere in the session leaves figures in it."""
    metrics.clear_metrics()


@pytest.mark.parametrize(
    ("state", "gauge"),
    [("OPEN", [1]), ("HALF_OPEN", []), ("CLOSED", [0]), ("CircuitState.OPEN", [1])],
)
def test_breaker_transitions_count_by_state_and_set_the_open_gauge(
    capsys: pytest.CaptureFixture[str], state: str, gauge: list[int]
) -> None:
    record_breaker_transition(state)
    emitted = emf(capsys.readouterr().out)

    to_state = state.lower().removeprefix("circuitstate.")
    assert named(emitted, "JudgeBreakerTransitions", ToState=to_state) == [1]
    assert named(emitted, "JudgeBreakerOpen") == gauge


def test_api_requests_are_counted_by_route_template_method_and_status_class(
    capsys: pytest.CaptureFixture[str],
) -> None:
    route = "/api/v1/scoring/sessions/{session_id}/score"
    record_api_request(route, "post", 202)
    record_api_request(route, "POST", 503)
    emitted = emf(capsys.readouterr().out)

    assert named(emitted, "ApiRequests", Route=route, Method="POST", StatusClass="2xx") == [1]
    assert named(emitted, "ApiRequests", Route=route, Method="POST", StatusClass="5xx") == [1]


def test_a_failure_is_printed_at_once_with_its_category_apart_from_the_flushed_set(
    capsys: pytest.CaptureFixture[str],
) -> None:
    count(Metric.SCORES_COMPLETED)
    record_score_failed(FailureCategory.TRANSIENT)
    before_flush = emf(capsys.readouterr().out)
    metrics.flush_metrics()
    flushed = emf(capsys.readouterr().out)

    assert named(before_flush, "ScoresFailed", ReasonCategory="transient") == [1]
    assert named(before_flush, "ScoresCompleted") == []
    # The completed count carries only the service dimension: the failure's category does not leak into it.
    assert named(flushed, "ScoresCompleted") == [1]


def test_a_breaker_failing_open_is_counted(capsys: pytest.CaptureFixture[str]) -> None:
    emit_now(Metric.BREAKER_STATE_UNAVAILABLE)

    assert named(emf(capsys.readouterr().out), "BreakerStateUnavailable") == [1]
