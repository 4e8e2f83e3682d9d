"""The dashboard behind a trusted proxy with roles enforced (``SCORING_REQUIRE_AUTH``,
``SCORING_TRUST_FORWARDED_USER``): the browser sends the ``X-Forwarded-User``/``X-Forwarded-Groups`` a proxy in front
would set. A viewer reads everything but finds scoring, labelling and starting a run disabled, each saying which role
it needs; an operator scores. Every page is served under the dashboard's Content-Security-Policy (the fixtures fail a
test on any violation), and an inline script is refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from functions.api.middleware import CONTENT_SECURITY_POLICY
from tests.conftest import SHALLOW_ID, THOROUGH_ID
from tests.e2e.conftest import assert_accessible, open_page, running_stack, shot

SCORING_TIMEOUT_MS = 60_000
VIEWER = {"X-Forwarded-User": "vic", "X-Forwarded-Groups": "staff,viewer"}
OPERATOR = {"X-Forwarded-User": "olga", "X-Forwarded-Groups": "operator"}


@pytest.fixture(scope="module")
def enforced_stack() -> Iterator[str]:
    with running_stack(
        SCORING_LLM_PROVIDER="heuristic", SCORING_REQUIRE_AUTH="true", SCORING_TRUST_FORWARDED_USER="true"
    ) as base_url:
        yield base_url


@pytest.fixture
def viewer_page(browser: Any) -> Iterator[Any]:
    with open_page(browser, {"width": 1280, "height": 900}, headers=VIEWER) as page:
        yield page


@pytest.fixture
def operator_page(browser: Any) -> Iterator[Any]:
    with open_page(browser, {"width": 1280, "height": 900}, headers=OPERATOR) as page:
        yield page


def test_a_viewer_reads_but_may_not_score_label_or_start_a_run_and_is_told_why(
    enforced_stack: str, viewer_page: Any
) -> None:
    from playwright.sync_api import expect

    page = viewer_page
    page.goto(enforced_stack + "/")
    expect(page.get_by_test_id("session-row")).to_have_count(4)

    page.goto(f"{enforced_stack}/sessions/{THOROUGH_ID}")
    expect(page.get_by_role("button", name="Score Session")).to_be_disabled()
    expect(
        page.get_by_text("Scoring a session needs the operator role; you (vic) have the viewer role")
    ).to_be_visible()
    page.get_by_label("Your score (0-100)").fill("70")
    expect(page.get_by_role("button", name="Save label")).to_be_disabled()
    expect(page.get_by_text("Labelling a session needs the labeller role")).to_be_visible()
    shot(page, "40-viewer-session")
    assert_accessible(page, "a session for a viewer")

    page.goto(f"{enforced_stack}/runs/new")
    expect(page.get_by_text("Starting a scoring run needs the operator role")).to_be_visible()
    expect(page.get_by_role("button", name="Estimate")).to_be_disabled()
    assert_accessible(page, "the run form for a viewer")


def test_an_operator_scores_a_session(enforced_stack: str, operator_page: Any) -> None:
    from playwright.sync_api import expect

    page = operator_page
    page.goto(f"{enforced_stack}/sessions/{SHALLOW_ID}")
    page.get_by_role("button", name="Score Session").click()

    expect(page.get_by_test_id("total-score")).to_be_visible(timeout=SCORING_TIMEOUT_MS)
    expect(page.get_by_text("needs the operator role")).to_have_count(0)


def test_the_dashboard_is_served_under_its_policy_and_an_inline_script_is_refused(
    enforced_stack: str, browser: Any
) -> None:
    context = browser.new_context(extra_http_headers=VIEWER)  # not open_page: this page violates its policy
    page = context.new_page()
    response = page.goto(enforced_stack + "/")
    # An inline script, as an injection would add one: the browser refuses it and reports the violated directive.
    refused = page.evaluate(
        """() => new Promise((resolve) => {
             document.addEventListener('securitypolicyviolation', (e) => resolve(e.violatedDirective), {once: true});
             const script = document.createElement('script');
             script.textContent = 'window.injected = true';
             document.head.appendChild(script);
           })"""
    )
    injected = page.evaluate("window.injected")
    context.close()

    assert response is not None
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["x-frame-options"] == "DENY"
    assert refused.startswith("script-src")
    assert injected is None
