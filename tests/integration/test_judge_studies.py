"""Repeatability and robustness studies and ensemble scoring, with the real SDK against the fake Messages API
returning scripted verdicts (real PostgreSQL)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from session_scoring.services.quality import INJECTION
from tests.conftest import FAILING_TOOLS_ID, ROOT, SHALLOW_ID, THOROUGH_ID, Stack
from tests.support.fake_claude import reply_verdicts, scripted_verdict


def test_repeatability_reports_the_spread_of_the_scripted_verdicts(claude_stack: Stack, fake_claude: Any) -> None:
    fake_claude.min_cache_tokens = 100  # the sample rubric is short: let the fake cache it
    fake_claude.script(
        *reply_verdicts(
            scripted_verdict((20, 20, 20, 20), ("a", "b")),  # 80 good
            scripted_verdict((20, 20, 20, 10), ("a",)),  # 70 adequate
            scripted_verdict((20, 20, 20, 20), ("a", "b")),  # 80 good
            scripted_verdict((10, 10, 10, 10)),  # 40 failed
            scripted_verdict((10, 10, 10, 10)),
            scripted_verdict((10, 10, 10, 10)),
        )
    )
    service = claude_stack.container.judge_quality
    report = service.repeatability([THOROUGH_ID, SHALLOW_ID], repeats=3)

    first, second = report.sessions
    assert first.totals == [80, 70, 80]
    assert first.total_stdev == pytest.approx(5.7735, abs=1e-4)  # sample sd of 80, 70, 80
    assert {d.dimension: d.stdev for d in first.dimensions}["synthesis_quality"] == pytest.approx(5.7735, abs=1e-4)
    assert first.bands == ["good", "adequate", "good"]
    assert first.band_flip_share == pytest.approx(1 / 3)
    assert first.missing_tools_jaccard == pytest.approx((0.5 + 1 + 0.5) / 3)  # {a,b}/{a}, {a,b}/{a,b}, {a}/{a,b}
    assert second.total_stdev == 0
    assert second.missing_tools_jaccard == 1.0  # three empty sets agree
    assert report.total_stdev == pytest.approx((5.7735**2 / 2) ** 0.5, abs=1e-4)
    assert report.band_flip_rate == 0.5
    # The same request every time: samples 2 and 3 read the prefix the first wrote.
    assert first.cache_read_tokens[0] == 0
    assert all(tokens > 0 for tokens in first.cache_read_tokens[1:])
    assert fake_claude.requests[0] == fake_claude.requests[1] == fake_claude.requests[2]

    samples = claude_stack.container.score_repository.samples("repeatability", report.study)
    assert [s.total_score for s in samples] == [80, 70, 80, 40, 40, 40]
    assert samples[1].cache_read_tokens == first.cache_read_tokens[1]


def test_samples_are_never_the_score_never_counted_and_never_block_a_real_score(
    claude_stack: Stack, fake_claude: Any
) -> None:
    fake_claude.script(*reply_verdicts(scripted_verdict((5, 5, 5, 5)), scripted_verdict((5, 5, 5, 5))))
    claude_stack.container.judge_quality.repeatability([THOROUGH_ID], repeats=2)

    assert claude_stack.score(THOROUGH_ID).status_code == 404  # no real score yet: samples are not one
    listed = claude_stack.client.get("/api/v1/scoring/sessions").json()["items"]
    assert next(item for item in listed if item["session_id"] == THOROUGH_ID)["score"] is None
    distribution = claude_stack.client.get("/api/v1/scoring/analytics/score-distribution").json()
    assert distribution["total"] == 0
    criteria = claude_stack.client.get("/api/v1/scoring/analytics/criteria").json()
    assert all(c["completed_sessions"] == 0 for c in criteria)

    dry_run = {"selection": {"which": "unscored", "session_ids": [THOROUGH_ID]}, "max_sessions": 5, "dry_run": True}
    estimate = claude_stack.client.post("/api/v1/scoring/runs", json=dry_run)
    assert estimate.status_code == 200, estimate.text
    assert estimate.json()["sessions_selected"] == 1  # a run of unscored sessions still selects it

    queued = claude_stack.request_score(THOROUGH_ID)
    assert queued.status_code == 202, queued.text
    claude_stack.poller.drain()
    score = claude_stack.score(THOROUGH_ID).json()
    assert (score["status"], score["total_score"]) == ("completed", 67)  # the fake's default verdict
    assert len(claude_stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}/scores").json()) == 1


def test_robustness_reports_the_scripted_shift_and_the_injection_stays_inside_the_fences(
    claude_stack: Stack, fake_claude: Any
) -> None:
    fake_claude.script(
        *reply_verdicts(
            scripted_verdict((15, 15, 15, 15)),  # the session as it is: 60
            scripted_verdict((20, 20, 20, 15)),  # with the injection: 75
        )
    )
    report = claude_stack.container.judge_quality.robustness([FAILING_TOOLS_ID])

    (result,) = report.sessions
    assert (result.original_total, result.injected_total, result.shift) == (60, 75, 15)
    assert result.injected_into.startswith("tool call ")
    assert report.mean_shift == 15
    original, injected = (request["messages"][0]["content"] for request in fake_claude.requests)
    assert INJECTION not in original
    assert INJECTION not in "".join(block["text"] for block in fake_claude.requests[1]["system"])
    nonce = re.search(r"<<<SESSION_CONVERSATION (\S+)>>>", injected)
    assert nonce is not None
    start = injected.index(f"<<<SESSION_CONVERSATION {nonce.group(1)}>>>")
    end = injected.index(f"<<<END SESSION_CONVERSATION {nonce.group(1)}>>>")
    assert start < injected.index(INJECTION) < end
    assert len(claude_stack.container.score_repository.samples("robustness", report.study)) == 2


@pytest.fixture
def ensemble_stack(make_stack: Any, fake_claude: Any) -> Stack:
    result: Stack = make_stack(
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="5",
        SCORING_SAMPLES="3",
        SCORING_CONFIG_PATH=str(ROOT / "config" / "scoring_config.yaml"),
    )
    return result


def test_ensemble_stores_the_median_with_its_spread(ensemble_stack: Stack, fake_claude: Any) -> None:
    fake_claude.script(
        *reply_verdicts(
            scripted_verdict((10, 20, 5, 25), ("a",)),
            scripted_verdict((20, 10, 15, 5), ("b",)),
            scripted_verdict((15, 15, 10, 20), ("c",)),
        )
    )
    ensemble_stack.request_score(THOROUGH_ID)
    ensemble_stack.poller.drain()
    score = ensemble_stack.score(THOROUGH_ID).json()

    assert score["status"] == "completed", score["error_message"]
    assert score["total_score"] == 60
    assert score["score_breakdown"] == {
        "logical_flow": 15,
        "consistency": 15,
        "tool_relevance": 10,
        "synthesis_quality": 20,
    }
    assert [t["tool_name"] for t in score["missing_tools"]] == ["c"]
    assert score["score_spread"]["totals"] == [60, 50, 60]
    assert score["score_spread"]["total"] == {"min": 50, "max": 60, "stdev": 5.774}
    assert len(fake_claude.requests) == 3
    # The three calls' usage, summed: the first wrote the prefix to the cache, samples 2 and 3 read it.
    assert score["judge"]["cache_read_tokens"] == 2 * score["judge"]["cache_write_tokens"] > 0
    assert ensemble_stack.container.config.criteria_content["scoring"]["samples"] == 3
