"""An SRE lead's daily jobs in headless Chromium, each at 1440 and 390 px with axe-core finding nothing serious or
critical on every view the job passes through. Four run here against a local stack with the offline heuristic judge:
score a session never scored, upload a trace and score it, find a session never scored by a fragment of its id ("no
matches" for a fragment of nothing, Enter staying put), and export training data from the dashboard (the progress,
then the file's link with its count). The other five live beside the stack they need:

| daily job                                    | test                                                                |
|----------------------------------------------|---------------------------------------------------------------------|
| worst of the week and why                    | test_insights_browser.py::test_worst_of_the_week_and_why            |
| most-missed tool and its sessions            | test_insights_browser.py::test_most_missed_tool_and_its_sessions... |
| score an unscored session                    | here: test_score_a_session_never_scored                             |
| upload and score                             | here: test_upload_a_trace_and_score_it                              |
| capped run with estimate, watch, cancel      | test_runs_browser.py::test_estimate_confirm_watch_progress_and...   |
| label three by keyboard then agreement       | test_daily_use_browser.py::test_label_three_sessions_from_the...    |
| compare criteria and attempts                | test_insights_browser.py::test_compare_criteria_then_a_movers...    |
| search by an id fragment of an unscored one  | here: test_search_finds_an_unscored_session_by_a_fragment_of_its_id |
| export training data from the dashboard      | here: test_export_training_data_from_the_dashboard                  |
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.conftest import FAILING_TOOLS_ID, IN_PROGRESS_ID, ROOT, SHALLOW_ID, THOROUGH_ID
from tests.e2e.conftest import PHONE, assert_accessible, assert_fits, open_page, running_stack, shot

API = "/api/v1/scoring"
SCORING_TIMEOUT_S = 60
DESKTOP = {"width": 1440, "height": 900}
WIDTHS = ((DESKTOP, "1440"), (PHONE, "390"))
TRACES = ROOT / "tests" / "fixtures" / "traces"


def _scoring(base_url: str, session_id: str) -> dict[str, Any]:
    answer = httpx.get(f"{base_url}{API}/sessions/{quote(session_id, safe='')}/scoring", timeout=10)
    assert answer.status_code == 200, answer.text
    scoring: dict[str, Any] = answer.json()
    return scoring


def _completed_scores(base_url: str) -> int:
    """How many sessions have a completed score under the current criteria (what an export at minimum 0 writes)."""
    scored: int = httpx.get(f"{base_url}{API}/sessions", params={"scored": "scored"}, timeout=10).json()["total_items"]
    return scored


def _the_verdict_leads(page: Any) -> None:
    """The session's page shows the score, its four dimensions and the reasoning, the score on the first screen."""
    from playwright.sync_api import expect

    total = page.get_by_test_id("total-score")
    expect(total).to_be_visible(timeout=SCORING_TIMEOUT_S * 1000)
    expect(total).to_be_in_viewport()
    expect(page.get_by_test_id("breakdown-bar")).to_have_count(4)
    expect(page.get_by_role("heading", name="Reasoning")).to_be_visible()
    expect(page.get_by_test_id("judge-info")).to_contain_text("heuristic")


@pytest.fixture(scope="module")
def local_stack() -> Iterator[str]:
    with running_stack(SCORING_LLM_PROVIDER="heuristic") as base_url:
        url = f"{base_url}{API}/sessions/{quote(THOROUGH_ID)}/score"
        answer = httpx.post(url, json={}, timeout=10)
        assert answer.status_code == 202, answer.text
        deadline = time.monotonic() + SCORING_TIMEOUT_S
        while answer.json()["status"] != "completed" and time.monotonic() < deadline:
            time.sleep(0.25)  # polling the worker's progress through the API
            answer = httpx.get(url, timeout=10)
        assert answer.json()["status"] == "completed", answer.text
        yield base_url


def test_search_finds_an_unscored_session_by_a_fragment_of_its_id(local_stack: str, browser: Any) -> None:
    from playwright.sync_api import expect

    fragment = IN_PROGRESS_ID[:8]  # the short id the Sessions list prints; this session was never scored
    listed = httpx.get(f"{local_stack}{API}/sessions", timeout=10).json()["items"]
    assert next(i for i in listed if i["session_id"] == IN_PROGRESS_ID)["score"] is None
    for viewport, name in WIDTHS:
        with open_page(browser, viewport) as page:
            page.goto(local_stack + "/scores")
            box = page.get_by_role("combobox", name="Search sessions by id, agent or alert type")
            box.fill(fragment)
            hit = page.get_by_test_id("search-hit").first
            expect(hit).to_have_attribute("data-session-id", IN_PROGRESS_ID)
            assert_accessible(page, f"a search hit of an unscored session at {name} px")
            box.press("Enter")
            expect(page).to_have_url(f"{local_stack}/sessions/{IN_PROGRESS_ID}")
            expect(page.get_by_role("heading", level=1)).to_be_visible()

            box = page.get_by_role("combobox", name="Search sessions by id, agent or alert type")
            box.fill("zq-nothing-has-this")
            expect(page.get_by_test_id("search-no-matches")).to_have_text("No matches for “zq-nothing-has-this”")
            box.press("Enter")
            expect(page.get_by_test_id("search-no-matches")).to_be_visible()
            expect(page).to_have_url(f"{local_stack}/sessions/{IN_PROGRESS_ID}")  # Enter stayed put
            shot(page, f"32-search-no-matches-{name}")
            assert_accessible(page, f"no matches at {name} px")


