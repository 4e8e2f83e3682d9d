"""Issue 37's first acceptance: `SCORING_RUBRIC=outcome-first make run`, a session scored through the fake Messages
API (real SDK, real HTTP), and what a user sees of it.

The stack is `python -m devstack` (what `make run` starts) with the outcome-first rubric and the Claude judge pointed
at the fake, which answers a valid outcome-first verdict: five dimensions of 20, a holistic total of 71 inside the
range its conclusion (``correct``: 60-100) allows, two failure tags. The score is stored (its five dimensions with
their maxima in ``score_dimensions``, its tags in ``score_failure_tags``, its conclusion on the attempt), GET answers
them, and the session's page shows five bars each out of its own maximum, the ceiling that applied and why, and the
tags as chips that open the sessions given the tag; at 1440 x 900 and 390 x 844, nothing scrolls sideways and axe-core
finds nothing serious or critical.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import THOROUGH_ID
from tests.e2e.conftest import PHONE, assert_accessible, assert_fits, open_page, shot, started_stack
from tests.support.devstack_process import LocalStackProcess
from tests.support.fake_claude import OUTCOME_FIRST_VERDICT, FakeClaude, reply_verdict
from tests.support.postgres import sql

SCORING_TIMEOUT_MS = 60_000
DESKTOP = {"width": 1440, "height": 900}
DIMENSIONS = [
    ("investigation_outcome", "Investigation outcome", 16),
    ("evidence_gathering", "Evidence gathering", 13),
    ("tool_utilization", "Tool utilization", 12),
    ("analytical_reasoning", "Analytical reasoning", 15),
    ("investigation_completeness", "Investigation completeness", 10),
]
TAGS = ["missed_available_tool", "incomplete_evidence"]
CEILING_TEXT = (
    "Conclusion correctness: correct (the conclusion names the actual cause), which allows a total of 60-100."
)


@pytest.fixture(scope="module")
def outcome_first_stack(judge: FakeClaude) -> Iterator[LocalStackProcess]:
    """`make run`'s stack with ``SCORING_RUBRIC=outcome-first`` and the Claude judge at the fake Messages API."""
    with started_stack(
        SCORING_RUBRIC="outcome-first",
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="e2e-key-not-secret",
        ANTHROPIC_BASE_URL=judge.base_url,
        JUDGE_MAX_RETRIES="0",
    ) as stack:
        yield stack


def _check_breakdown(page: Any) -> None:
    """Five bars, each dimension out of its own maximum (20), the ceiling and why, the two tag chips."""
    from playwright.sync_api import expect

    bars = page.get_by_test_id("breakdown-bar")
    expect(bars).to_have_count(5)
    for i, (key, label, points) in enumerate(DIMENSIONS):
        bar = bars.nth(i)
        expect(bar).to_have_attribute("data-dimension", key)
        expect(bar).to_contain_text(label)
        expect(bar).to_contain_text(f"{points}/20")
        progress = bar.get_by_role("progressbar", name=f"{label} {points} of 20")
        expect(progress).to_have_attribute("aria-valuenow", str(5 * points))
    expect(page.get_by_test_id("breakdown-rubric")).to_have_text("Rubric: outcome-first")
    expect(page.get_by_test_id("breakdown-ceiling")).to_have_text(CEILING_TEXT)
    chips = page.get_by_test_id("failure-tag")
    expect(chips).to_have_text([tag.replace("_", " ") for tag in TAGS])
    expect(page.get_by_test_id("total-score")).to_have_text("71/100")


