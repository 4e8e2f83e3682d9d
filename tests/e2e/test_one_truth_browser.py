"""One truth per session in headless Chromium against a local stack whose judge is the fake Messages API: every
completed sample session is scored, then a run over all of them is cancelled while the judge holds its first verdict.
The sessions the run cancelled keep their completed scores on the Sessions list (the cancelled attempt said beside
the score, never "Cancelled" in its place) and on their pages (the badge and Re-score, not Score Session), at 1440 and
390 px, with axe-core finding nothing serious.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.conftest import FAILING_TOOLS_ID, SHALLOW_ID, THOROUGH_ID
from tests.e2e.conftest import PHONE, assert_accessible, assert_fits, open_page, running_stack, shot
from tests.support.fake_claude import SAMPLE_VERDICT, FakeClaude, FakeReply, verdict_body

API = "/api/v1/scoring"
TIMEOUT_S = 60
# The held verdict is let go by the test long before this; the bound only keeps a failing test from hanging.
HOLD_SECONDS = 90
DESKTOP = {"width": 1440, "height": 900}
COMPLETED = (THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID)


def _until(read: Any, done: Any) -> Any:
    """Read through the API until ``done`` holds (polling the worker's progress, bounded)."""
    deadline = time.monotonic() + TIMEOUT_S
    value = read()
    while not done(value) and time.monotonic() < deadline:
        time.sleep(0.25)  # polling the worker's progress through the API
        value = read()
    return value


@pytest.fixture(scope="module")
def cancelled_over_scored(judge: FakeClaude) -> Iterator[tuple[str, list[str]]]:
    """The stack, and the sessions that had a completed score when the run that cancelled them started."""
    with running_stack(
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="e2e-key-not-secret",
        ANTHROPIC_BASE_URL=judge.base_url,
        JUDGE_MAX_RETRIES="0",
    ) as base_url:
        for session_id in COMPLETED:
            url = f"{base_url}{API}/sessions/{quote(session_id)}/score"
            assert httpx.post(url, json={}, timeout=10).status_code == 202
            scored = _until(lambda url=url: httpx.get(url, timeout=10).json(), lambda s: s["status"] == "completed")
            assert scored["status"] == "completed", scored
        release = threading.Event()
        judge.script(FakeReply(body=verdict_body(SAMPLE_VERDICT), on_request=lambda: release.wait(HOLD_SECONDS)))
        body = {"selection": {"which": "all"}, "max_sessions": 10, "name": "cancelled over scored sessions"}
        started = httpx.post(f"{base_url}{API}/runs", json=body, timeout=10)
        assert started.status_code == 202, started.text
        run_url = f"{base_url}{API}/runs/{started.json()['run_id']}"
        try:
            _until(lambda: httpx.get(run_url, timeout=10).json(), lambda r: r["counts"]["in_progress"] == 1)
            assert httpx.post(f"{run_url}/cancel", timeout=10).status_code == 200
        finally:
            release.set()
        run = _until(
            lambda: httpx.get(run_url, timeout=10).json(),
            lambda r: r["counts"]["pending"] + r["counts"]["in_progress"] == 0,
        )
        assert run["status"] == "cancelled", run
        assert run["counts"]["cancelled"] >= 1, run
        page = httpx.get(f"{run_url}/sessions", params={"status": "cancelled"}, timeout=10).json()
        yield base_url, [item["session_id"] for item in page["items"]]


def test_the_api_keeps_the_scores_a_cancelled_run_came_after(cancelled_over_scored: tuple[str, list[str]]) -> None:
    base_url, cancelled = cancelled_over_scored
    listed = httpx.get(f"{base_url}{API}/sessions", timeout=10).json()["items"]
    scores = {item["session_id"]: item["score"] for item in listed}
    for session_id in cancelled:
        assert scores[session_id]["status"] == "completed", scores[session_id]
        assert scores[session_id]["later_attempt_status"] == "cancelled"


def test_sessions_list_and_session_page_keep_the_score_after_a_cancelled_run(
    cancelled_over_scored: tuple[str, list[str]], browser: Any
) -> None:
    from playwright.sync_api import expect

    base_url, cancelled = cancelled_over_scored
    for viewport, name in ((DESKTOP, "1440"), (PHONE, "390")):
        with open_page(browser, viewport) as page:
            page.goto(base_url + "/")
            for session_id in cancelled:
                row = page.locator(f'[data-session-id="{session_id}"]')
                expect(row.get_by_test_id("score-badge")).to_have_attribute("data-state", "scored")
                expect(row.get_by_test_id("later-attempt")).to_have_text("Latest attempt cancelled")
            expect(page.locator('[data-testid="score-badge"][data-state="cancelled"]')).to_have_count(0)
            expect(page.get_by_test_id("criteria-scope")).to_contain_text("current criteria")
            shot(page, f"30-one-truth-sessions-{name}")
            assert_accessible(page, f"the sessions list after a cancelled run at {name} px")
            if viewport is PHONE:
                assert_fits(page, "/", "score-badge")

            page.goto(f"{base_url}/sessions/{quote(cancelled[0], safe='')}")
            expect(page.get_by_test_id("total-score")).to_be_visible()
            expect(page.get_by_role("button", name="Re-score")).to_be_visible()
            expect(page.get_by_role("button", name="Score Session")).to_have_count(0)
            expect(page.get_by_test_id("later-attempt")).to_have_text("Latest attempt cancelled")
            shot(page, f"31-one-truth-session-{name}")
            assert_accessible(page, f"a session after a cancelled run at {name} px")
