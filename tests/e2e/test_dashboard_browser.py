"""The dashboard in headless Chromium against a real local stack (``python -m devstack``) started by the test.

Flow: sessions list -> a session -> Score Session -> the score appears with four breakdown bars; the conversation
view; the analytics page shows the bars and links to the sessions behind them; the layout at 1280 px and narrow.
Screenshots go to tests/e2e/screenshots/ (git-ignored).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import IN_PROGRESS_ID, ROOT, SHALLOW_ID

SCREENSHOTS = ROOT / "tests" / "e2e" / "screenshots"
STATIC_INDEX = ROOT / "functions" / "api" / "static" / "index.html"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
STARTUP_SECONDS = 120
SCORING_TIMEOUT_MS = 60_000


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_healthy(base_url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    """Poll /health until the stack answers, the process dies, or the start-up budget is spent."""
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the local stack exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{base_url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)  # readiness polling of a child process, not test synchronisation
    pytest.fail(f"the local stack did not become healthy in {STARTUP_SECONDS} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def local_stack() -> Iterator[str]:
    """`python -m devstack` on a free port with its own data directory and the heuristic judge."""
    if not STATIC_INDEX.is_file():
        pytest.fail("the dashboard is not built: run `make dashboard` (make test and make run build it)")
    data_dir = Path(tempfile.mkdtemp(prefix="scoring-e2e-"))
    data_dir.chmod(0o755)  # the embedded PostgreSQL runs as its own user when we are root
    port = _free_port()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SCORING_", "ANTHROPIC_", "AWS_")) and key not in {"PORT", "DEFAULT_LLM_PROVIDER"}
    }
    env |= {"PORT": str(port), "SCORING_LOCAL_DATA_DIR": str(data_dir), "SCORING_LLM_PROVIDER": "heuristic"}
    log = data_dir / "stack.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "devstack"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base_url, process, log)
        yield base_url
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: run `make chromium` (apt-get install chromium) or set CHROMIUM_PATH")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def wait_for_completed_score(base_url: str, session_id: str) -> None:
    """Request a score (a no-op when one exists) and poll until the worker has completed it."""
    url = f"{base_url}/api/v1/scoring/sessions/{session_id}/score"
    status = httpx.post(url, timeout=10).json()["status"]
    deadline = time.monotonic() + SCORING_TIMEOUT_MS / 1000
    while status != "completed" and time.monotonic() < deadline:
        time.sleep(0.25)  # polling the worker's progress through the API
        status = httpx.get(url, timeout=10).json()["status"]
    assert status == "completed"


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def test_score_a_session_from_the_list_and_read_the_critique(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(local_stack + "/")
    rows = page.get_by_test_id("session-row")
    expect(rows).to_have_count(4)
    row = page.locator(f'[data-session-id="{SHALLOW_ID}"]')
    expect(row.get_by_test_id("score-badge")).to_have_text("Not Scored")
    shot(page, "01-sessions-unscored")

    row.click()
    expect(page).to_have_url(f"{local_stack}/sessions/{SHALLOW_ID}")
    expect(page.get_by_text("Not scored yet")).to_be_visible()
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

    page.get_by_role("button", name="Conversation").click()
    expect(page.get_by_test_id("conversation")).to_be_visible()
    expect(page.get_by_test_id("tool-call").first).to_be_visible()
    shot(page, "03-session-conversation")

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
    page.get_by_role("button", name="Yes, re-score").click()

    expect(page.get_by_test_id("earlier-attempt")).to_have_count(before + 1, timeout=SCORING_TIMEOUT_MS)
    expect(page.get_by_test_id("total-score")).to_be_visible()
    expect(page.get_by_role("button", name="Re-score")).to_be_enabled()


def test_a_session_still_running_cannot_be_scored(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(f"{local_stack}/sessions/{IN_PROGRESS_ID}")

    expect(page.get_by_role("button", name="Score Session")).to_be_disabled()
    expect(page.get_by_text("only completed sessions can be scored")).to_be_visible()


def test_analytics_shows_the_bands_and_links_to_the_sessions(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    wait_for_completed_score(local_stack, SHALLOW_ID)
    page.goto(local_stack + "/analytics")

    bars = page.get_by_test_id("band-bar")
    expect(bars).to_have_count(5)
    expect(page.get_by_test_id("distribution-card")).to_contain_text("1 session scored")
    expect(page.get_by_test_id("missing-tools-chart")).to_be_visible()
    shot(page, "05-analytics")

    page.locator('[data-testid="band-bar"]:not([disabled])').first.click()
    drill = page.get_by_test_id("drilldown")
    expect(drill).to_contain_text("1 session")
    drill.get_by_role("link", name=SHALLOW_ID).click()
    expect(page).to_have_url(f"{local_stack}/sessions/{SHALLOW_ID}")
    expect(page.get_by_test_id("total-score")).to_be_visible()


def test_narrow_window_has_no_horizontal_overflow(local_stack: str, browser: Any) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    try:
        for path, ready, name in [
            ("/", "session-row", "06-narrow-sessions"),
            (f"/sessions/{SHALLOW_ID}", "score-badge", "07-narrow-session"),
            ("/analytics", "band-bar", "08-narrow-analytics"),
        ]:
            page.goto(local_stack + path)
            expect(page.get_by_test_id(ready).first).to_be_visible(timeout=SCORING_TIMEOUT_MS)
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            shot(page, name)
            assert overflow <= 0, f"{path} is {overflow}px wider than a 390px window"
    finally:
        context.close()


def test_client_routes_survive_a_reload_and_never_shadow_the_api(local_stack: str) -> None:
    deep = httpx.get(f"{local_stack}/sessions/{SHALLOW_ID}", timeout=10)
    assert deep.status_code == 200
    assert '<div id="root">' in deep.text

    unknown_api = httpx.get(f"{local_stack}/api/v1/scoring/no-such-route", timeout=10)
    assert unknown_api.status_code == 404
    assert unknown_api.json()["code"] == "not_found"
    assert httpx.get(f"{local_stack}/openapi.json", timeout=10).json()["info"]["title"] == "Session Scoring API"
    assert httpx.get(f"{local_stack}/health", timeout=10).json()["status"] == "ok"
