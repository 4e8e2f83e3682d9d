"""The dashboard in headless Chromium against a real local stack (``python -m devstack``) started by the test.

Flow: sessions list -> a session -> Score Session -> the score appears with four breakdown bars; the conversation
view; the analytics page shows the charts and links to the sessions behind them; every view passes axe-core (no
serious or critical violation); at phone width (390 px) nothing scrolls sideways and every list shows status and
score. Screenshots go to tests/e2e/screenshots/ (git-ignored). Runs are in test_runs_browser.py.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.conftest import IN_PROGRESS_ID, ROOT, SHALLOW_ID, THOROUGH_ID
from tests.e2e.conftest import assert_accessible, assert_fits, running_stack, shot

SCORING_TIMEOUT_MS = 60_000


@pytest.fixture(scope="module")
def local_stack() -> Iterator[str]:
    """The local stack with the offline heuristic judge."""
    with running_stack(SCORING_LLM_PROVIDER="heuristic") as base_url:
        yield base_url


def wait_for_completed_score(base_url: str, session_id: str) -> None:
    """Request a score (a no-op when one exists) and poll until the worker has completed it."""
    url = f"{base_url}/api/v1/scoring/sessions/{session_id}/score"
    status = httpx.post(url, timeout=10).json()["status"]
    deadline = time.monotonic() + SCORING_TIMEOUT_MS / 1000
    while status != "completed" and time.monotonic() < deadline:
        time.sleep(0.25)  # polling the worker's progress through the API
        status = httpx.get(url, timeout=10).json()["status"]
    assert status == "completed"


def test_score_a_session_from_the_list_and_read_the_critique(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(local_stack + "/")
    rows = page.get_by_test_id("session-row")
    expect(rows).to_have_count(4)
    row = page.locator(f'[data-session-id="{SHALLOW_ID}"]')
    expect(row.get_by_test_id("score-badge")).to_have_text("Not Scored")
    shot(page, "01-sessions-unscored")
    assert_accessible(page, "the sessions list")

    console_errors: list[str] = []
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    row.click()
    expect(page).to_have_url(f"{local_stack}/sessions/{SHALLOW_ID}")
    expect(page.get_by_text("Not scored under the current criteria")).to_be_visible()
    assert console_errors == [], "an unscored session's page answers without an error"
    page.get_by_role("button", name="Score Session").click()

    total = page.get_by_test_id("total-score")
    expect(total).to_be_visible(timeout=SCORING_TIMEOUT_MS)
    expect(page.get_by_test_id("breakdown-bar")).to_have_count(4)
    expect(page.get_by_test_id("judge-info")).to_contain_text("heuristic")
    expect(page.get_by_role("heading", name="Reasoning")).to_be_visible()
    expect(page.get_by_text("current", exact=True)).to_be_visible()
    score = int(total.inner_text().split("/")[0])
    assert 0 <= score <= 100
    shot(page, "02-session-scored")
    assert_accessible(page, "a session's score")

    page.get_by_role("button", name="Conversation").click()
    expect(page.get_by_test_id("conversation")).to_be_visible()
    expect(page.get_by_test_id("tool-call").first).to_be_visible()
    shot(page, "03-session-conversation")
    assert_accessible(page, "a session's conversation")

    page.get_by_role("link", name="Sessions").first.click()
    badge = page.locator(f'[data-session-id="{SHALLOW_ID}"]').get_by_test_id("score-badge")
    expect(badge).to_have_attribute("data-state", "scored")
    expect(badge).to_have_text(str(score))
    shot(page, "04-sessions-with-score")


def test_rescore_asks_for_confirmation_and_keeps_the_earlier_attempt(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    wait_for_completed_score(local_stack, SHALLOW_ID)
    page.goto(f"{local_stack}/sessions/{SHALLOW_ID}")
    expect(page.get_by_test_id("total-score")).to_be_visible()
    before = page.get_by_test_id("earlier-attempt").count()

    page.get_by_role("button", name="Re-score").click()
    expect(page.get_by_role("dialog")).to_contain_text("Score this session again?")
    assert_accessible(page, "the re-score confirmation")
    page.get_by_role("button", name="Yes, re-score").click()

    expect(page.get_by_test_id("earlier-attempt")).to_have_count(before + 1, timeout=SCORING_TIMEOUT_MS)
    expect(page.get_by_test_id("total-score")).to_be_visible()
    expect(page.get_by_role("button", name="Re-score")).to_be_enabled()


def test_a_session_still_running_cannot_be_scored(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(f"{local_stack}/sessions/{IN_PROGRESS_ID}")

    expect(page.get_by_role("button", name="Score Session")).to_be_disabled()
    expect(page.get_by_text("only completed sessions can be scored")).to_be_visible()
    assert_accessible(page, "a session still running")


def test_an_unknown_session_id_says_so_and_offers_only_what_can_work(local_stack: str, page: Any, phone: Any) -> None:
    from playwright.sync_api import expect

    for browser_page, name in ((page, "11-session-not-found"), (phone, "11-narrow-session-not-found")):
        browser_page.goto(f"{local_stack}/sessions/no-such-session")
        expect(browser_page.get_by_role("heading", name="No session with this id")).to_be_visible()
        expect(browser_page.get_by_role("button", name="Score Session")).to_have_count(0)
        expect(browser_page.get_by_text("Human labels")).to_have_count(0)
        expect(browser_page.get_by_text("Not scored", exact=False)).to_have_count(0)
        shot(browser_page, name)
        assert_fits(browser_page, "/sessions/no-such-session")
        assert_accessible(browser_page, "an unknown session")


def test_analytics_bars_open_the_scores_table_filtered_to_the_bar(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    wait_for_completed_score(local_stack, SHALLOW_ID)
    page.goto(local_stack + "/analytics")

    bars = page.get_by_test_id("band-bar")
    expect(bars).to_have_count(5)
    expect(page.get_by_test_id("distribution-card")).to_contain_text("1 session scored")
    expect(page.get_by_test_id("missing-tools-chart")).to_be_visible()
    expect(page.get_by_test_id("distribution-card").locator("svg .MuiBarChart-element")).to_have_count(5)
    shot(page, "05-analytics")
    assert_accessible(page, "the analytics page")

    bands = httpx.get(f"{local_stack}/api/v1/scoring/analytics/score-distribution", timeout=10).json()["bands"]
    scored = next(i for i, band in enumerate(bands) if band["count"] > 0)
    # the bar itself (SVG), not its link under the chart
    page.get_by_test_id("distribution-card").locator("svg .MuiBarChart-element").nth(scored).click()
    expect(page).to_have_url(f"{local_stack}/scores?criteria_hash=any&band={bands[scored]['band']}")
    expect(page.get_by_test_id("scores-total")).to_contain_text(f"{bands[scored]['count']} session")
    expect(page.locator(f'[data-testid="score-row"][data-session-id="{SHALLOW_ID}"]')).to_be_visible()
    assert_accessible(page, "the scores of a bar")

    page.goto(local_stack + "/analytics")
    page.get_by_role("link", name="Re-score with current criteria").click()
    expect(page).to_have_url(re.compile(r"/runs/new\?which=not_current_criteria"))
    expect(page.get_by_role("combobox", name="Sessions", exact=True)).to_have_text(
        "not scored with the current criteria"
    )


def test_scores_page_lists_the_score_and_sorts_in_the_url(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    wait_for_completed_score(local_stack, SHALLOW_ID)
    page.goto(local_stack + "/scores")

    row = page.locator(f'[data-testid="score-row"][data-session-id="{SHALLOW_ID}"]')
    expect(row.get_by_test_id("score-badge")).to_be_visible()
    shot(page, "09-scores")
    assert_accessible(page, "the scores page")

    page.get_by_role("button", name="Total").click()
    expect(page).to_have_url(re.compile(r"/scores\?sort=total_score"))
    # The link is re-rendered from the new URL state after the navigation: wait for it rather than read it at once.
    expect(page.get_by_test_id("scores-csv")).to_have_attribute("href", re.compile(r"sort=total_score"))
    csv = page.get_by_test_id("scores-csv").get_attribute("href") or ""
    assert "format=csv" in csv
    assert "sort=total_score" in csv
    answer = httpx.get(local_stack + csv, timeout=10)
    assert answer.status_code == 200
    assert SHALLOW_ID in answer.text
    row.get_by_test_id("session-link").click()
    expect(page).to_have_url(f"{local_stack}/sessions/{SHALLOW_ID}")


def test_search_opens_a_session_by_a_piece_of_its_id_from_any_page(local_stack: str, page: Any, phone: Any) -> None:
    from playwright.sync_api import expect

    wait_for_completed_score(local_stack, SHALLOW_ID)
    trace = ROOT / "tests" / "fixtures" / "traces" / "openai_chat_crashloop.json"
    uploaded = httpx.post(
        f"{local_stack}/api/v1/scoring/sessions:import",
        content=trace.read_bytes(),
        headers={"content-type": "application/json"},
        timeout=10,
    ).json()["session_id"]
    for browser_page, start, wanted, name in (
        (page, "/runs", SHALLOW_ID, "12-search"),
        (phone, "/analytics", uploaded, "12-narrow-search"),
    ):
        browser_page.goto(local_stack + start)
        box = browser_page.get_by_role("combobox", name="Search sessions by id, agent or alert type")
        box.fill(wanted.removeprefix("upload:")[:8])
        hit = browser_page.get_by_test_id("search-hit").first
        expect(hit).to_have_attribute("data-session-id", wanted)
        shot(browser_page, name)
        assert_fits(browser_page, start)
        assert_accessible(browser_page, f"the search on {start}")
        hit.click()
        expect(browser_page).to_have_url(f"{local_stack}/sessions/{quote(wanted)}")
    # the upload is named by the task it was given (its first user message), in the search and on its page
    expect(phone.get_by_role("heading", level=1)).to_contain_text("Alert KubePodCrashLooping: pod payments-api")
    page.goto(local_stack + "/")
    row = page.locator(f'[data-testid="session-row"][data-session-id="{uploaded}"]')
    expect(row.get_by_test_id("session-link")).to_contain_text("Alert KubePodCrashLooping")
    expect(row.get_by_test_id("session-short-id")).to_have_text(uploaded.removeprefix("upload:")[:8])


def test_at_phone_width_every_view_fits_and_lists_show_status_and_score(local_stack: str, phone: Any) -> None:
    from playwright.sync_api import expect

    wait_for_completed_score(local_stack, SHALLOW_ID)
    for path, ready, columns, name in [
        ("/", "session-row", ("session-status", "score-badge"), "06-narrow-sessions"),
        (f"/sessions/{SHALLOW_ID}", "score-badge", ("score-badge",), "07-narrow-session"),
        ("/analytics", "band-bar", (), "08-narrow-analytics"),
        ("/scores", "score-row", ("score-badge",), "09-narrow-scores"),
    ]:
        phone.goto(local_stack + path)
        expect(phone.get_by_test_id(ready).first).to_be_visible(timeout=SCORING_TIMEOUT_MS)
        shot(phone, name)
        assert_fits(phone, path, *columns)
        assert_accessible(phone, f"{path} at 390 px")


def test_client_routes_survive_a_reload_and_never_shadow_the_api(local_stack: str) -> None:
    deep = httpx.get(f"{local_stack}/sessions/{SHALLOW_ID}", timeout=10)
    assert deep.status_code == 200
    assert '<div id="root">' in deep.text

    unknown_api = httpx.get(f"{local_stack}/api/v1/scoring/no-such-route", timeout=10)
    assert unknown_api.status_code == 404
    assert unknown_api.json()["code"] == "not_found"
    assert httpx.get(f"{local_stack}/openapi.json", timeout=10).json()["info"]["title"] == "Session Scoring API"
    assert httpx.get(f"{local_stack}/health", timeout=10).json()["status"] == "ok"


def test_sessions_list_filters_to_scored_and_sorts_by_score(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    for session_id in (SHALLOW_ID, THOROUGH_ID):
        wait_for_completed_score(local_stack, session_id)
    # the four sample sessions, and the upload of the search test when it ran before
    listed = httpx.get(f"{local_stack}/api/v1/scoring/sessions", timeout=10).json()["total_items"]
    page.goto(local_stack + "/")
    expect(page.get_by_test_id("session-row")).to_have_count(listed)

    page.get_by_role("button", name="Scored", exact=True).click()
    expect(page).to_have_url(re.compile(r"/\?scored=scored$"))
    expect(page.get_by_test_id("session-row")).to_have_count(2)

    page.get_by_role("button", name="Score", exact=True).click()
    expect(page).to_have_url(re.compile(r"scored=scored&sort=score_desc"))
    badges = page.get_by_test_id("session-row").get_by_test_id("score-badge")
    expect(badges).to_have_count(2)
    totals = [int(text) for text in badges.all_inner_texts()]
    assert totals == sorted(totals, reverse=True)
    shot(page, "10-sessions-scored-by-score")
    assert_accessible(page, "the sessions list filtered to scored, by score")

    page.get_by_role("button", name="Unscored").click()
    expect(page).to_have_url(re.compile(r"/\?scored=unscored$"))
    expect(page.get_by_test_id("session-row")).to_have_count(listed - 2)  # all = scored + unscored
    assert_accessible(page, "the sessions list filtered to unscored")


CHECKOUT_CAUSE = (
    "checkout-api is OOMKilled: the 1843201-item price catalogue loaded at start-up takes the heap to 498Mi against "
    "its 512Mi limit"
)


def test_a_labeller_sets_the_known_root_cause_and_the_next_score_says_it_was_found(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    wait_for_completed_score(local_stack, THOROUGH_ID)
    page.goto(f"{local_stack}/sessions/{THOROUGH_ID}")
    outcome = page.get_by_test_id("score-outcome").get_by_test_id("outcome-chip")
    expect(outcome).to_have_text("No reference")

    editor = page.get_by_test_id("reference-editor")
    editor.get_by_role("textbox", name="Root cause", exact=True).fill(CHECKOUT_CAUSE)
    editor.get_by_role("textbox", name="Remediation (optional)").fill("Raise the limit to 768Mi and lazy-load it")
    editor.get_by_role("button", name="Save root cause").click()
    expect(editor.get_by_test_id("reference-current")).to_contain_text("Set by api-client (revision 1")
    assert_accessible(page, "a session with its known root cause")

    page.get_by_role("button", name="Re-score").click()
    page.get_by_role("button", name="Yes, re-score").click()
    expect(outcome).to_have_attribute("data-outcome", "found", timeout=SCORING_TIMEOUT_MS)
    expect(page.get_by_test_id("score-outcome")).to_contain_text("the conclusion names")
    shot(page, "11-session-root-cause-found")

    page.goto(local_stack + "/scores")
    row = page.locator(f'[data-testid="score-row"][data-session-id="{THOROUGH_ID}"]')
    expect(row.get_by_test_id("outcome-chip")).to_have_text("Found")
    shot(page, "12-scores-with-outcome")
    assert_accessible(page, "the scores page with outcomes")

    page.goto(f"{local_stack}/sessions/{THOROUGH_ID}")
    page.get_by_test_id("reference-editor").get_by_role("button", name="Withdraw").click()
    expect(page.get_by_test_id("reference-editor").get_by_role("button", name="Withdraw")).to_have_count(0)
    labels = httpx.get(f"{local_stack}/api/v1/scoring/sessions/{THOROUGH_ID}/labels", timeout=10).json()
    assert labels["reference"] is None
    assert [r["revision"] for r in labels["reference_history"]] == [2, 1]
