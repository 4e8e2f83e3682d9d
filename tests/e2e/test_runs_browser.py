"""The Runs page in headless Chromium against a local stack whose judge is the fake Messages API (real SDK, real HTTP).

The fake judge answers the run's first session at once and holds the second until the test lets it go, so the page is
seen mid-run without any timing: the estimate, the confirm step, the progress moving on its own (polling), the cancel
confirmation, the cancelled session never reaching the judge, and the run's true counts afterwards (scored and
cancelled apart, its sessions filtered by status): the daily job "capped run with estimate, watch, cancel", at 1440 and
390 px with axe-core on each view. A cancel confirmed after the run ended says so instead of an error.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.conftest import ROOT, SHALLOW_ID
from tests.e2e.conftest import PHONE, assert_accessible, assert_fits, open_page, running_stack, shot
from tests.support.fake_claude import SAMPLE_VERDICT, FakeClaude, FakeReply, verdict_body

RUN_TIMEOUT_MS = 60_000
# The held verdict is let go by the test long before this; the bound only keeps a failing test from hanging.
HOLD_SECONDS = 90
DESKTOP = {"width": 1440, "height": 900}
# A run capped below the completed sessions there are (the three samples and one upload).
CAP = 3


@pytest.fixture(scope="module")
def runs_stack(judge: FakeClaude) -> Iterator[str]:
    with running_stack(
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="e2e-key-not-secret",
        ANTHROPIC_BASE_URL=judge.base_url,
        JUDGE_MAX_RETRIES="0",
    ) as base_url:
        trace = ROOT / "tests" / "fixtures" / "traces" / "openai_chat_crashloop.json"
        uploaded = httpx.post(
            f"{base_url}/api/v1/scoring/sessions:import",
            content=trace.read_bytes(),
            headers={"content-type": "application/json"},
            timeout=10,
        )
        assert uploaded.status_code == 201, uploaded.text
        yield base_url


def _settled(base_url: str, run_id: str) -> dict[str, Any]:
    """Read the run until none of its attempts is active (the held one finishes once released)."""
    deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
    while True:
        run: dict[str, Any] = httpx.get(f"{base_url}/api/v1/scoring/runs/{run_id}", timeout=10).json()
        if run["counts"]["pending"] + run["counts"]["in_progress"] == 0 or time.monotonic() > deadline:
            return run
        time.sleep(0.25)  # polling the worker's progress through the API


def _ended(base_url: str, run_id: str) -> dict[str, Any]:
    """Read the run until it has ended (completed, cancelled or failed)."""
    deadline = time.monotonic() + RUN_TIMEOUT_MS / 1000
    while True:
        run: dict[str, Any] = httpx.get(f"{base_url}/api/v1/scoring/runs/{run_id}", timeout=10).json()
        if run["status"] not in ("planning", "running") or time.monotonic() > deadline:
            return run
        time.sleep(0.25)  # polling the worker's progress through the API


@pytest.mark.parametrize(("viewport", "width"), [(DESKTOP, "1440"), (PHONE, "390")], ids=("1440", "390"))
def test_estimate_confirm_watch_progress_and_cancel_a_capped_run(
    runs_stack: str, judge: FakeClaude, browser: Any, viewport: dict[str, int], width: str
) -> None:
    """Daily job: a run over all sessions capped at 3 of the 4 there are: its estimate (in view, saying where it
    stops), the confirm step, the progress moving on its own, the cancel, and the true counts afterwards."""

    with open_page(browser, viewport) as page:
        _capped_run(runs_stack, judge, page, width)


def _capped_run(runs_stack: str, judge: FakeClaude, page: Any, width: str) -> None:
    from playwright.sync_api import expect

    asked_before = len(judge.requests)
    no_runs = not httpx.get(f"{runs_stack}/api/v1/scoring/runs", timeout=10).json()["items"]
    release = threading.Event()
    judge.script(
        FakeReply(body=verdict_body(SAMPLE_VERDICT)),
        FakeReply(body=verdict_body(SAMPLE_VERDICT), on_request=lambda: release.wait(HOLD_SECONDS)),
    )
    name = f"e2e run at {width}"
    try:
        page.goto(runs_stack + "/runs")
        if no_runs:
            expect(page.get_by_text("No runs yet")).to_be_visible()
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        assert_accessible(page, f"the runs list at {width} px")
        page.get_by_role("link", name="New run").click()
        page.get_by_role("combobox", name="Sessions", exact=True).click()
        page.get_by_role("option", name="all sessions").click()
        page.get_by_label("Max sessions").fill(str(CAP))
        page.get_by_label("Name").fill(name)
        assert_accessible(page, f"the run form at {width} px")
        page.get_by_role("button", name="Estimate").click()

        estimate = page.get_by_test_id("run-estimate")
        expect(estimate.get_by_test_id("estimate-selected")).to_have_text(str(CAP))  # 3 of the 4 completed sessions
        expect(estimate).to_contain_text(f"The selection stops early: max sessions ({CAP}) reached.")
        expect(estimate.get_by_test_id("estimate-cost")).to_have_text(re.compile(r"^\$\d+\.\d+$"))
        expect(estimate.get_by_role("link")).to_have_count(CAP)  # the sample of the selected sessions
        expect(estimate.get_by_role("heading", name="Estimate")).to_be_in_viewport()
        assert len(judge.requests) == asked_before, "a dry run must not call the judge"
        shot(page, f"10-run-estimate-{width}")
        assert_accessible(page, f"the run form with its estimate at {width} px")

        estimate.get_by_role("button", name=f"Start run of {CAP} sessions").click()
        expect(page).to_have_url(re.compile(r"/runs/[0-9a-f-]{36}$"))
        run_id = page.url.rsplit("/", 1)[1]
        # Live progress: the first verdict came back, the second is held by the judge, the third waits its turn.
        expect(page.get_by_test_id("run-progress")).to_have_attribute("data-done", "1", timeout=RUN_TIMEOUT_MS)
        expect(page.get_by_test_id("count-in_progress")).to_contain_text("1", timeout=RUN_TIMEOUT_MS)
        expect(page.get_by_test_id("run-status")).to_have_text("running")
        shot(page, f"11-run-in-progress-{width}")
        assert_accessible(page, f"a running run at {width} px")

        page.get_by_role("button", name="Cancel run").click()
        dialog = page.get_by_role("dialog")
        expect(dialog).to_contain_text("Cancel this run?")
        assert_accessible(page, f"the cancel confirmation at {width} px")
        dialog.get_by_role("button", name="Yes, cancel run").click()
        expect(page.get_by_test_id("run-status")).to_have_text("cancelled")
        expect(page.get_by_test_id("count-cancelled")).to_contain_text("1")
        expect(page.get_by_role("button", name="Cancel run")).to_have_count(0)
    finally:
        release.set()

    run = _settled(runs_stack, run_id)
    assert run["status"] == "cancelled"
    assert run["counts"] | {"skipped_by_reason": None} == {
        "pending": 0,
        "in_progress": 0,
        "completed": 2,
        "failed": 0,
        "cancelled": 1,
        "skipped": run["counts"]["skipped"],
        "skipped_by_reason": None,
    }
    assert len(judge.requests) - asked_before == 2, "the cancelled session must never reach the judge"

    # the true counts: two scored and one cancelled, never "3 of 3 done"
    page.reload()
    expect(page.get_by_test_id("run-progress-text")).to_have_text("2 scored, 1 cancelled of 3")
    expect(page.get_by_test_id("count-completed")).to_contain_text("2")
    expect(page.get_by_test_id("count-cancelled")).to_contain_text("1")
    expect(page.get_by_test_id("run-session-row")).to_have_count(3)
    assert_accessible(page, f"a cancelled run at {width} px")
    if width == "390":
        assert_fits(page, f"/runs/{run_id}", "run-session-status")
    page.get_by_role("button", name="Cancelled 1").click()
    expect(page).to_have_url(re.compile(r"\?status=cancelled$"))
    rows = page.get_by_test_id("run-session-row")
    expect(rows).to_have_count(1)
    expect(rows.first.get_by_test_id("run-session-status")).to_have_text("cancelled")
    shot(page, f"12-run-cancelled-{width}")
    assert_accessible(page, f"a cancelled run's sessions at {width} px")

    page.goto(runs_stack + "/runs")
    row = page.locator(f'[data-run-id="{run_id}"]')
    expect(row).to_contain_text(name)
    expect(row.get_by_test_id("run-progress-text")).to_have_text("2 scored, 1 cancelled of 3")
    shot(page, f"12-runs-list-{width}")
    assert_accessible(page, f"the runs list with the cancelled run at {width} px")
    row.get_by_role("link", name=name).click()
    expect(page).to_have_url(f"{runs_stack}/runs/{run_id}")


def test_a_cancel_that_comes_after_the_run_ended_says_so(runs_stack: str, judge: FakeClaude, page: Any) -> None:
    from playwright.sync_api import expect

    release = threading.Event()
    judge.script(FakeReply(body=verdict_body(SAMPLE_VERDICT), on_request=lambda: release.wait(HOLD_SECONDS)))
    body = {"selection": {"which": "all", "session_ids": [SHALLOW_ID]}, "max_sessions": 1, "name": "race"}
    started = httpx.post(f"{runs_stack}/api/v1/scoring/runs", json=body, timeout=10)
    assert started.status_code == 202, started.text
    run_id = started.json()["run_id"]
    try:
        page.goto(f"{runs_stack}/runs/{run_id}")
        expect(page.get_by_test_id("count-in_progress")).to_contain_text("1", timeout=RUN_TIMEOUT_MS)
        page.get_by_role("button", name="Cancel run").click()
        expect(page.get_by_role("dialog")).to_contain_text("Cancel this run?")
    finally:
        release.set()
    assert _ended(runs_stack, run_id)["status"] == "completed"  # the run ends while the question is open

    page.get_by_role("dialog").get_by_role("button", name="Yes, cancel run").click()
    expect(page.get_by_test_id("cancel-too-late")).to_have_text(
        "The run had already finished before the cancel reached it: nothing was left to cancel."
    )
    expect(page.get_by_text("Could not cancel the run")).to_have_count(0)
    expect(page.get_by_test_id("run-progress-text")).to_have_text("1 scored of 1")
    assert_accessible(page, "a cancel that came too late")


def test_runs_list_and_form_fit_a_phone(runs_stack: str, phone: Any) -> None:
    from playwright.sync_api import expect

    body = {"selection": {"which": "all"}, "max_sessions": 1, "name": "phone-width run with a long name to wrap"}
    assert httpx.post(f"{runs_stack}/api/v1/scoring/runs", json=body, timeout=10).status_code == 202

    phone.goto(runs_stack + "/runs")
    expect(phone.get_by_test_id("run-row").first).to_be_visible()
    shot(phone, "13-narrow-runs")
    assert_fits(phone, "/runs", "run-status", "run-progress")
    assert_accessible(phone, "the runs list at 390 px")

    phone.goto(runs_stack + "/runs/new?which=not_current_criteria")
    expect(phone.get_by_role("combobox", name="Sessions", exact=True)).to_have_text(
        "not scored with the current criteria"
    )
    assert_fits(phone, "/runs/new")
    assert_accessible(phone, "the run form at 390 px")
