"""Scoring under another rubric, end to end: the outcome-first rubric through the real SDK and the fake Messages
API, the triage rubric offline; what is stored and what GET answers; a verdict breaking its ceiling."""

from __future__ import annotations

import copy
import json
from typing import Any

from tests.conftest import SAMPLES, THOROUGH_ID, Stack
from tests.support.fake_claude import OUTCOME_FIRST_VERDICT, reply_verdict

CRITERIA = "/api/v1/scoring/criteria"


def scored(stack: Stack) -> dict[str, Any]:
    stack.request_score(THOROUGH_ID)
    stack.poller.drain()
    result: dict[str, Any] = stack.score(THOROUGH_ID).json()
    return result


def outcome_first(make_stack: Any, fake_claude: Any) -> Stack:
    stack: Stack = make_stack(
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="5",
        SCORING_RUBRIC="outcome-first",
    )
    return stack


def test_an_outcome_first_verdict_is_stored_and_read_back_with_its_rubric(make_stack: Any, fake_claude: Any) -> None:
    stack = outcome_first(make_stack, fake_claude)
    fake_claude.script(reply_verdict(OUTCOME_FIRST_VERDICT))

    score = scored(stack)

    assert score["status"] == "completed", score["error_message"]
    assert score["total_score"] == 71
    assert score["rubric"] == "outcome-first"
    assert [(d["key"], d["points"], d["max_points"]) for d in score["dimensions"]] == [
        ("investigation_outcome", 16, 20),
        ("evidence_gathering", 13, 20),
        ("tool_utilization", 12, 20),
        ("analytical_reasoning", 15, 20),
        ("investigation_completeness", 10, 20),
    ]
    assert score["ceiling"]["value"] == "correct"
    assert (score["ceiling"]["min_score"], score["ceiling"]["max_score"]) == (60, 100)
    assert score["failure_tags"] == ["missed_available_tool", "incomplete_evidence"]
    assert score["claims"] == [{"claim": "the pod was OOMKilled", "event": "1.2"}]
    sent = fake_claude.requests[0]
    schema = sent["output_config"]["format"]["schema"]
    assert set(schema["properties"]["score_breakdown"]["required"]) == set(OUTCOME_FIRST_VERDICT["score_breakdown"])
    assert schema["properties"]["conclusion"]["enum"] == ["correct", "partially_correct", "wrong"]
    system = "".join(block["text"] for block in sent["system"])
    assert "- wrong: total_score 0-34" in system  # {{OUTPUT_SCHEMA}} rendered from the rubric


def test_the_criteria_say_what_the_scores_mean(make_stack: Any, fake_claude: Any) -> None:
    stack = outcome_first(make_stack, fake_claude)
    fake_claude.script(reply_verdict(OUTCOME_FIRST_VERDICT))
    criteria_hash = scored(stack)["criteria_hash"]

    body = stack.client.get(f"{CRITERIA}/{criteria_hash}").json()

    assert body["criteria_hash"] == criteria_hash
    assert body["rubric"]["name"] == "outcome-first"
    assert body["rubric"]["total"] == "holistic"
    assert [d["max_points"] for d in body["rubric"]["dimensions"]] == [20] * 5
    assert [v["value"] for v in body["rubric"]["ceiling"]["values"]] == ["correct", "partially_correct", "wrong"]
    assert len(body["rubric"]["failure_tags"]) == 6
    assert stack.client.get(f"{CRITERIA}/{'0' * 64}").status_code == 404
    assert stack.client.get(f"{CRITERIA}/not-a-hash").status_code == 422


def test_a_total_breaking_its_ceiling_gets_the_repair_turn_then_fails_naming_the_ceiling(
    make_stack: Any, fake_claude: Any
) -> None:
    stack = outcome_first(make_stack, fake_claude)
    wrong = {**copy.deepcopy(OUTCOME_FIRST_VERDICT), "conclusion": "wrong", "total_score": 50}
    fake_claude.script(reply_verdict(wrong), reply_verdict(wrong))

    score = scored(stack)

    assert score["status"] == "failed"
    assert "invalid after one repair turn" in score["error_message"]
    assert "rule 'ceiling conclusion=wrong': it allows a total_score of 0-34" in score["error_message"]
    repair = fake_claude.requests[1]["messages"]
    assert "ceiling conclusion=wrong" in repair[2]["content"]


