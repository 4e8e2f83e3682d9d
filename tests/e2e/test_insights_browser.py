"""The Analytics views (trends, criteria comparison, missing tools and a tool's sessions) in headless Chromium against a
local stack seeded with `python -m devstack seed` (300 scores: two criteria, four agents, six weeks, missing tools).

Each view is checked for its charts drawn with data (lines, legends, points, matrix counts that add up to the API's
figures), its links, axe-core, and no horizontal scrolling at 390 px; screenshots go to tests/e2e/screenshots/.
Three of an SRE lead's daily jobs run here at 1440 and 390 px (the others are listed in test_daily_jobs_browser.py):
the worst of the week and why, the most-missed tool and its sessions, and comparing criteria then a mover's attempts.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, urlsplit

import httpx
import pytest

from tests.conftest import ROOT
from tests.e2e.conftest import PHONE, assert_accessible, assert_fits, open_page, running_stack, shot

SEEDED = 300
PAGE = 20  # a tool's sessions per page on the dashboard (TOOL_SESSIONS_PAGE)
ANALYTICS = "/api/v1/scoring/analytics"
# The judge is part of the criteria hash: the stack and the seeding must both use the heuristic one.
JUDGE = {"SCORING_LLM_PROVIDER": "heuristic"}
DESKTOP = {"width": 1440, "height": 900}
WIDTHS = pytest.mark.parametrize(("viewport", "width"), [(DESKTOP, "1440"), (PHONE, "390")], ids=("1440", "390"))


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    """A PostgreSQL of this module's own, shared by the stack and the seeding command."""
    from devstack.postgres import start_postgres

    data_dir = Path(tempfile.mkdtemp(prefix="scoring-insights-e2e-"))
    data_dir.chmod(0o755)  # the embedded PostgreSQL runs as its own user when we are root
    url, server = start_postgres(data_dir / "pgdata", database="insights")
    try:
        yield url
    finally:
        server.cleanup()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def seeded_stack(database: str) -> Iterator[str]:
    with running_stack(SCORING_DATABASE_URL=database, **JUDGE) as base_url:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SCORING_", "ANTHROPIC_"))}
        seeding = subprocess.run(
            [sys.executable, "-m", "devstack", "seed", "--scores", str(SEEDED)],
            cwd=ROOT,
            env=env | JUDGE | {"SCORING_DATABASE_URL": database},
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert seeding.returncode == 0, seeding.stdout + seeding.stderr
        assert f"seeded {SEEDED} completed score(s)" in seeding.stdout
        yield base_url


def _api(base_url: str, path: str, **params: str) -> Any:
    answer = httpx.get(f"{base_url}{ANALYTICS}{path}", params=params, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def test_trends_draw_the_total_and_dimensions_per_week_then_per_agent(seeded_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    weekly = _api(seeded_stack, "/trends", bucket="week")
    weeks = len({p["bucket_start"] for p in weekly["points"]})
    assert weeks >= 6
    page.goto(seeded_stack + "/analytics/trends")

    total = page.get_by_test_id("trend-total")
    expect(page.get_by_test_id("trend-summary")).to_contain_text(f"over {weeks} weeks")
    expect(total.locator("path.MuiLineChart-line")).to_have_count(4)  # mean, p10, p50, p90
    for legend in ("Mean", "p10", "Median (p50)", "p90"):
        expect(total.get_by_text(legend, exact=True)).to_be_visible()
    expect(page.get_by_test_id("trend-dimensions").locator("path.MuiLineChart-line")).to_have_count(4)
    latest_mean = weekly["points"][-1]["mean"]
    expect(total.get_by_role("img")).to_have_attribute(
        "aria-label", re.compile(rf"^Total score: Mean {latest_mean:.1f}, ")
    )
    assert_accessible(page, "the trends")

    page.get_by_role("combobox", name="Lines per").click()
    page.get_by_role("option", name="Agent").click()
    expect(page).to_have_url(re.compile(r"/analytics/trends\?.*group_by=agent"))
    expect(page.get_by_test_id("trend-summary")).to_contain_text("4 agents")
    expect(total.locator("path.MuiLineChart-line")).to_have_count(4)
    for agent in ("KubernetesAgent", "NetworkAgent", "DatabaseAgent", "SecurityAgent"):
        expect(total.get_by_text(agent, exact=True)).to_be_visible()
    shot(page, "insights-trends")
    assert_accessible(page, "the trends per agent")


@WIDTHS
def test_compare_criteria_then_a_movers_attempts(
    seeded_stack: str, browser: Any, viewport: dict[str, int], width: str
) -> None:
    """Daily job: compare the candidate criteria with the current one (scatter, matrix, movers), open the session that
    fell most and put its two attempts side by side."""
    with open_page(browser, viewport) as page:
        _compare_criteria_then_attempts(seeded_stack, page, width)


def _compare_criteria_then_attempts(seeded_stack: str, page: Any, width: str) -> None:
    from playwright.sync_api import expect

    criteria = httpx.get(f"{seeded_stack}{ANALYTICS}/criteria", timeout=10).json()
    current = next(c["criteria_hash"] for c in criteria if c["is_current"])
    candidate = next(c["criteria_hash"] for c in criteria if not c["is_current"])
    comparison = _api(seeded_stack, "/criteria-comparison", base=current, candidate=candidate)
    assert comparison["n"] == SEEDED // 3
    page.goto(seeded_stack + "/analytics/compare")

    expect(page.get_by_text(f"{comparison['n']} sessions scored under both")).to_be_visible()
    expect(page.get_by_test_id("comparison-ranks")).to_contain_text(f"Spearman's rho {comparison['spearman_rho']:.2f}")
    total_row = page.locator('[data-testid="delta-row"][data-key="total"]')
    expect(total_row).to_contain_text(f"{comparison['total']['mean_delta']:+.1f}")
    scatter = page.get_by_test_id("comparison-scatter")
    expect(scatter.get_by_role("img")).to_have_attribute(
        "aria-label", f"Scatter of {len(comparison['points'])} sessions: base total against candidate total"
    )
    expect(scatter.locator(".MuiScatterChart-marker")).not_to_have_count(0)
    cells = page.get_by_test_id("transition-cell")
    expect(cells).to_have_count(25)
    assert sum(int(text) for text in cells.all_inner_texts()) == comparison["n"]
    shot(page, f"insights-comparison-{width}")
    assert_accessible(page, f"the criteria comparison at {width} px")
    if width == "390":
        assert_fits(page, "/analytics/compare")

    mover = comparison["movers_down"][0]
    session_id = mover["session_id"]
    page.get_by_test_id("movers-down").get_by_role("link", name=session_id).click()
    expect(page).to_have_url(f"{seeded_stack}/sessions/{quote(session_id, safe='')}")
    expect(page.get_by_test_id("score-badge").first).to_be_visible()

    attempts = httpx.get(
        f"{seeded_stack}/api/v1/scoring/sessions/{quote(session_id, safe='')}/scoring", timeout=10
    ).json()["attempts"]
    assert {a["criteria_hash"] for a in attempts} == {current, candidate}
    page.get_by_role("link", name="Compare attempts side by side").click()
    compare = re.escape(f"/sessions/{quote(session_id, safe='')}/compare")
    expect(page).to_have_url(re.compile(rf"{compare}\?a=[^&]+&b=[^&]+$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Compare attempts")
    totals = page.locator('[data-testid="compare-row"][data-row="Total"]')
    shown = [totals.get_by_test_id(f"compare-{side}-value") for side in ("a", "b")]
    for cell in shown:  # a total under other criteria than the current is starred
        expect(cell).to_have_text(re.compile(r"^\d+\*?$"))
    assert sorted(int(cell.inner_text().rstrip("*")) for cell in shown) == sorted(a["total_score"] for a in attempts)
    expect(page.get_by_test_id("compare-reasoning-B")).to_be_visible()
    assert page.evaluate("window.scrollY") == 0, "compare attempts opens at the top"
    shot(page, f"insights-compare-attempts-{width}")
    assert_accessible(page, f"a mover's attempts side by side at {width} px")
    if width == "390":
        assert_fits(page, page.url.removeprefix(seeded_stack))


@WIDTHS
def test_worst_of_the_week_and_why(seeded_stack: str, browser: Any, viewport: dict[str, int], width: str) -> None:
    """Daily job: the Scores table over the last 7 days, worst first (one click each, kept in the URL), then the worst
    session's verdict (its score, breakdown and reasoning lead its page)."""
    from playwright.sync_api import expect

    with open_page(browser, viewport) as page:
        page.goto(seeded_stack + "/scores")
        expect(page.get_by_test_id("score-row").first).to_be_visible()
        page.get_by_role("button", name="Last 7 d").click()
        expect(page).to_have_url(re.compile(r"/scores\?(.*&)?range=7d"))
        with page.expect_request(lambda r: "/api/v1/scoring/scores?" in r.url and "order=asc" in r.url) as asked:
            page.get_by_role("button", name="Worst first").click()
        expect(page).to_have_url(re.compile(r"/scores\?(?=.*range=7d)(?=.*sort=total_score)(?=.*order=asc)"))
        query = dict(parse_qsl(urlsplit(asked.value.url).query))
        week_ago = datetime.now(UTC) - timedelta(days=7, minutes=2)
        assert datetime.fromisoformat(query["scored_after"].replace("Z", "+00:00")) >= week_ago, query
        answer = httpx.get(asked.value.url, timeout=30).json()
        worst = answer["items"]
        assert worst, "the seeding scored sessions in the last week"
        assert [i["total_score"] for i in worst] == sorted(i["total_score"] for i in worst)
        assert all(datetime.fromisoformat(i["scored_at"]) >= week_ago for i in worst)
        assert answer["total_items"] < SEEDED, "the week is not all of the seeding's six weeks"

        rows = page.get_by_test_id("score-row")
        expect(rows.first).to_have_attribute("data-session-id", worst[0]["session_id"])
        expect(rows.first.get_by_test_id("score-badge")).to_have_text(str(worst[0]["total_score"]))
        expect(page.get_by_test_id("scores-total")).to_contain_text(f"{answer['total_items']} ")
        shot(page, f"job-worst-of-the-week-{width}")
        assert_accessible(page, f"the week's scores, worst first, at {width} px")
        if width == "390":
            assert_fits(page, "/scores", "score-badge")

        rows.first.get_by_test_id("session-link").click()
        expect(page).to_have_url(f"{seeded_stack}/sessions/{quote(worst[0]['session_id'], safe='')}")
        total = page.get_by_test_id("total-score")
        expect(total).to_have_text(re.compile(rf"^{worst[0]['total_score']}\b"))
        expect(total).to_be_in_viewport()  # the verdict leads the page
        expect(page.get_by_test_id("breakdown-bar")).to_have_count(4)
        expect(page.get_by_role("heading", name="Reasoning")).to_be_visible()
        shot(page, f"job-worst-session-{width}")
        assert_accessible(page, f"the worst session's verdict at {width} px")


def _scores_total(page: Any) -> int:
    """The total the Scores table says matches, once it has loaded."""
    from playwright.sync_api import expect

    total = page.get_by_test_id("scores-total")
    expect(total).to_contain_text("match")
    return int(total.inner_text().split()[0])


def test_a_trend_point_opens_the_scores_of_its_week_and_agent(seeded_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(seeded_stack + "/analytics/trends?group_by=agent")
    marks = page.get_by_test_id("trend-total").locator(".MuiLineChart-mark")
    expect(marks.first).to_be_visible()
    marks.nth(3).click(force=True)  # marks of several agents may sit on one spot: whichever is on top is opened

    expect(page).to_have_url(re.compile(r"/scores\?criteria_hash=any&agent=\w+&scored_after=[\d-]+&scored_before="))
    params = dict(parse_qsl(urlsplit(page.url).query))
    weekly = _api(seeded_stack, "/trends", bucket="week", group_by="agent")
    point = next(
        p
        for p in weekly["points"]
        if p["group"] == params["agent"] and p["bucket_start"][:10] == params["scored_after"]
    )
    assert _scores_total(page) == point["count"]
    shot(page, "insights-trend-point-scores")
    assert_accessible(page, "the scores of a trend point")


def test_a_comparison_cell_and_a_scatter_point_open_their_scores(seeded_stack: str, page: Any) -> None:
    from playwright.sync_api import expect

    page.goto(seeded_stack + "/analytics/compare")
    cell = page.locator('[data-testid="transition-cell"]:has(a)').first
    expect(cell).to_be_visible()
    count = int(cell.inner_text())
    cell.get_by_role("link").click()
    expect(page).to_have_url(re.compile(r"/scores\?criteria_hash=[0-9a-f]{64}&band=\w+&compared_to=[0-9a-f]{64}"))
    assert _scores_total(page) == count
    expect(page.get_by_test_id("chart-filters")).to_contain_text("under")
    assert_accessible(page, "the scores of a comparison cell")

    page.goto(seeded_stack + "/analytics/compare")
    page.get_by_test_id("comparison-scatter").locator(".MuiScatterChart-marker").first.click(force=True)
    expect(page).to_have_url(re.compile(r"/scores\?criteria_hash=any&session_id=[^&]+&latest_only=false$"))
    expect(page.get_by_test_id("score-row")).to_have_count(2)  # the base's and the candidate's score
    shot(page, "insights-scatter-point-scores")


@WIDTHS
def test_most_missed_tool_and_its_sessions_with_rationale(
    seeded_stack: str, browser: Any, viewport: dict[str, int], width: str
) -> None:
    """Daily job: the tools the judge said were missing, most missed first, then that tool's sessions and why."""
    with open_page(browser, viewport) as page:
        _most_missed_tool(seeded_stack, page, width)


def _most_missed_tool(seeded_stack: str, page: Any, width: str) -> None:
    from playwright.sync_api import expect

    report = _api(seeded_stack, "/missing-tools")
    assert report["items"]
    page.goto(seeded_stack + "/analytics/missing-tools")

    rows = page.get_by_test_id("missing-tool-row")
    expect(rows).to_have_count(len(report["items"]))
    expect(page.get_by_test_id("missing-tool-count")).to_have_text([str(t["count"]) for t in report["items"]])
    # The per-tool trend comes with tools-canonical's API change: a sparkline for every tool that has one.
    with_trend = [t for t in report["items"] if t.get("trend")]
    expect(page.get_by_test_id("tool-sparkline")).to_have_count(len(with_trend))
    for tool in with_trend:
        expect(page.get_by_role("img", name=f"{tool['tool_name']} per period:", exact=False)).to_have_count(1)
    assert [t["count"] for t in report["items"]] == sorted((t["count"] for t in report["items"]), reverse=True)
    shot(page, f"insights-missing-tools-{width}")
    assert_accessible(page, f"the missing tools at {width} px")
    if width == "390":
        assert_fits(page, "/analytics/missing-tools")

    top = report["items"][0]
    rows.first.get_by_role("link", name=top["tool_name"]).click()
    expect(page).to_have_url(f"{seeded_stack}/analytics/missing-tools/{quote(top['tool_name'])}")
    sessions = _api(
        seeded_stack, f"/missing-tools/{quote(top['tool_name'])}/sessions", criteria_hash="any", limit=str(PAGE)
    )
    assert sessions["next_cursor"], "the seeded tool has more sessions than a page"
    expect(page.get_by_role("button", name="More sessions")).to_be_visible()
    cards = page.get_by_test_id("tool-session")
    expect(cards).to_have_count(len(sessions["items"]))
    expect(page.get_by_test_id("tool-rationale").first).to_have_text(sessions["items"][0]["rationale"])
    shot(page, f"insights-tool-sessions-{width}")
    assert_accessible(page, f"a missing tool's sessions at {width} px")
    if width == "390":
        assert_fits(page, f"/analytics/missing-tools/{quote(top['tool_name'])}")

    first = sessions["items"][0]["session_id"]
    cards.first.get_by_role("link", name=first).click()
    expect(page).to_have_url(f"{seeded_stack}/sessions/{quote(first, safe='')}")


def test_every_insights_view_fits_a_phone(seeded_stack: str, phone: Any) -> None:
    from playwright.sync_api import expect

    tool = _api(seeded_stack, "/missing-tools")["items"][0]["tool_name"]
    views = {
        "/analytics/trends?group_by=agent": "trend-total",
        "/analytics/compare": "comparison-scatter",
        "/analytics/missing-tools": "missing-tool-row",
        f"/analytics/missing-tools/{quote(tool)}": "tool-session",
    }
    for i, (path, ready) in enumerate(views.items(), start=1):
        phone.goto(seeded_stack + path)
        expect(phone.get_by_test_id(ready).first).to_be_visible()
        assert_fits(phone, path)
        shot(phone, f"insights-phone-{i}")


def test_every_page_passes_axe_at_1440_and_390_px(seeded_stack: str, browser: Any) -> None:
    from playwright.sync_api import expect

    scored = httpx.get(f"{seeded_stack}/api/v1/scoring/scores", params={"limit": 1}, timeout=10).json()["items"][0]
    session_id = scored["session_id"]
    labelled = httpx.put(
        f"{seeded_stack}/api/v1/scoring/sessions/{quote(session_id, safe='')}/labels",
        json={"total_score": 70},
        timeout=10,
    )
    assert labelled.status_code == 200, labelled.text
    # the seeded candidate criteria scored 100 sessions the current one scored too: two attempts to compare
    candidate = next(c["criteria_hash"] for c in _api(seeded_stack, "/criteria") if not c["is_current"])
    twice = httpx.get(
        f"{seeded_stack}/api/v1/scoring/scores", params={"limit": 1, "criteria_hash": candidate}, timeout=10
    ).json()["items"][0]["session_id"]
    views = {
        "/": "session-row",
        "/scores": "score-row",
        f"/scores?criteria_hash=any&latest_only=false&session_id={quote(session_id, safe='')}": "score-row",
        "/analytics": "band-bar",
        "/analytics/trends?scored_after=2026-01-01": "trend-total",
        "/analytics/compare": "comparison-scatter",
        "/analytics/missing-tools": "missing-tool-row",
        "/agreement": "agreement-point",
        "/agreement/label": "queue-total",
        "/runs": "app-ready",
        "/runs/new": "app-ready",
        "/upload": "upload-drop",
        f"/sessions/{quote(twice, safe='')}/compare": "compare-reasoning-B",
        f"/sessions/{quote(session_id, safe='')}": "total-score",
        "/sessions/no-such-session": "session-not-found",
    }
    for width, viewport in (("1440", {"width": 1440, "height": 900}), ("390", PHONE)):
        with open_page(browser, viewport) as page:
            for path, ready in views.items():
                page.goto(seeded_stack + path)
                if ready == "app-ready":
                    expect(page.get_by_role("heading", level=1)).to_be_visible()
                else:
                    expect(page.get_by_test_id(ready).first).to_be_visible()
                assert_accessible(page, f"{path} at {width} px")
                if width == "390":
                    assert_fits(page, path)