def test_export_training_data_from_the_dashboard(local_stack: str, browser: Any) -> None:
    from playwright.sync_api import expect

    for viewport, name in WIDTHS:
        with open_page(browser, viewport) as page:
            page.goto(local_stack + "/scores")
            page.get_by_role("link", name="Export training data").click()
            expect(page).to_have_url(f"{local_stack}/export")
            assert_accessible(page, f"the export form at {name} px")
            page.get_by_label("Minimum score").fill("0")
            page.get_by_role("button", name="Export").click()
            progress = page.get_by_test_id("export-progress")
            expect(progress).to_have_attribute("data-state", "done")
            exported = _completed_scores(local_stack)
            noun = "session" if exported == 1 else "sessions"
            expect(page.get_by_test_id("export-count")).to_contain_text(f"{exported} {noun} exported")
            link = page.get_by_test_id("export-link")
            # the file the page assembled from the stream (an object URL), not another request
            expect(link).to_have_attribute("href", re.compile(r"^blob:"))
            with page.expect_download() as download:
                link.click()
            lines = download.value.path().read_text().splitlines()
            assert len(lines) == exported
            assert any(THOROUGH_ID in line for line in lines)
            shot(page, f"33-export-{name}")
            assert_accessible(page, f"an export done at {name} px")
            if viewport is PHONE:
                assert_fits(page, "/export", "export-progress")


@pytest.mark.parametrize(
    ("viewport", "width", "session_id"),
    [(DESKTOP, "1440", SHALLOW_ID), (PHONE, "390", FAILING_TOOLS_ID)],
    ids=("1440", "390"),
)
def test_score_a_session_never_scored(
    local_stack: str, browser: Any, viewport: dict[str, int], width: str, session_id: str
) -> None:
    """Daily job: pick a session from the unscored ones on the Sessions list, score it on its page, read the verdict,
    and see the score on the list."""
    from playwright.sync_api import expect

    assert _scoring(local_stack, session_id)["current"] is None
    with open_page(browser, viewport) as page:
        page.goto(local_stack + "/")
        if viewport is PHONE:  # a phone's filters fold behind one button, the table's first rows on the first screen
            page.get_by_role("button", name="Filters", exact=True).click()
        page.get_by_role("button", name="Unscored").click()
        expect(page).to_have_url(re.compile(r"/\?scored=unscored$"))
        if viewport is PHONE:
            expect(page.get_by_role("button", name="Hide filters")).to_have_attribute("aria-expanded", "true")
        row = page.locator(f'[data-testid="session-row"][data-session-id="{session_id}"]')
        expect(row.get_by_test_id("score-badge")).to_have_text("Not Scored")
        assert_accessible(page, f"the unscored sessions at {width} px")
        if viewport is PHONE:
            assert_fits(page, "/?scored=unscored", "score-badge")

        row.get_by_test_id("session-link").click()
        expect(page).to_have_url(f"{local_stack}/sessions/{session_id}")
        expect(page.get_by_text("Not scored under the current criteria")).to_be_visible()
        assert_accessible(page, f"a session never scored at {width} px")
        page.get_by_role("button", name="Score Session").click()
        _the_verdict_leads(page)
        scored = _scoring(local_stack, session_id)["current"]
        expect(page.get_by_test_id("total-score")).to_have_text(f"{scored['total_score']}/100")
        expect(page.get_by_role("button", name="Re-score")).to_be_visible()
        shot(page, f"34-job-scored-{width}")
        assert_accessible(page, f"a session just scored at {width} px")

        page.get_by_role("link", name="Sessions").first.click()
        badge = row.get_by_test_id("score-badge")
        expect(badge).to_have_attribute("data-state", "scored")
        expect(badge).to_have_text(str(scored["total_score"]))


@pytest.mark.parametrize(
    ("viewport", "width", "trace"),
    [(DESKTOP, "1440", "anthropic_checkout_latency.json"), (PHONE, "390", "codex_cert_expiry.jsonl")],
    ids=("1440", "390"),
)
def test_upload_a_trace_and_score_it(
    local_stack: str, browser: Any, viewport: dict[str, int], width: str, trace: str
) -> None:
    """Daily job: upload a trace from the Upload page, score what it stored, and open its verdict."""
    from playwright.sync_api import expect

    with open_page(browser, viewport) as page:
        page.goto(local_stack + "/")
        page.get_by_role("link", name="Upload").click()
        expect(page).to_have_title("Upload a trace · Session Scoring")
        assert_accessible(page, f"the upload page at {width} px")
        page.get_by_test_id("upload-input").set_input_files(str(TRACES / trace))
        row = page.get_by_test_id("upload-result").get_by_test_id("uploaded-session")
        expect(row).to_have_count(1)
        session_id = row.get_attribute("data-session-id")
        assert session_id
        assert session_id.startswith("upload:")
        short = session_id.removeprefix("upload:")[:8]
        score = row.get_by_role("button", name=f"Score {short}")
        # the button waits disabled until the row knows the session has no score; axe judges it once it is enabled
        # (its colour change to enabled is a transition, which axe caught half-way in one run)
        expect(score).to_be_enabled()
        assert_accessible(page, f"an upload's answer at {width} px")

        score.click()
        badge = row.get_by_test_id("score-badge")
        expect(badge).to_have_attribute("data-state", "scored", timeout=SCORING_TIMEOUT_S * 1000)
        scored = _scoring(local_stack, session_id)["current"]
        expect(badge).to_have_text(str(scored["total_score"]))
        shot(page, f"35-job-upload-scored-{width}")
        assert_accessible(page, f"an upload scored at {width} px")
        if viewport is PHONE:
            assert_fits(page, "/upload", "score-badge")

        row.get_by_role("link", name=short).click()
        expect(page).to_have_url(f"{local_stack}/sessions/{quote(session_id, safe='')}")
        _the_verdict_leads(page)
        expect(page.get_by_test_id("total-score")).to_have_text(f"{scored['total_score']}/100")
        assert_accessible(page, f"an upload's verdict at {width} px")
