"""Two of an SRE lead's daily jobs in headless Chromium against a local stack with the offline heuristic judge, each
at 1440 and 390 px with axe-core finding nothing serious: find a session never scored by a fragment of its id (and
"no matches" for a fragment of nothing, Enter staying put), and export training data from the dashboard (the
progress, then the file's link with its count)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.conftest import IN_PROGRESS_ID, THOROUGH_ID
from tests.e2e.conftest import PHONE, assert_accessible, assert_fits, open_page, running_stack, shot

API = "/api/v1/scoring"
SCORING_TIMEOUT_S = 60
DESKTOP = {"width": 1440, "height": 900}
WIDTHS = ((DESKTOP, "1440"), (PHONE, "390"))


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
            expect(page.get_by_test_id("export-count")).to_contain_text("1 session exported")
            link = page.get_by_test_id("export-link")
            # the file the page assembled from the stream (an object URL), not another request
            expect(link).to_have_attribute("href", re.compile(r"^blob:"))
            with page.expect_download() as download:
                link.click()
            lines = download.value.path().read_text().splitlines()
            assert len(lines) == 1
            assert THOROUGH_ID in lines[0]
            shot(page, f"33-export-{name}")
            assert_accessible(page, f"an export done at {name} px")
            if viewport is PHONE:
                assert_fits(page, "/export", "export-progress")
