"""The sessions list's filters and sorts on real PostgreSQL and a directory of session files: scored lists (by band,
by score, current criteria or any) answered from the scores alone, unscored lists cut from the source a bounded
number of source pages at a time and continued with a cursor, and the combinations refused with a 422."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict
from session_scoring.models.records import PromptStats
from session_scoring.models.session_list import SessionListParams
from session_scoring.repositories.scores import ScoreRepository
from session_scoring.repositories.session_list import SessionListRepository
from session_scoring.services.facts import facts_of_summary
from session_scoring.services.session_list import SessionListService
from tests.conftest import SAMPLES, SHALLOW_ID, Stack

SESSIONS = "/api/v1/scoring/sessions"
OTHER = "b" * 64
# Eight sessions, s1 the oldest: the source lists them newest first (s8 ... s1).
IDS = [f"s{n}" for n in range(1, 9)]


def verdict(total: int) -> JudgeVerdict:
    parts = [min(25, max(0, total - 25 * i)) for i in range(4)]
    output = JudgeOutputSchema.model_validate(
        {
            "total_score": total,
            "score_breakdown": dict(
                zip(["logical_flow", "consistency", "tool_relevance", "synthesis_quality"], parts, strict=True)
            ),
            "score_reasoning": "seeded",
            "missing_tools": [],
            "alternative_approaches": [],
            "outcome": "no_reference",
            "outcome_reason": "no reference root cause was given for this session",
        }
    )
    return JudgeVerdict(output=output, provider="test", model="m")


def write_sessions(directory: Path) -> None:
    template = json.loads((SAMPLES / f"{SHALLOW_ID}.json").read_text())
    for n, session_id in enumerate(IDS, start=1):
        document = {
            **template,
            "session_id": session_id,
            "alert_type": f"Alert{n}",
            "agent_type": f"Agent{n % 2}",
            "started_at": f"2026-11-{n:02d}T10:00:00Z",
            "completed_at": f"2026-11-{n:02d}T10:05:00Z",
        }
        (directory / f"{session_id}.json").write_text(json.dumps(document))


def seed(stack: Stack, session_id: str, criteria_hash: str, total: int | None) -> None:
    """An attempt of ``session_id`` with the facts the source has; completed with ``total`` (None: left pending)."""
    repo: ScoreRepository = stack.container.score_repository
    repo.ensure_criteria(criteria_hash, {"scoring": {"llm_provider": "test", "criteria": criteria_hash}})
    summary = next(s for s in stack.container.source.list_sessions(1, 100).items if s.session_id == session_id)
    attempt = repo.create_attempt(uuid.uuid4(), session_id, criteria_hash, "test", facts_of_summary(summary))
    if total is None:
        return
    claim = repo.claim(attempt.attempt.score_id, 60)
    assert claim.claim_token is not None
    assert repo.complete(
        attempt.attempt.score_id, claim.claim_token, criteria_hash, verdict(total), PromptStats(False, None, None)
    )


@pytest.fixture
def listed(make_stack: Any, tmp_path: Path) -> Stack:
    """Under the current criteria: s1 95 (near_perfect), s2 80 (good), s3 50 (weak), s4 20 (failed), s6 pending.
    Under another criteria: s5 70 (adequate), and s2 30 scored last (so s2's latest score under any criteria is 30)."""
    write_sessions(tmp_path)
    stack: Stack = make_stack(SCORING_SESSIONS_DIR=str(tmp_path))
    current = stack.container.config.criteria_hash
    for session_id, criteria_hash, total in (
        ("s1", current, 95),
        ("s2", current, 80),
        ("s3", current, 50),
        ("s4", current, 20),
        ("s5", OTHER, 70),
        ("s2", OTHER, 30),
        ("s6", current, None),
    ):
        seed(stack, session_id, criteria_hash, total)
    return stack


def get(stack: Stack, **params: Any) -> dict[str, Any]:
    response = stack.client.get(SESSIONS, params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def ids_and_totals(body: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(i["session_id"], i["score"]["total_score"] if i["score"] else None) for i in body["items"]]


def test_scored_under_the_current_criteria_sorted_by_score(listed: Stack) -> None:
    body = get(listed, scored="scored", criteria="current", sort="score_desc")

    assert ids_and_totals(body) == [("s1", 95), ("s2", 80), ("s3", 50), ("s4", 20)]
    assert (body["total_items"], body["total_pages"], body["next_cursor"], body["scan"]) == (4, 1, None, None)
    first = body["items"][0]
    # The row's summary is the facts stored with the attempt: no call to the source.
    assert (first["status"], first["alert_type"], first["agent_type"], first["started_at"], first["source"]) == (
        "completed",
        "Alert1",
        "Agent1",
        "2026-11-01T10:00:00Z",
        "file",
    )
    assert first["score"]["status"] == "completed"
    assert first["score"]["is_current_criteria"] is True


def test_scored_under_any_criteria_ascending_pages_by_number(listed: Stack) -> None:
    everything = get(listed, sort="score_asc", criteria="any")  # a sort by score lists the scored sessions
    second = get(listed, sort="score_asc", criteria="any", page=2, page_size=2)

    assert ids_and_totals(everything) == [("s4", 20), ("s2", 30), ("s3", 50), ("s5", 70), ("s1", 95)]
    assert ids_and_totals(second) == [("s3", 50), ("s5", 70)]
    assert (second["page"], second["total_items"], second["total_pages"]) == (2, 5, 3)
    s2 = everything["items"][1]["score"]
    assert (s2["criteria_hash"], s2["is_current_criteria"]) == (OTHER, False)


def test_bands_filter_the_scored_sessions(listed: Stack) -> None:
    top = get(listed, band=["good", "near_perfect"], criteria="current", sort="score_desc")
    failed_any = get(listed, band="failed", criteria="any", sort="score_asc")

    assert ids_and_totals(top) == [("s1", 95), ("s2", 80)]
    assert top["total_items"] == 2
    assert ids_and_totals(failed_any) == [("s4", 20), ("s2", 30)]


def test_a_scored_list_in_source_order_shows_the_newest_scores_first(listed: Stack) -> None:
    body = get(listed, scored="scored", criteria="any")

    assert [i["session_id"] for i in body["items"]] == ["s2", "s5", "s4", "s3", "s1"]


def test_unscored_is_the_source_list_minus_the_scored_in_source_order(listed: Stack) -> None:
    current = get(listed, scored="unscored", criteria="current")
    anywhere = get(listed, scored="unscored")

    # s5 has a score, but not under the current criteria; s6's attempt is still pending.
    assert ids_and_totals(current) == [("s8", None), ("s7", None), ("s6", None), ("s5", None)]
    assert current["items"][2]["score"]["status"] == "pending"
    assert current["items"][3]["score"] is None  # its latest attempt under the current criteria: none
    assert ids_and_totals(anywhere) == [("s8", None), ("s7", None), ("s6", None)]
    assert (anywhere["total_items"], anywhere["total_pages"], anywhere["next_cursor"]) == (None, None, None)
    assert anywhere["scan"] == {"source_pages_read": 1, "source_page_limit": 5, "limit_reached": False}


def test_the_source_list_attaches_the_latest_attempt_under_the_chosen_criteria(listed: Stack) -> None:
    anywhere = {i["session_id"]: i["score"] for i in get(listed, page_size=10)["items"]}
    current = {i["session_id"]: i["score"] for i in get(listed, page_size=10, criteria="current")["items"]}

    assert (anywhere["s5"]["total_score"], anywhere["s2"]["total_score"]) == (70, 30)
    assert (current["s5"], current["s2"]["total_score"]) == (None, 80)


def test_an_unscored_list_reads_a_bounded_number_of_source_pages_and_continues_with_its_cursor(listed: Stack) -> None:
    container = listed.container
    service = SessionListService(
        container.config,
        SessionListRepository(container.query_engine),
        container.source,
        scan_page_size=3,
        scan_page_limit=1,
    )
    pages = []
    cursor = None
    while True:
        page = service.list_sessions(
            SessionListParams(page_size=2, scored="unscored", criteria="current", cursor=cursor)
        )
        pages.append(page)
        cursor = page.next_cursor
        if cursor is None:
            break

    # Source pages of 3: [s8 s7 s6] [s5 s4 s3] [s2 s1]; one source page per request at most.
    assert [[i.session_id for i in p.items] for p in pages] == [["s8", "s7"], ["s6"], ["s5"], []]
    assert [p.scan.limit_reached for p in pages if p.scan] == [False, True, True, False]
    assert all(p.scan is not None and p.scan.source_pages_read == 1 for p in pages)


@pytest.mark.parametrize(
    ("params", "complaint"),
    [
        ({"scored": "unscored", "band": "good"}, "cannot be combined with band"),
        ({"scored": "unscored", "sort": "score_desc"}, "cannot be combined with band or a sort by score"),
        ({"scored": "scored", "status": "completed"}, "drop status"),
        ({"band": "excellent"}, "band 'excellent' is not one of failed, weak"),
        ({"sort": "newest"}, "sort='newest' is not one of source, score_desc, score_asc"),
        ({"criteria": "latest"}, "criteria='latest' is not one of any, current"),
        ({"scored": "yes"}, "scored='yes' is not one of any, scored, unscored"),
        (
            {"cursor": "abc"},
            "cursor continues an unscored list (scored=unscored) or a source list in a start range only",
        ),
        ({"scored": "unscored", "page": 2}, "pages with cursor"),
        ({"scored": "unscored", "cursor": "not-a-cursor"}, "invalid cursor"),
    ],
)
def test_bad_values_and_combinations_are_refused_with_a_422_that_says_why(
    stack: Stack, params: dict[str, Any], complaint: str
) -> None:
    response = stack.client.get(SESSIONS, params=params)

    assert response.status_code == 422
    assert response.json()["code"] == "invalid_parameters"
    assert complaint in response.json()["detail"]


def test_a_cursor_used_with_other_filters_is_refused(listed: Stack) -> None:
    container = listed.container
    service = SessionListService(
        container.config, SessionListRepository(container.query_engine), container.source, scan_page_size=3
    )
    cursor = service.list_sessions(SessionListParams(page_size=2, scored="unscored")).next_cursor
    assert cursor is not None

    response = listed.client.get(SESSIONS, params={"scored": "unscored", "page_size": 3, "cursor": cursor})

    assert response.status_code == 422
    assert "other filters" in response.json()["detail"]


def test_a_start_range_filters_the_source_list_and_attaches_each_latest_score(listed: Stack) -> None:
    body = get(listed, started_after="2026-11-03T00:00:00Z", started_before="2026-11-06T00:00:00Z", criteria="current")

    assert ids_and_totals(body) == [("s5", None), ("s4", 20), ("s3", 50)]
    assert (body["total_items"], body["next_cursor"]) == (None, None)
    assert body["scan"] == {"source_pages_read": 1, "source_page_limit": 5, "limit_reached": False}


def test_a_start_range_filters_the_scored_and_the_unscored_lists(listed: Stack) -> None:
    scored = get(listed, sort="score_desc", criteria="current", started_after="2026-11-02T00:00:00Z")
    unscored = get(listed, scored="unscored", criteria="current", started_before="2026-11-07")  # no zone: UTC

    assert ids_and_totals(scored) == [("s2", 80), ("s3", 50), ("s4", 20)]
    assert (scored["total_items"], scored["total_pages"]) == (3, 1)  # counted in the range, not the band counters
    assert ids_and_totals(unscored) == [("s6", None), ("s5", None)]


def test_a_dated_source_list_pages_with_its_cursor(listed: Stack) -> None:
    container = listed.container
    service = SessionListService(
        container.config,
        SessionListRepository(container.query_engine),
        container.source,
        scan_page_size=3,
        scan_page_limit=1,
    )
    after = datetime(2026, 11, 2, tzinfo=UTC)
    before = datetime(2026, 11, 8, tzinfo=UTC)
    pages = []
    cursor = None
    while True:
        page = service.list_sessions(
            SessionListParams(page_size=2, started_after=after, started_before=before, cursor=cursor)
        )
        pages.append(page)
        cursor = page.next_cursor
        if cursor is None:
            break

    # Source pages of 3: [s8 s7 s6] [s5 s4 s3] [s2 s1]; s8 started on the 8th (outside), s1 on the 1st (outside).
    assert [[i.session_id for i in p.items] for p in pages] == [["s7", "s6"], ["s5", "s4"], ["s3"], ["s2"]]
    other = listed.client.get(
        SESSIONS, params={"page_size": 2, "started_after": "2026-11-03T00:00:00Z", "cursor": pages[0].next_cursor}
    )
    assert other.status_code == 422  # the cursor belongs to the list of the other range
    assert "other filters" in other.json()["detail"]


@pytest.mark.parametrize(
    ("params", "complaint"),
    [
        (
            {"started_after": "2026-11-05T00:00:00Z", "started_before": "2026-11-05T00:00:00Z"},
            "started_after must be before started_before",
        ),
        ({"started_after": "2026-11-05T00:00:00Z", "page": 2}, "pages with cursor"),
        ({"started_after": "yesterday"}, "started_after"),
    ],
)
def test_a_bad_start_range_is_refused_with_a_422_that_says_why(
    stack: Stack, params: dict[str, Any], complaint: str
) -> None:
    response = stack.client.get(SESSIONS, params=params)

    assert response.status_code == 422
    assert complaint in response.text