def test_a_repaired_ceiling_completes(make_stack: Any, fake_claude: Any) -> None:
    stack = outcome_first(make_stack, fake_claude)
    wrong = {**copy.deepcopy(OUTCOME_FIRST_VERDICT), "conclusion": "wrong", "total_score": 50}
    fixed = {**copy.deepcopy(OUTCOME_FIRST_VERDICT), "conclusion": "wrong", "total_score": 30}
    fake_claude.script(reply_verdict(wrong), reply_verdict(fixed))

    score = scored(stack)

    assert score["status"] == "completed"
    assert score["total_score"] == 30
    assert score["ceiling"]["value"] == "wrong"


def test_the_triage_rubric_scores_offline_with_its_own_maxima(make_stack: Any) -> None:
    stack: Stack = make_stack(SCORING_RUBRIC="triage")

    score = scored(stack)

    assert score["status"] == "completed", score["error_message"]
    assert [(d["key"], d["max_points"]) for d in score["dimensions"]] == [
        ("evidence", 10),
        ("diagnosis", 20),
        ("next_steps", 30),
    ]
    points = sum(d["points"] for d in score["dimensions"])
    assert score["total_score"] == (200 * points + 60) // 120
    assert json.dumps(score["score_breakdown"], sort_keys=True) == json.dumps(
        {d["key"]: d["points"] for d in score["dimensions"]}, sort_keys=True
    )


def test_the_default_rubric_answers_as_before_with_its_labels(stack: Stack) -> None:
    score = scored(stack)

    assert score["rubric"] == "methodology"
    assert [d["max_points"] for d in score["dimensions"]] == [25, 25, 25, 25]
    assert score["total_score"] == sum(score["score_breakdown"].values())
    assert score["ceiling"] is None
    assert score["failure_tags"] == []


def test_failure_tags_get_their_frequency_trend_and_sessions(make_stack: Any) -> None:
    stack: Stack = make_stack(SCORING_RUBRIC="outcome-first")  # the offline judge, mapped onto outcome-first
    for path in sorted(SAMPLES.glob("*.json"))[:4]:
        stack.request_score(path.stem)
    stack.poller.drain()
    analytics = "/api/v1/scoring/analytics"

    report = stack.client.get(f"{analytics}/failure-tags", params={"criteria_hash": "current"}).json()

    assert report["items"], "the offline judge gives outcome-first tags to the shallow samples"
    first = report["items"][0]
    assert first["description"]
    assert len(first["trend"]) == 12
    assert sum(p["count"] for p in first["trend"]) == first["count"]
    page = stack.client.get(f"{analytics}/failure-tags/{first['tag']}/sessions").json()
    assert len(page["items"]) == first["count"]
    for item in page["items"]:
        score = stack.score(item["session_id"]).json()
        assert first["tag"] in score["failure_tags"]
    assert stack.client.get(f"{analytics}/failure-tags/Not-A-Tag/sessions").status_code == 422


def test_two_rubrics_compare_by_their_totals_and_name_the_dimensions_they_do_not_share(make_stack: Any) -> None:
    methodology: Stack = make_stack()
    samples = [path.stem for path in sorted(SAMPLES.glob("*.json"))]
    sessions = [s for s in samples if methodology.request_score(s).status_code < 300]  # the scorable ones
    methodology.poller.drain()
    base = methodology.container.config.criteria_hash
    outcome_first: Stack = make_stack(SCORING_RUBRIC="outcome-first")
    for session_id in sessions:
        outcome_first.request_score(session_id, force=True)
    outcome_first.poller.drain()
    candidate = outcome_first.container.config.criteria_hash

    body = outcome_first.client.get(
        "/api/v1/scoring/analytics/criteria-comparison", params={"base": base, "candidate": candidate}
    ).json()

    assert body["n"] == len(sessions)
    assert body["total"]["mean_delta"] is not None
    assert len(body["band_transitions"]) == 5
    assert body["shared_dimensions"] == []
    assert body["dimensions"] == {}
    assert body["base_only_dimensions"] == list(methodology.container.config.rubric.keys)
    assert body["candidate_only_dimensions"] == list(outcome_first.container.config.rubric.keys)
