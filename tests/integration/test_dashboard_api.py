"""The API the dashboard's daily use needs, on real PostgreSQL: a session's scores for its page (never a 404 for a
session not scored), search by id, agent or alert, the values a filter can take, case-insensitive filters, totals,
and the filters a chart element opens the Scores table with."""

from __future__ import annotations

import uuid
from typing import Any

from devstack.seed import seed
from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict
from session_scoring.models.records import PromptStats, SessionFacts
from tests.conftest import ROOT, Stack
from tests.integration.test_analytics_api import seed_score
from tests.support.verdicts import DEFAULT_DIMENSIONS as DIMENSIONS

API = "/api/v1/scoring"
IMPORT = f"{API}/sessions:import"
TRACES = ROOT / "tests" / "fixtures" / "traces"
JSON = {"content-type": "application/json"}
CANDIDATE = "c" * 64


def test_a_sessions_page_gets_the_score_under_the_criteria_in_force_before_a_newer_candidate(stack: Stack) -> None:
    seed_score(stack, "s-both", 77)
    seed_score(stack, "s-both", 89, criteria_hash=CANDIDATE)  # newer, under another criteria

    body = stack.client.get(f"{API}/sessions/s-both/scoring").json()

    assert body["current"]["total_score"] == 77
    assert body["current"]["is_current_criteria"] is True
    assert body["latest"]["total_score"] == 89
    assert body["latest"]["criteria_hash"] == CANDIDATE
    assert [a["total_score"] for a in body["attempts"]] == [89, 77]
    fleet = stack.client.get(f"{API}/scores").json()["items"]
    assert [(row["session_id"], row["total_score"]) for row in fleet] == [("s-both", 77)]  # the Scores page agrees


def test_a_session_never_scored_is_answered_without_an_error(stack: Stack) -> None:
    answer = stack.client.get(f"{API}/sessions/never-scored/scoring")

    assert answer.status_code == 200
    assert answer.json() == {"session_id": "never-scored", "current": None, "latest": None, "attempts": []}


def test_a_failed_attempt_under_the_current_criteria_is_the_latest_not_the_current(stack: Stack) -> None:
    seed_score(stack, "s-retry", 64)
    seed_score(stack, "s-retry", None, fail=True)

    body = stack.client.get(f"{API}/sessions/s-retry/scoring").json()

    assert body["current"]["total_score"] == 64
    assert body["latest"]["status"] == "failed"


