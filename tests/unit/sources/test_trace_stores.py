"""Trace-store spans as sessions: what the Phoenix and MLflow sources make of the stores' own answers.

The documents under ``tests/fixtures/trace_stores/`` are verbatim answers of real servers (arize-phoenix 20.26.1's
``GET /v1/projects/{project}/spans``, MLflow 3.17.2's ``GET /api/3.0/mlflow/traces/get`` and ``POST
/api/3.0/mlflow/traces/search``) to traces sent by ``tests/support/trace_store_agents.py`` for the investigations of
``investigations.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from session_scoring.configuration.criteria import SessionSourceSection
from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError
from session_scoring.models.session import Session
from session_scoring.sources.cursor_pages import numbered_page, slice_by_cursor
from session_scoring.sources.factory import build_source
from session_scoring.sources.mlflow import MlflowSearchPage, MlflowTraceAnswer, experiment_ids
from session_scoring.sources.trace_spans import StoreSpan, otlp_span, phoenix_span, session_from_spans

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "trace_stores"
INVESTIGATIONS = {i["key"]: i for i in json.loads((FIXTURES / "investigations.json").read_text())}


def _load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def _phoenix(convention: str) -> Session:
    spans = [phoenix_span(raw) for raw in _load(f"phoenix_spans_{convention}.json")["data"]]
    return session_from_spans(spans, spans[0].trace_id, f"Phoenix {convention} trace")


def _mlflow() -> Session:
    trace = MlflowTraceAnswer.model_validate(_load("mlflow_trace.json")).trace
    spans = [otlp_span(raw) for raw in trace.spans]
    return session_from_spans(spans, trace.trace_info.trace_id, "MLflow trace", trace.trace_info.status)


def _as_sent(session: Session, key: str) -> None:
    """The session holds the investigation as the agent ran it: task, reasoning, calls in order, failures, answer."""
    investigation = INVESTIGATIONS[key]
    calls = session.tool_calls
    assert [c.qualified_name for c in calls] == [s["tool"] for s in investigation["steps"]]
    for call, step in zip(calls, investigation["steps"], strict=True):
        assert call.arguments == step["arguments"]
        if "error" in step:
            assert not call.success
            assert call.error is not None
            assert step["error"] in call.error
            assert call.result is None
        else:
            assert call.success
            assert call.error is None
            assert call.result == step["result"]
        assert call.duration_ms is not None
    steps = [s for stage in session.stages for s in stage.steps]
    assert steps[0].kind == "message"
    assert steps[0].text == f"User: {investigation['task']}"
    reasoning = [s.text for s in steps if s.kind == "reasoning"]
    assert reasoning == [s["thought"] for s in investigation["steps"]]
    assert session.final_analysis == investigation["answer"]
    assert session.agent_type == investigation["agent"]
    assert session.status == "completed"
    assert sorted(t.qualified_name for t in session.all_available_tools) == sorted(
        {s["tool"] for s in investigation["steps"]}
    )


def test_a_phoenix_trace_in_the_genai_conventions_is_the_investigation_as_sent() -> None:
    session = _phoenix("genai")

    _as_sent(session, "oom-kill")
    assert session.session_id == _load("phoenix_spans_genai.json")["data"][0]["context"]["trace_id"]
    assert [c.duration_ms for c in session.tool_calls] == [150, 250, 350]


def test_a_phoenix_trace_in_the_openinference_conventions_is_the_investigation_as_sent() -> None:
    session = _phoenix("openinference")

    _as_sent(session, "forbidden-logs")
    assert [c.duration_ms for c in session.tool_calls] == [200, 250]


def test_an_mlflow_trace_is_the_investigation_as_sent_with_the_exception_of_the_failed_call() -> None:
    session = _mlflow()

    _as_sent(session, "forbidden-logs")
    assert session.session_id.startswith("tr-")
    assert session.tool_calls[0].error is not None
    assert session.tool_calls[0].error.startswith("ToolError: ")


def _span(span_id: str, parent: str | None, kind: str | None, **attributes: Any) -> StoreSpan:
    return StoreSpan(
        trace_id="a" * 32,
        span_id=span_id,
        parent_id=parent,
        name=f"span-{span_id}",
        start_ns=int(span_id) * 1_000_000,
        end_ns=int(span_id) * 1_000_000 + 500_000,
        attributes=attributes,
        kind=kind,
    )


def test_a_root_that_is_not_an_agent_span_is_read_as_the_agent_and_its_error_fails_the_session() -> None:
    root = StoreSpan(
        trace_id="a" * 32,
        span_id="1",
        parent_id=None,
        name="triage-chain",
        start_ns=1,
        end_ns=9_000_000,
        attributes={"openinference.span.kind": "CHAIN", "output.value": "Gave up: no access."},
        status="ERROR",
        status_message="the chain raised",
    )
    tool = _span("2", "1", "TOOL", **{"tool.name": "k8s.get", "input.value": '{"name": "x"}', "output.value": "ok"})

    session = session_from_spans([root, tool], "a" * 32, "trace")

    assert session.status == "failed"
    assert [s.name for s in session.stages] == ["triage-chain"]
    assert session.stages[0].error == "the chain raised"
    assert [(c.qualified_name, c.arguments, c.result) for c in session.tool_calls] == [("k8s.get", {"name": "x"}, "ok")]


def test_the_listings_read_the_stores_answers() -> None:
    from session_scoring.sources.phoenix import _summary

    roots = [_summary(phoenix_span(raw)) for raw in _load("phoenix_root_spans.json")["data"]]
    assert [r.status for r in roots] == ["completed"] * 3
    assert {r.agent_type for r in roots} <= {i["agent"] for i in INVESTIGATIONS.values()}
    assert all(r.started_at and r.completed_at and r.started_at < r.completed_at for r in roots)

    found = MlflowSearchPage.model_validate(_load("mlflow_search.json"))
    assert [t.status for t in found.traces] == ["completed"] * 3
    assert all(t.trace_id.startswith("tr-") and t.ended_at and t.request_time for t in found.traces)
    assert all(t.ended_at >= t.request_time for t in found.traces if t.ended_at and t.request_time)


# ---------------------------------------------------------------------------------------------- cursor paging


def _listing(items: int) -> tuple[list[tuple[str | None, int]], Any]:
    """A store listing of ``items`` numbers paged by cursors (the cursor is the next position, as text), and the
    requests it answered."""
    requests: list[tuple[str | None, int]] = []

    def fetch(cursor: str | None, limit: int) -> tuple[list[int], str | None]:
        requests.append((cursor, limit))
        start = int(cursor or 0)
        end = min(items, start + limit)
        return list(range(start, end)), str(end) if end < items else None

    return requests, fetch


@pytest.mark.parametrize(
    ("items", "page", "size", "expected", "more"),
    [
        (10, 1, 4, [0, 1, 2, 3], True),
        (10, 3, 4, [8, 9], False),
        (8, 2, 4, [4, 5, 6, 7], False),
        (10, 4, 4, [], False),
        (0, 1, 4, [], False),
    ],
)
def test_a_numbered_page_of_a_cursor_listing(items: int, page: int, size: int, expected: list[int], more: bool) -> None:
    _, fetch = _listing(items)

    found = slice_by_cursor(fetch, (page - 1) * size, size, max_limit=100)

    assert (found.items, found.more) == (expected, more)


def test_a_page_asks_for_what_it_needs_and_one_more_in_as_few_requests_as_the_largest_page_allows() -> None:
    requests, fetch = _listing(5000)

    found = slice_by_cursor(fetch, 2000, 100, max_limit=1000)

    assert found.items == list(range(2000, 2100))
    assert found.more
    assert [limit for _, limit in requests] == [1000, 1000, 101]


def test_the_totals_are_exact_only_when_the_listing_ended() -> None:
    _, fetch = _listing(10)
    assert numbered_page(slice_by_cursor(fetch, 8, 4, 100), 3, 4) == (10, 3, True)
    assert numbered_page(slice_by_cursor(fetch, 0, 4, 100), 1, 4) == (5, 2, False)


# ------------------------------------------------------------------------------------------------ configuration


@pytest.mark.parametrize("kind", ["phoenix", "mlflow"])
def test_a_store_source_needs_its_server_and_names_the_setting(kind: str) -> None:
    with pytest.raises(ConfigurationError, match="SCORING_SOURCE_URL"):
        build_source(SessionSourceSection(type=kind), Settings())  # type: ignore[arg-type]


def test_each_store_builds_its_source_with_its_project() -> None:
    phoenix = build_source(SessionSourceSection(type="phoenix", base_url="http://127.0.0.1:9"), Settings())
    mlflow = build_source(
        SessionSourceSection(type="mlflow", base_url="http://127.0.0.1:9", project="3, 7"), Settings()
    )

    assert (phoenix.name, phoenix.project) == ("phoenix", "default")
    assert (mlflow.name, mlflow.experiments) == ("mlflow", ["3", "7"])


def test_an_mlflow_experiment_is_named_by_its_id() -> None:
    assert experiment_ids("") == ["0"]
    with pytest.raises(ConfigurationError, match="SCORING_TRACE_STORE_PROJECT"):
        experiment_ids("agents")


def test_a_phoenix_project_name_that_cannot_be_a_path_is_refused() -> None:
    section = SessionSourceSection(type="phoenix", base_url="http://127.0.0.1:9", project="team/agents")
    with pytest.raises(ConfigurationError, match="project's id"):
        build_source(section, Settings())