def test_an_outcome_first_verdict_is_stored_answered_and_shown_with_five_bars_and_its_tags(
    outcome_first_stack: LocalStackProcess, judge: FakeClaude, browser: Any
) -> None:
    from playwright.sync_api import expect

    stack = outcome_first_stack
    judge.script(reply_verdict(OUTCOME_FIRST_VERDICT))
    path = f"/sessions/{THOROUGH_ID}"

    with open_page(browser, DESKTOP) as page:
        page.goto(stack.base_url + path)
        page.get_by_role("button", name="Score Session").click()
        expect(page.get_by_test_id("total-score")).to_be_visible(timeout=SCORING_TIMEOUT_MS)
        _check_breakdown(page)
        assert_fits(page, path, "breakdown-bar", "failure-tag")
        shot(page, "40-outcome-first-score-1440")
        assert_accessible(page, "an outcome-first score at 1440 px")

        # the judge was sent the outcome-first schema: five keys, the conclusion's three values, the six tags
        [request] = judge.requests
        schema = request["output_config"]["format"]["schema"]["properties"]
        assert schema["score_breakdown"]["required"] == [key for key, _, _ in DIMENSIONS]
        assert schema["conclusion"]["enum"] == ["correct", "partially_correct", "wrong"]
        assert len(schema["failure_tags"]["items"]["enum"]) == 6

        # GET answers what was stored
        score = httpx.get(f"{stack.base_url}/api/v1/scoring/sessions/{THOROUGH_ID}/score", timeout=10).json()
        assert score["status"] == "completed"
        assert score["rubric"] == "outcome-first"
        assert score["total_score"] == 71
        assert [(d["key"], d["label"], d["points"], d["max_points"]) for d in score["dimensions"]] == [
            (key, label, points, 20) for key, label, points in DIMENSIONS
        ]
        assert score["score_breakdown"] == OUTCOME_FIRST_VERDICT["score_breakdown"]
        assert (score["ceiling"]["field"], score["ceiling"]["value"]) == ("conclusion", "correct")
        assert (score["ceiling"]["min_score"], score["ceiling"]["max_score"]) == (60, 100)
        assert score["failure_tags"] == TAGS
        criteria = httpx.get(f"{stack.base_url}/api/v1/scoring/criteria/{score['criteria_hash']}", timeout=10).json()
        assert criteria["rubric"]["name"] == "outcome-first"
        assert criteria["rubric"]["total"] == "holistic"

        # and the database holds it: the conclusion on the attempt, the dimensions and the tags in their stores
        url = stack.database_url()
        [(ceiling_value, tags)] = sql(
            url, "SELECT ceiling_value, failure_tags FROM session_scores WHERE score_id = :id", id=score["score_id"]
        )
        assert (ceiling_value, list(tags)) == ("correct", TAGS)
        stored = sql(
            url,
            "SELECT dimension_key, points, max_points FROM score_dimensions WHERE score_id = :id",
            id=score["score_id"],
        )
        assert sorted(stored) == sorted((key, points, 20) for key, _, points in DIMENSIONS)
        stored_tags = sql(url, "SELECT tag FROM score_failure_tags WHERE score_id = :id", id=score["score_id"])
        assert sorted(tag for (tag,) in stored_tags) == sorted(TAGS)

        # a tag chip opens the sessions given that tag
        page.get_by_role("link", name="Sessions tagged missed available tool").click()
        expect(page).to_have_url(re.compile(r"/analytics/failure-tags/missed_available_tool$"))
        expect(page.get_by_role("heading", name="Sessions tagged missed available tool")).to_be_visible()
        tagged = page.get_by_test_id("tag-session")
        expect(tagged).to_have_count(1)
        expect(tagged.get_by_role("link", name=THOROUGH_ID)).to_be_visible()
        assert_accessible(page, "the sessions of a failure tag at 1440 px")

    with open_page(browser, PHONE) as phone:
        phone.goto(stack.base_url + path)
        expect(phone.get_by_test_id("total-score")).to_be_visible()
        _check_breakdown(phone)
        assert_fits(phone, path, "breakdown-bar", "breakdown-ceiling", "failure-tag")
        shot(phone, "41-outcome-first-score-390")
        assert_accessible(phone, "an outcome-first score at 390 px")