def _scored_with_facts(stack: Stack, session_id: str, total: int, agent: str, alert_type: str) -> None:
    """A completed score whose attempt recorded the session's agent and alert type."""
    repo = stack.container.score_repository
    criteria = stack.container.config.criteria_hash
    repo.ensure_criteria(criteria, stack.container.config.criteria_content)
    score_id = uuid.uuid4()
    facts = SessionFacts(agent, alert_type, None, None, 1, 2, "tarsy")
    repo.create_attempt(score_id, session_id, criteria, "test", facts)
    claim = repo.claim(score_id, 60)
    assert claim.claim_token is not None
    output = JudgeOutputSchema.model_validate(
        {
            "total_score": total,
            "score_breakdown": {d: total // 4 for d in DIMENSIONS},
            "score_reasoning": "seeded",
            "missing_tools": [],
            "alternative_approaches": [],
            "outcome": "no_reference",
            "outcome_reason": "no reference root cause was given",
        }
    )
    verdict = JudgeVerdict(output=output, provider="test", model="m")
    assert repo.complete(score_id, claim.claim_token, criteria, verdict, PromptStats(False, None, None))


def _upload(stack: Stack, name: str) -> str:
    body = (TRACES / name).read_bytes()
    answer = stack.client.post(IMPORT, params={"file_name": name}, content=body, headers=JSON)
    assert answer.status_code == 201, answer.text
    return str(answer.json()["session_id"])


def test_an_upload_is_titled_by_its_first_user_message_in_the_list_and_on_its_page(stack: Stack) -> None:
    session_id = _upload(stack, "openai_chat_crashloop.json")
    task = "Alert KubePodCrashLooping: pod payments-api-7f9c6d-x2k4q in namespace payments is restarting"

    listed = stack.client.get(f"{API}/sessions").json()["items"]
    detail = stack.client.get(f"{API}/sessions/{session_id}").json()

    row = next(item for item in listed if item["session_id"] == session_id)
    assert row["title"].startswith(task)
    assert "User:" not in row["title"]
    assert detail["title"] == row["title"]
    assert len(row["title"]) <= 200
    sample = next(item for item in listed if item["source"] == "file")
    assert sample["title"] == sample["alert_type"]  # the other sources' sessions are named by their alert


def test_a_scored_list_names_uploads_by_their_task_too(stack: Stack) -> None:
    session_id = _upload(stack, "openai_chat_crashloop.json")
    seed_score(stack, session_id, 70)

    scored = stack.client.get(f"{API}/sessions", params={"scored": "scored"}).json()["items"]

    assert scored[0]["session_id"] == session_id
    assert scored[0]["title"].startswith("Alert KubePodCrashLooping")
    # one submitter per session: the scored list names the uploader as the source's list and the session page do
    listed = stack.client.get(f"{API}/sessions").json()["items"]
    page = stack.client.get(f"{API}/sessions/{session_id}").json()
    from_source = next(item for item in listed if item["session_id"] == session_id)
    assert scored[0]["author"] is not None
    assert (scored[0]["author"], from_source["author"]) == (page["author"], page["author"])


def test_search_finds_a_session_by_a_piece_of_its_id_its_agent_or_its_alert_in_any_case(stack: Stack) -> None:
    upload = _upload(stack, "openai_chat_crashloop.json")
    _scored_with_facts(stack, "7c9e6679-7425-40de-944b-e07fc1f90ae7", 80, "NetworkAgent", "HighLatency")
    _scored_with_facts(stack, "0b1e2c3d-7425-40de-944b-e07fc1f90000", 48, "DatabaseAgent", "DiskPressure")
    piece = upload.removeprefix("upload:")[:8]

    def found(q: str) -> list[str]:
        answer = stack.client.get(f"{API}/search", params={"q": q})
        assert answer.status_code == 200, answer.text
        return [hit["session_id"] for hit in answer.json()["items"]]

    assert found(piece) == [upload]
    assert found("7C9E6679") == ["7c9e6679-7425-40de-944b-e07fc1f90ae7"]
    assert found("networkagent") == ["7c9e6679-7425-40de-944b-e07fc1f90ae7"]
    assert found("diskpress") == ["0b1e2c3d-7425-40de-944b-e07fc1f90000"]
    assert sorted(found("40de-944b")) == [
        "0b1e2c3d-7425-40de-944b-e07fc1f90000",
        "7c9e6679-7425-40de-944b-e07fc1f90ae7",
    ]
    assert found("%%") == []  # the user's wildcards are text, not patterns
    hit = stack.client.get(f"{API}/search", params={"q": piece}).json()["items"][0]
    assert hit["title"].startswith("Alert KubePodCrashLooping")
    assert hit["matched"] == "id"


def test_search_finds_a_session_never_scored_by_the_short_id_the_list_prints(stack: Stack) -> None:
    unscored = "b2c4e6a8-1d3f-4b5a-8c7e-9f0a1b2c3d4e"  # a sample session of the file source, never scored
    listed = stack.client.get(f"{API}/sessions").json()["items"]
    assert next(i for i in listed if i["session_id"] == unscored)["score"] is None

    answer = stack.client.get(f"{API}/search", params={"q": unscored[:8].upper()}).json()

    assert [hit["session_id"] for hit in answer["items"]] == [unscored]
    assert (answer["items"][0]["matched"], answer["items"][0]["source"], answer["source_unavailable"]) == (
        "id",
        "file",
        False,
    )
    assert stack.client.get(f"{API}/search", params={"q": "zq-nothing-has-this"}).json()["items"] == []


def test_search_refuses_a_text_too_short_to_mean_anything(stack: Stack) -> None:
    for q in ("a", "  b  "):
        answer = stack.client.get(f"{API}/search", params={"q": q})
        assert answer.status_code == 422, answer.text


def test_after_make_seed_the_sessions_list_counts_add_up_and_a_seeded_session_opens(stack: Stack) -> None:
    summary = seed(stack.container, 30, weeks=2)
    seed(stack.container, 30, weeks=2)  # a second seeding keeps the sessions already stored

    def listed(**params: str) -> dict[str, Any]:
        answer = stack.client.get(f"{API}/sessions", params={"page_size": "100", **params})
        assert answer.status_code == 200, answer.text
        body: dict[str, Any] = answer.json()
        return body

    everything = listed()["total_items"]
    scored = listed(scored="scored")["total_items"]
    unscored, cursor = 0, None
    while True:
        page = listed(scored="unscored", **({"cursor": cursor} if cursor else {}))
        unscored += len(page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert scored == summary.sessions
    assert everything == scored + unscored
    seeded = listed(scored="scored")["items"][0]["session_id"]
    detail = stack.client.get(f"{API}/sessions/{seeded}").json()
    assert detail["title"].startswith(f"Alert {detail['alert_type']}: ")


def test_search_refuses_a_nul_character_with_a_422(stack: Stack) -> None:
    answer = stack.client.get(f"{API}/search", params={"q": "ab\x00cd"})

    assert answer.status_code == 422, answer.text


def test_filters_offer_the_values_that_exist_with_their_sessions(stack: Stack) -> None:
    _scored_with_facts(stack, "v-1", 80, "NetworkAgent", "HighLatency")
    _scored_with_facts(stack, "v-2", 60, "NetworkAgent", "DiskPressure")
    _scored_with_facts(stack, "v-3", 40, "DatabaseAgent", "HighLatency")
    seed_score(stack, "v-4", 52, missing=("prometheus_query", "kubectl_top"))
    seed_score(stack, "v-5", 44, missing=("prometheus_query",))

    def values(field: str) -> list[tuple[str, int]]:
        answer = stack.client.get(f"{API}/scores/values", params={"field": field})
        assert answer.status_code == 200, answer.text
        return [(v["value"], v["sessions"]) for v in answer.json()["values"]]

    assert values("agent") == [("NetworkAgent", 2), ("DatabaseAgent", 1)]
    assert values("alert_type") == [("HighLatency", 2), ("DiskPressure", 1)]
    assert values("missing_tool") == [("prometheus_query", 2), ("kubectl_top", 1)]
    assert stack.client.get(f"{API}/scores/values", params={"field": "author"}).status_code == 422


def test_text_filters_match_in_any_case_and_a_page_can_carry_its_total(stack: Stack) -> None:
    _scored_with_facts(stack, "c-1", 80, "NetworkAgent", "HighLatency")
    _scored_with_facts(stack, "c-2", 60, "NetworkAgent", "DiskPressure")
    _scored_with_facts(stack, "c-3", 40, "DatabaseAgent", "HighLatency")

    page = stack.client.get(f"{API}/scores", params={"agent": "networkagent", "limit": 1, "with_total": True}).json()
    assert [row["session_facts"]["agent"] for row in page["items"]] == ["NetworkAgent"]
    assert page["total_items"] == 2
    alerts = stack.client.get(f"{API}/scores", params={"alert_type": "HIGHLATENCY"}).json()["items"]
    assert sorted(row["session_id"] for row in alerts) == ["c-1", "c-3"]
    assert stack.client.get(f"{API}/scores").json()["total_items"] is None  # counted only when asked


def test_a_text_filter_matches_every_spelling_stored_among_other_values(stack: Stack) -> None:
    """The spellings are stepped through value by value (a loose scan of the fleet index): every one of them is
    found, whatever sorts between them."""
    _scored_with_facts(stack, "s-1", 80, "NetworkAgent", "HighLatency")
    _scored_with_facts(stack, "s-2", 60, "ObservabilityAgent", "HighLatency")
    _scored_with_facts(stack, "s-3", 40, "networkagent", "highlatency")
    _scored_with_facts(stack, "s-4", 70, "DatabaseAgent", "DiskPressure")

    def ids(**params: str) -> list[str]:
        return sorted(row["session_id"] for row in stack.client.get(f"{API}/scores", params=params).json()["items"])

    assert ids(agent="NETWORKAGENT") == ["s-1", "s-3"]
    assert ids(alert_type="HighLatency") == ["s-1", "s-2", "s-3"]
    assert ids(agent="ZAgent") == []


def test_the_scores_of_one_session_and_of_one_comparison_cell(stack: Stack) -> None:
    seed_score(stack, "m-1", 50)  # weak under the current criteria
    seed_score(stack, "m-1", 80, criteria_hash=CANDIDATE)  # good under the candidate
    seed_score(stack, "m-2", 52)  # weak
    seed_score(stack, "m-2", 55, criteria_hash=CANDIDATE)  # weak
    seed_score(stack, "m-3", 85)  # good
    seed_score(stack, "m-3", 81, criteria_hash=CANDIDATE)  # good
    current = stack.container.config.criteria_hash

    one = stack.client.get(f"{API}/scores", params={"session_id": "m-1", "criteria_hash": "any", "latest_only": False})
    assert sorted(row["total_score"] for row in one.json()["items"]) == [50, 80]

    comparison = stack.client.get(
        f"{API}/analytics/criteria-comparison", params={"base": current, "candidate": CANDIDATE}
    ).json()
    weak_to_good = comparison["band_transitions"][comparison["bands"].index("weak")][comparison["bands"].index("good")]
    cell = stack.client.get(
        f"{API}/scores",
        params={"criteria_hash": CANDIDATE, "band": "good", "compared_to": "current", "compared_band": "weak"},
    ).json()["items"]
    assert [row["session_id"] for row in cell] == ["m-1"]
    assert len(cell) == weak_to_good == 1
    lone = stack.client.get(f"{API}/scores", params={"compared_to": "current"})
    assert lone.status_code == 400
    assert "compared_band" in lone.json()["detail"]
