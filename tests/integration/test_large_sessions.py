"""One large session does not hurt everyone: its view comes by pages of bounded size (an upload cut in PostgreSQL),
every step exactly once; a statement past its timeout is a 503 with Retry-After; concurrent forced re-scores of one
session make one attempt at a time, never a 500."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import text

from session_scoring.db.calls import db_call
from session_scoring.errors import DatabaseUnavailableError
from session_scoring.services.sessions import PAGE_BYTES
from tests.conftest import Stack
from tests.support.long_session import long_session_document

IMPORT = "/api/v1/scoring/sessions:import"
TOOL_CALLS = 3_000


@pytest.fixture
def large_upload(stack: Stack) -> str:
    document = long_session_document("large-1", tool_calls=TOOL_CALLS)
    imported = stack.client.post(IMPORT, content=json.dumps(document), headers={"content-type": "application/json"})
    assert imported.status_code == 201, imported.text
    session_id: str = imported.json()["session_id"]
    return session_id


def test_the_view_of_a_large_session_is_a_bounded_first_page_then_pages_of_every_step_once(
    stack: Stack, large_upload: str
) -> None:
    first = stack.client.get(f"/api/v1/scoring/sessions/{large_upload}")
    detail = first.json()
    seen = [(0, i) for i in range(len(detail["stages"][0]["steps"]))]
    offset = detail["next_steps_offset"]
    pages = 0
    while offset is not None:
        page = stack.client.get(f"/api/v1/scoring/sessions/{large_upload}/steps", params={"offset": offset}).json()
        assert len(json.dumps(page["steps"])) <= 2 * PAGE_BYTES
        seen += [(step["stage_index"], step["step_index"]) for step in page["steps"]]
        offset = page["next_offset"]
        pages += 1

    assert first.status_code == 200
    assert len(first.content) < 2 * PAGE_BYTES
    assert detail["steps_total"] == 2 * TOOL_CALLS
    assert 0 < detail["steps_shown"] < detail["steps_total"]
    assert detail["final_analysis"].startswith("Root cause")
    assert pages > 1
    assert seen == [(0, i) for i in range(2 * TOOL_CALLS)]  # every step once, in order


def test_a_small_session_is_shown_whole(stack: Stack) -> None:
    from tests.conftest import THOROUGH_ID

    detail = stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}").json()

    assert detail["steps_shown"] == detail["steps_total"] > 0
    assert detail["next_steps_offset"] is None


def test_a_statement_past_its_timeout_is_unavailable_not_an_error(make_stack: Any) -> None:
    stack = make_stack(SCORING_DATABASE_STATEMENT_TIMEOUT_MS="100")

    @db_call
    def slow() -> None:
        with stack.container.engine.connect() as db:
            db.execute(text("SELECT pg_sleep(2)"))

    with pytest.raises(DatabaseUnavailableError, match="ran past its timeout"):
        slow()


def test_concurrent_forced_rescores_of_a_large_session_make_one_attempt_never_a_500(
    stack: Stack, large_upload: str
) -> None:
    service = stack.container.scoring_service
    start = threading.Barrier(8)

    def force(_: int) -> str:
        start.wait(timeout=30)
        return str(service.request_score(large_upload, True, "fuzz").score_id)

    with ThreadPoolExecutor(8) as pool:
        score_ids = list(pool.map(force, range(8)))
    statuses = [stack.request_score(large_upload, force=True).status_code for _ in range(3)]

    assert len(set(score_ids)) == 1  # one attempt: every forced request answered with it
    assert statuses == [202, 202, 202]
    assert stack.container.score_repository.count_by_status() == {"pending": 1}


def test_a_request_whose_active_attempt_keeps_ending_under_it_is_a_409_not_a_500(
    stack: Stack, large_upload: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert stack.request_score(large_upload).status_code == 202  # an active attempt the insert keeps meeting ...
    repository = stack.container.score_repository
    monkeypatch.setattr(repository, "active_for_session", lambda session_id: None)  # ... ended each time it is read

    answer = stack.request_score(large_upload, force=True)

    assert answer.status_code == 409
    assert answer.json()["code"] == "attempt_conflict"
    assert "send the request again" in answer.json()["detail"]
