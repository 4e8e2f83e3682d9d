"""Time to normalise (tarsy-bot DetailedSession -> Session) and render (Session -> judge prompt) a session of about
25k and about 1M tokens. Prints the figures; asserts only that the work was done."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import pytest

from session_scoring.configuration.criteria import load_scoring_config
from session_scoring.configuration.settings import Settings
from session_scoring.judge.rendering import build_prompt, estimate_tokens, render_conversation
from session_scoring.sources.documents import parse_session_document
from tests.benchmarks.conftest import report
from tests.support.tarsy_fixtures import REACT_ID, detailed

CONFIG = Path(__file__).resolve().parents[2] / "config" / "scoring_config.yaml"


def _session_with(extra_calls: int, log_lines: int) -> dict[str, Any]:
    """The ReAct fixture with ``extra_calls`` more tool calls in its first stage, each with a log of ``log_lines``."""
    document = detailed(REACT_ID)
    stage = document["stages"][0]
    calls = [e for e in stage["mcp_communications"] if e["details"]["communication_type"] == "tool_call"]
    conversation = stage["llm_interactions"][-1]["details"]["conversation"]["messages"]
    body = "".join(
        f"{n:04d} Warning BackOff pod/checkout-api Back-off restarting failed container\n" for n in range(log_lines)
    )
    for index in range(extra_calls):
        event = copy.deepcopy(calls[index % len(calls)])
        event["timestamp_us"] = calls[-1]["timestamp_us"] + 1 + index
        event["details"]["tool_arguments"] = {"namespace": "checkout", "attempt": index}
        event["details"]["tool_result"] = {"result": body}
        event["details"]["success"] = True
        stage["mcp_communications"].append(event)
        name = f"{event['details']['server_name']}.{event['details']['tool_name']}"
        conversation.insert(
            -1,
            {"role": "assistant", "content": f"Thought: look again ({index})\nAction: {name}\nAction Input: {{}}"},
        )
        conversation.insert(-1, {"role": "user", "content": f"Observation: {name}: {json.dumps({'result': body})}"})
    return document


def _session_of(target_tokens: int, log_lines: int) -> dict[str, Any]:
    """A session whose transcript holds about ``target_tokens`` estimated tokens (calibrated on a small one)."""

    def transcript_tokens(extra_calls: int) -> int:
        return estimate_tokens(render_conversation(parse_session_document(_session_with(extra_calls, log_lines), "b")))

    base, probe = transcript_tokens(0), transcript_tokens(4)
    per_call = (probe - base) / 4
    return _session_with(max(0, round((target_tokens - base) / per_call)), log_lines)


@pytest.mark.benchmark
@pytest.mark.parametrize(("target_tokens", "log_lines"), [(25_000, 40), (1_000_000, 500)])
def test_normalise_and_render(target_tokens: int, log_lines: int) -> None:
    config = load_scoring_config(CONFIG, {"SCORING_LLM_PROVIDER": "heuristic"})
    budget = Settings().judge_input_budget
    document = _session_of(target_tokens, log_lines)
    raw = json.dumps(document)

    started = time.perf_counter()
    session = parse_session_document(json.loads(raw), "bench")
    normalised = time.perf_counter()
    transcript = render_conversation(session)
    rendered = time.perf_counter()
    prompt = build_prompt(config, session, budget_tokens=budget)
    built = time.perf_counter()

    report(
        f"\n~{target_tokens:>9,} tokens: document {len(raw) / 1e6:.1f} MB, {len(session.tool_calls)} tool calls, "
        f"transcript ~{estimate_tokens(transcript):,} tokens | normalise {1000 * (normalised - started):.0f} ms, "
        f"render {1000 * (rendered - normalised):.0f} ms, prompt within budget {budget:,} "
        f"{1000 * (built - rendered):.0f} ms (compacted={prompt.compacted}, {prompt.estimated_tokens:,} tokens)"
    )
    assert prompt.estimated_tokens <= budget
