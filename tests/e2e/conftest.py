"""Browser-test fixtures: a local stack (``python -m devstack``) on a free port, headless Chromium through Playwright,
screenshots, and an axe-core accessibility check of the page in view.

Chromium is Debian's binary driven by executable path (Playwright's own browser download does not work here). axe-core
comes from the dashboard's npm dev dependencies and is evaluated in the page through the DevTools protocol, which the
page's Content-Security-Policy does not govern (an injected ``<script>`` would be refused, as it should be). Every page
reports each violation of its Content-Security-Policy to the test, and any fails it: the dashboard works under its
policy.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.support.devstack_process import LocalStackProcess, stack_directory
from tests.support.fake_claude import FakeClaude

SCREENSHOTS = ROOT / "tests" / "e2e" / "screenshots"
STATIC_INDEX = ROOT / "functions" / "api" / "static" / "index.html"
AXE_SCRIPT = ROOT / "dashboard" / "node_modules" / "axe-core" / "axe.min.js"
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
PHONE = {"width": 390, "height": 844}
# What axe-core must not find on any view (moderate and minor findings are reported, not failed).
BLOCKING_IMPACTS = {"serious", "critical"}


@contextmanager
def started_stack(**extra_env: str) -> Iterator[LocalStackProcess]:
    """`python -m devstack` on a free port with its own data directory; ``extra_env`` picks the judge and the rest."""
    if not STATIC_INDEX.is_file():
        pytest.fail("the dashboard is not built: run `make dashboard` (make test and make run build it)")
    with stack_directory("scoring-e2e-") as data_dir, LocalStackProcess(data_dir, **extra_env) as stack:
        stack.start()
        yield stack


@contextmanager
def running_stack(**extra_env: str) -> Iterator[str]:
    """:func:`started_stack`, by its base URL."""
    with started_stack(**extra_env) as stack:
        yield stack.base_url


@pytest.fixture(scope="module")
def judge() -> Iterator[FakeClaude]:
    """A module's fake Messages API, for the stacks that score through the Claude judge."""
    fake = FakeClaude().start()
    try:
        yield fake
    finally:
        fake.stop()


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


REPORT_CSP_VIOLATIONS = """
document.addEventListener('securitypolicyviolation', (e) => window.reportCspViolation(
  `${e.violatedDirective} blocked ${e.blockedURI || 'inline'} at ${e.sourceFile}:${e.lineNumber}`
));
"""
"""Run in every document before its own scripts: each violation of its policy is passed to the test."""


@contextmanager
def open_page(browser: Any, viewport: dict[str, int], headers: dict[str, str] | None = None) -> Iterator[Any]:
    """A fresh context and page at this window size (sending ``headers`` with every request); JavaScript errors and
    Content-Security-Policy violations on the page fail the test."""
    context = browser.new_context(viewport=viewport, extra_http_headers=headers)
    context.set_default_timeout(15_000)
    violations: list[str] = []
    context.expose_binding("reportCspViolation", lambda _source, violation: violations.append(violation))
    context.add_init_script(REPORT_CSP_VIOLATIONS)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
    assert not violations, f"Content-Security-Policy violations on the page: {violations}"


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with open_page(browser, {"width": 1280, "height": 900}) as desktop:
        yield desktop


@pytest.fixture
def phone(browser: Any) -> Iterator[Any]:
    with open_page(browser, PHONE) as narrow:
        yield narrow


def shot(page: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def assert_accessible(page: Any, view: str) -> None:
    """Run axe-core (WCAG 2.x A/AA rules) on the page as it is now: no serious or critical violation."""
    if not AXE_SCRIPT.is_file():
        pytest.fail(f"axe-core is missing at {AXE_SCRIPT}: run `make dashboard` (npm ci installs it)")
    # a dialog still fading in has its text at partial opacity: let finite transitions end before judging contrast
    # (spinners and indeterminate progress bars run forever and are skipped)
    page.evaluate(
        "() => Promise.all(document.getAnimations()"
        ".filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity)"
        ".map((a) => a.finished.catch(() => null)))"
    )
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT.read_text())
    result = page.evaluate(
        "() => axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}})"
    )
    blocking = [
        {
            "rule": v["id"],
            "impact": v["impact"],
            "help": v["help"],
            "targets": [node["target"] for node in v["nodes"][:5]],
        }
        for v in result["violations"]
        if v["impact"] in BLOCKING_IMPACTS
    ]
    assert not blocking, f"axe-core on {view}: {json.dumps(blocking, indent=2)}"


def assert_fits(page: Any, path: str, *columns: str) -> None:
    """No horizontal scrolling at this width: neither the page nor any table scrolls sideways, and every element of
    each ``columns`` test id lies inside the window."""
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{path} is {overflow}px wider than the window"
    scrolling = page.evaluate(
        "[...document.querySelectorAll('.MuiTableContainer-root')].map(e => e.scrollWidth - e.clientWidth)"
    )
    assert all(extra <= 0 for extra in scrolling), f"a table on {path} scrolls sideways by {scrolling} px"
    width = page.viewport_size["width"]
    for test_id in columns:
        cells = page.get_by_test_id(test_id)
        assert cells.count() > 0, f"no {test_id} on {path}"
        for i in range(cells.count()):
            box = cells.nth(i).bounding_box()
            assert box is not None, f"{test_id} #{i} on {path} is not rendered"
            assert box["x"] >= 0, f"{test_id} #{i} on {path} starts left of the window: {box}"
            assert box["x"] + box["width"] <= width, f"{test_id} #{i} on {path} ends past the {width}px window: {box}"
