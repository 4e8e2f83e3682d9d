"""The dashboard's daily flows in headless Chromium against a local stack with the offline heuristic judge: upload a
trace and score it, open two attempts of a session side by side, label three sessions from the labelling queue with
the keyboard and read the agreement they make (its tooltip and largest gaps; the daily job, at 1440 and 390 px), and the
run form saying why batch mode is off. Each view passes axe-core at 1440 and 390 px and fits a phone; screenshots go to
tests/e2e/screenshots/.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from tests.conftest import FAILING_TOOLS_ID, ROOT, SHALLOW_ID, THOROUGH_ID
from tests.e2e.conftest import PHONE, assert_accessible, assert_fits, open_page, running_stack, shot

API = "/api/v1/scoring"
TRACES = ROOT / "tests" / "fixtures" / "traces"
SCORING_TIMEOUT_S = 60
DESKTOP = {"width": 1440, "height": 900}
GAPS_SHOWN = 10  # the largest gaps the agreement page lists (GAPS_SHOWN in AgreementPage.tsx)


@pytest.fixture(scope="module")
def local_stack() -> Iterator[str]:
    with running_stack(SCORING_LLM_PROVIDER="heuristic") as base_url:
        yield base_url


def _score(base_url: str, session_id: str, force: bool = False) -> None:
    """Request a score and poll the API until the worker completed it."""
    url = f"{base_url}{API}/sessions/{quote(session_id, safe='')}/score"
    answer = httpx.post(url, json={"force_rescore": force}, timeout=10)
    assert answer.status_code in (200, 202), answer.text
    deadline = time.monotonic() + SCORING_TIMEOUT_S
    while answer.json()["status"] != "completed" and time.monotonic() < deadline:
        time.sleep(0.25)  # polling the worker's progress through the API
        answer = httpx.get(url, timeout=10)
    assert answer.json()["status"] == "completed", answer.text


def _upload(base_url: str, name: str) -> str:
    answer = httpx.post(
        f"{base_url}{API}/sessions:import",
        params={"file_name": name},
        content=(TRACES / name).read_bytes(),
        headers={"content-type": "application/json"},
        timeout=10,
    )
    assert answer.status_code == 201, answer.text
    session_id: str = answer.json()["session_id"]
    return session_id


def _check_both_widths(browser: Any, base_url: str, path: str, ready: str, name: str) -> None:
    """The view at ``path`` passes axe at 1440 and 390 px and fits the phone."""
    from playwright.sync_api import expect

    for width, viewport in (("1440", DESKTOP), ("390", PHONE)):
        with open_page(browser, viewport) as view:
            view.goto(base_url + path)
            expect(view.get_by_test_id(ready).first).to_be_visible()
            shot(view, f"{name}-{width}")
            assert_accessible(view, f"{path} at {width} px")
            if width == "390":
                assert_fits(view, path)


def test_upload_a_trace_see_what_was_read_and_score_it(local_stack: str, browser: Any) -> None:
    from playwright.sync_api import expect

    with open_page(browser, DESKTOP) as page:
        page.goto(local_stack + "/")
        page.get_by_role("link", name="Upload").click()
        expect(page).to_have_title("Upload a trace · Session Scoring")
        page.get_by_test_id("upload-input").set_input_files(str(TRACES / "openai_responses_disk.json"))

        result = page.get_by_test_id("upload-result")
        expect(result.get_by_test_id("upload-format")).to_have_text("openai-responses")
        expect(result.get_by_test_id("upload-skipped")).to_contain_text("encrypted reasoning item(s)")
        row = result.get_by_test_id("uploaded-session")
        expect(row).to_have_count(1)
        session_id = row.get_attribute("data-session-id")
        assert session_id
        assert session_id.startswith("upload:")
        assert_accessible(page, "an upload's answer")

        row.get_by_role("button", name=f"Score {session_id.removeprefix('upload:')[:8]}").click()
        badge = row.get_by_test_id("score-badge")
        expect(badge).to_have_attribute("data-state", "scored", timeout=SCORING_TIMEOUT_S * 1000)
        shot(page, "20-upload-scored")
        scored = httpx.get(f"{local_stack}{API}/sessions/{quote(session_id, safe='')}/scoring", timeout=10).json()
        expect(badge).to_have_text(str(scored["current"]["total_score"]))

        # JSON Lines by its name, with what the importer left out of the transcript
        page.get_by_test_id("upload-input").set_input_files(str(TRACES / "claude_code_node_notready.jsonl"))
        newest = page.get_by_test_id("upload-result").first
        expect(newest.get_by_test_id("upload-format")).to_have_text("claude-code-jsonl")
        expect(newest.get_by_test_id("upload-skipped")).to_contain_text("Claude Code 'summary' line(s)")

        # a file that is no trace: the API's reason, and nothing stored
        page.get_by_test_id("upload-input").set_input_files(
            files=[{"name": "notes.json", "mimeType": "application/json", "buffer": b'{"hello": "world"}'}]
        )
        expect(page.get_by_test_id("upload-error")).to_contain_text("Could not upload notes.json:")
        shot(page, "21-upload-refused")
        assert_accessible(page, "a refused upload")
    _check_both_widths(browser, local_stack, "/upload", "upload-drop", "22-upload")


def test_open_two_attempts_of_a_session_side_by_side(local_stack: str, browser: Any) -> None:
    from playwright.sync_api import expect

    _score(local_stack, THOROUGH_ID)
    _score(local_stack, THOROUGH_ID, force=True)
    attempts = httpx.get(f"{local_stack}{API}/sessions/{THOROUGH_ID}/scoring", timeout=10).json()["attempts"]
    assert len(attempts) >= 2
    with open_page(browser, DESKTOP) as page:
        page.goto(f"{local_stack}/sessions/{THOROUGH_ID}")
        page.get_by_role("link", name="Compare attempts side by side").click()
        expect(page).to_have_url(
            f"{local_stack}/sessions/{THOROUGH_ID}/compare?a={attempts[0]['score_id']}&b={attempts[1]['score_id']}"
        )
        expect(page.get_by_role("heading", level=1)).to_have_text("Compare attempts")
        totals = page.locator('[data-testid="compare-row"][data-row="Total"]')
        expect(totals.get_by_test_id("compare-a-value")).to_have_text(str(attempts[0]["total_score"]))
        expect(totals.get_by_test_id("compare-b-value")).to_have_text(str(attempts[1]["total_score"]))
        expect(page.get_by_test_id("compare-reasoning-A")).to_contain_text("heuristic")
        expect(page.get_by_test_id("compare-reasoning-B")).to_contain_text("heuristic")
        shot(page, "23-compare-attempts")
    path = f"/sessions/{THOROUGH_ID}/compare"
    _check_both_widths(browser, local_stack, path, "compare-reasoning-B", "24-compare-attempts")


@pytest.mark.parametrize(
    ("viewport", "width", "to_score"),
    [
        (DESKTOP, "1440", (SHALLOW_ID, THOROUGH_ID, "otel_genai_oom.json")),
        (PHONE, "390", (FAILING_TOOLS_ID, "openai_chat_crashloop.json", "anthropic_checkout_latency.json")),
    ],
    ids=("1440", "390"),
)
def test_label_three_sessions_from_the_queue_with_the_keyboard_then_read_the_agreement(
    local_stack: str, browser: Any, viewport: dict[str, int], width: str, to_score: tuple[str, ...]
) -> None:
    """Daily job: label three sessions from the queue by keyboard alone (digits, Enter), then read the agreement they
    make (a point's tooltip, the largest gaps) and open the largest."""
    from playwright.sync_api import expect

    for item in to_score:  # three more scored sessions for the queue: samples by id, uploads by file name
        _score(local_stack, _upload(local_stack, item) if item.endswith((".json", ".jsonl")) else item)
    queue = httpx.get(f"{local_stack}{API}/labels/next", timeout=10).json()
    assert queue["remaining"] >= 3, queue
    labelled: list[str] = []
    with open_page(browser, viewport) as page:
        page.goto(local_stack + "/agreement")
        page.get_by_role("link", name="Label next").click()
        expect(page).to_have_title("Label sessions · Session Scoring")
        expect(page.get_by_test_id("queue-total")).to_be_visible()
        assert_accessible(page, f"the labelling queue at {width} px")
        if viewport is PHONE:
            assert_fits(page, "/agreement/label")
        for keys in ("35", "70", "95"):
            current = page.get_by_test_id("queue-session")
            if labelled:  # the next session, not the one just saved
                expect(current).not_to_have_attribute("data-session-id", labelled[-1])
            expect(current.get_by_test_id("conversation")).to_be_visible()
            session_id = current.get_attribute("data-session-id")
            assert session_id
            assert session_id not in labelled
            page.keyboard.type(keys)
            page.keyboard.press("Enter")
            expect(page.get_by_test_id("queue-status")).to_contain_text(f"Saved {keys} for")
            labelled.append(session_id)
        shot(page, f"25-label-queue-{width}")
        assert_accessible(page, f"the labelling queue after three labels at {width} px")

    for session_id, total in zip(labelled, (35, 70, 95), strict=True):
        labels = httpx.get(f"{local_stack}{API}/sessions/{quote(session_id, safe='')}/labels", timeout=10).json()
        assert [(label["labeller"], label["total_score"]) for label in labels["current"]] == [("api-client", total)]

    paired = httpx.get(f"{local_stack}{API}/analytics/agreement", timeout=10).json()["n"]
    with open_page(browser, viewport) as page:
        page.goto(local_stack + "/agreement")
        gaps = page.get_by_test_id("agreement-gap")
        expect(gaps).to_have_count(min(paired, GAPS_SHOWN))
        assert set(labelled) <= {gaps.nth(i).get_attribute("data-session-id") for i in range(gaps.count())}
        point = page.get_by_test_id("agreement-point").first
        point.hover()
        expect(page.get_by_test_id("agreement-tooltip")).to_contain_text("human")
        shot(page, f"26-agreement-{width}")
        assert_accessible(page, f"the agreement at {width} px")
        if viewport is PHONE:
            assert_fits(page, "/agreement")
        largest = gaps.first.get_attribute("data-session-id")
        assert largest
        gaps.first.get_by_role("link").click()
        expect(page).to_have_url(f"{local_stack}/sessions/{quote(largest, safe='')}")


def test_the_run_form_says_why_batch_mode_is_off_for_this_judge(local_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(local_stack + "/runs/new")
    expect(page.get_by_role("radio", name="Batch (half price, within 24 h)")).to_be_disabled()
    expect(page.get_by_test_id("batch-unavailable")).to_have_text(
        "Batch mode needs a judge with a batch API (anthropic: Message Batches, openai: the Batch API, google: Gemini "
        "batch mode); this deployment's judge is heuristic."
    )
    assert_accessible(page, "the run form with batch mode off")
