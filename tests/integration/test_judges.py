"""Every judge a team runs, end to end: the real scorer handler (fed by the queue poller) on moto's SQS and real
PostgreSQL, each judge through its real SDK (openai, google-genai, anthropic's Vertex client) against a local fake
server over HTTP. TARSy's provider names, a TARSy Go providers file, juries, self-preference, and each provider's
faults (a rate limit defers without using a delivery; a breaker opens per provider)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, SHALLOW_ID, THOROUGH_ID, Stack
from tests.support.fake_claude import FakeClaude, reply_error
from tests.support.fake_judges import FakeGemini, FakeOpenAI
from tests.support.fake_tarsy import FakeTarsy
from tests.support.tarsy_fixtures import REACT_ID, detailed


@pytest.fixture
def fake_openai(loopback: Callable[[type[FakeOpenAI]], FakeOpenAI]) -> FakeOpenAI:
    return loopback(FakeOpenAI)


@pytest.fixture
def fake_gemini(loopback: Callable[[type[FakeGemini]], FakeGemini]) -> FakeGemini:
    return loopback(FakeGemini)


@pytest.fixture
def judge_env(fake_openai: FakeOpenAI, fake_gemini: FakeGemini, fake_claude: FakeClaude) -> dict[str, str]:
    """Keys and endpoints of all three fakes; the judge is chosen by each test."""
    return {
        "GOOGLE_API_KEY": "test-google-key",
        "OPENAI_API_KEY": "test-openai-key",
        "ANTHROPIC_API_KEY": "test-key-not-secret",
        "GOOGLE_GEMINI_BASE_URL": fake_gemini.base_url,
        "OPENAI_BASE_URL": fake_openai.api_url,
        "ANTHROPIC_BASE_URL": fake_claude.base_url,
        "JUDGE_TIMEOUT_SECONDS": "5",
        "SCORING_BREAKER_CACHE_SECONDS": "0",
    }


def scoring_config_with(tmp_path: Path, scoring_lines: str) -> str:
    """The shipped configuration with ``scoring_lines`` added to its ``scoring:`` block."""
    shipped = (ROOT / "config" / "scoring_config.yaml").read_text()
    path = tmp_path / "scoring_config.yaml"
    path.write_text(shipped.replace("scoring:\n", "scoring:\n" + scoring_lines, 1))
    return str(path)


def completed(stack: Stack, session_id: str) -> dict[str, Any]:
    stack.request_score(session_id)
    stack.poller.drain()
    score: dict[str, Any] = stack.score(session_id).json()
    return score


def test_google_default_scores_with_gemini_and_stores_tokens_and_cost(
    make_stack: Any, judge_env: dict[str, str], fake_gemini: FakeGemini
) -> None:
    stack = make_stack(**judge_env, SCORING_LLM_PROVIDER="google-default")

    score = completed(stack, THOROUGH_ID)

    assert score["status"] == "completed"
    assert score["judge"]["provider"] == "google"
    assert score["judge"]["model"] == "gemini-2.5-pro"  # tarsy-bot's model for google-default
    assert score["judge"]["input_tokens"] == 1000  # 1,500 prompt tokens less the 500 cached
    assert score["judge"]["cache_read_tokens"] == 500
    assert score["judge"]["output_tokens"] == 450  # answer and thinking tokens, both billed as output
    # pricing.gemini-2.5-pro: (1000 * 1.25 + 450 * 10 + 500 * 0.31) / 1e6
    assert score["judge"]["estimated_cost_usd"] == pytest.approx(0.005905)
    (path,) = fake_gemini.paths
    assert path.endswith("/models/gemini-2.5-pro:generateContent")
    assert fake_gemini.request_headers[0]["x-goog-api-key"] == "test-google-key"
    config = fake_gemini.requests[0]["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"]["properties"]["score_breakdown"]["type"] == "object"


def test_a_providers_file_entry_with_a_base_url_scores_through_that_server(
    make_stack: Any, judge_env: dict[str, str], fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    providers = tmp_path / "llm-providers.yaml"
    providers.write_text(
        "llm_providers:\n"
        "  in-house-gpt:\n"
        "    type: openai\n"
        "    model: gpt-5.2\n"
        "    api_key_env: IN_HOUSE_KEY\n"
        "    base_url: '{{.IN_HOUSE_URL}}'\n"
        "    max_tool_result_tokens: 150000\n"
    )
    env = {k: v for k, v in judge_env.items() if k != "OPENAI_BASE_URL"}
    stack = make_stack(
        **env,
        SCORING_LLM_PROVIDERS_FILE=str(providers),
        SCORING_LLM_PROVIDER="in-house-gpt",
        IN_HOUSE_KEY="in-house-secret",
        IN_HOUSE_URL=fake_openai.api_url,
    )

    score = completed(stack, THOROUGH_ID)

    assert score["status"] == "completed"
    assert (score["judge"]["provider"], score["judge"]["model"]) == ("openai", "gpt-5.2")
    assert fake_openai.paths == ["/v1/chat/completions"]
    assert fake_openai.request_headers[0]["authorization"] == "Bearer in-house-secret"
    request = fake_openai.requests[0]
    assert request["model"] == "gpt-5.2"
    assert request["response_format"]["type"] == "json_schema"
    assert score["judge"]["estimated_cost_usd"] is None  # gpt-5.2 has no price in the table


def test_an_unknown_provider_name_lists_the_names_it_knows(
    make_stack: Any, judge_env: dict[str, str], tmp_path: Path
) -> None:
    providers = tmp_path / "llm-providers.yaml"
    providers.write_text("llm_providers:\n  team-gemini:\n    type: google\n    model: gemini-3-flash\n")
    from session_scoring.errors import ConfigurationError

    stack = make_stack(**judge_env, SCORING_LLM_PROVIDERS_FILE=str(providers), SCORING_LLM_PROVIDER="gemini-prod")

    with pytest.raises(ConfigurationError) as raised:
        stack.container.config  # noqa: B018 - loading the configuration is what refuses the name

    message = str(raised.value)
    assert "scoring.llm_provider (line 16): unknown llm_provider 'gemini-prod'" in message
    assert "google-default, openai-default, xai-default, anthropic-default, vertexai-default, team-gemini" in message


def test_a_vertexai_entry_with_a_claude_model_scores_through_the_vertex_client(
    make_stack: Any, judge_env: dict[str, str], fake_claude: FakeClaude, tmp_path: Path
) -> None:
    providers = tmp_path / "llm-providers.yaml"
    providers.write_text(
        "llm_providers:\n"
        "  claude-on-vertex:\n"
        "    type: vertexai\n"
        "    model: claude-sonnet-4-5@20250929\n"
        "    project_env: TEAM_PROJECT\n"
        "    location_env: TEAM_LOCATION\n"
    )
    stack = make_stack(
        **judge_env,
        SCORING_LLM_PROVIDERS_FILE=str(providers),
        SCORING_LLM_PROVIDER="claude-on-vertex",
        TEAM_PROJECT="sre-judges",
        TEAM_LOCATION="us-east5",
        ANTHROPIC_VERTEX_BASE_URL=fake_claude.base_url,
        SCORING_VERTEX_ACCESS_TOKEN="test-access-token",
    )

    score = completed(stack, THOROUGH_ID)

    assert score["status"] == "completed"
    assert (score["judge"]["provider"], score["judge"]["model"]) == ("vertex", "claude-sonnet-4-5@20250929")
    (path,) = fake_claude.paths
    assert path == (
        "/projects/sre-judges/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:rawPredict"
    )
    assert fake_claude.request_headers[0]["authorization"] == "Bearer test-access-token"
    assert "model" not in fake_claude.requests[0]  # Vertex AI names the model in the path
    assert score["judge"]["estimated_cost_usd"] is not None


JURY = "  jury: {judges: [anthropic, google-default, openai-default]}\n"


def _scripted(total: tuple[int, int, int, int]) -> dict[str, Any]:
    from tests.support.fake_claude import scripted_verdict

    return scripted_verdict(total)


def test_a_jury_of_three_stores_the_median_and_keeps_each_jurors_total(
    make_stack: Any,
    judge_env: dict[str, str],
    fake_claude: FakeClaude,
    fake_gemini: FakeGemini,
    fake_openai: FakeOpenAI,
    tmp_path: Path,
) -> None:
    from tests.support.fake_claude import reply_verdict

    fake_claude.script(reply_verdict(_scripted((10, 10, 10, 10))))  # 40
    fake_gemini.script(fake_gemini.verdict(_scripted((20, 20, 20, 20))))  # 80
    fake_openai.script(fake_openai.verdict(_scripted((15, 15, 15, 15))))  # 60
    stack = make_stack(**judge_env, SCORING_CONFIG_PATH=scoring_config_with(tmp_path, JURY))

    score = completed(stack, THOROUGH_ID)

    assert score["status"] == "completed"
    assert score["total_score"] == 60
    assert score["score_breakdown"] == {
        "logical_flow": 15,
        "consistency": 15,
        "tool_relevance": 15,
        "synthesis_quality": 15,
    }
    assert score["judge"]["provider"] == "jury"
    jurors = {j["provider"]: j for j in score["score_spread"]["jurors"]}
    assert {p: j["total"] for p, j in jurors.items()} == {"anthropic": 40, "google": 80, "openai": 60}
    assert score["score_spread"]["total"] == {"min": 40, "max": 80, "stdev": 20.0}
    # Each juror priced at its own model's price, summed.
    assert score["judge"]["estimated_cost_usd"] > 0
    # The score's GET carries the jury as the session page shows it: each juror's total, the spread, the quorum.
    jury = score["jury"]
    assert [(j["provider"], j["model"], j["name"], j["total"], j["failed"]) for j in jury["jurors"]] == [
        ("anthropic", "claude-sonnet-4-6", "anthropic", 40, None),
        ("google", "gemini-2.5-pro", "google-default", 80, None),
        ("openai", "gpt-5", "openai-default", 60, None),
    ]
    assert (jury["quorum"], jury["verdicts"]) == (2, 3)
    assert jury["total_spread"] == {"min": 40, "max": 80, "stdev": 20.0}
    page = stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}/scoring").json()  # the session page's read
    assert page["current"]["jury"] == jury


def test_a_juror_failing_every_retry_leaves_the_score_to_the_other_two_and_is_named(
    make_stack: Any, judge_env: dict[str, str], fake_openai: FakeOpenAI, tmp_path: Path
) -> None:
    fake_openai.default = fake_openai.error(500, "the server had an error")
    stack = make_stack(**judge_env, SCORING_CONFIG_PATH=scoring_config_with(tmp_path, JURY))

    score = completed(stack, THOROUGH_ID)

    assert score["status"] == "completed"
    assert score["total_score"] == 67  # the fakes' default verdicts
    assert len(fake_openai.requests) == 4  # the call and its 3 retries
    failed = {j["provider"]: j["failed"] for j in score["score_spread"]["jurors"]}
    assert failed["anthropic"] is None
    assert failed["google"] is None
    assert "the judge answered 500: the server had an error" in failed["openai"]
    assert score["score_spread"]["quorum"] == 2
    (openai,) = [j for j in score["jury"]["jurors"] if j["provider"] == "openai"]
    assert openai["total"] is None
    assert "the judge answered 500: the server had an error" in openai["failed"]
    assert score["jury"]["verdicts"] == 2


def test_two_jurors_failing_fail_the_attempt_with_both_reasons(
    make_stack: Any, judge_env: dict[str, str], fake_openai: FakeOpenAI, fake_gemini: FakeGemini, tmp_path: Path
) -> None:
    fake_openai.default = fake_openai.error(400, "model gpt-5 does not exist")
    fake_gemini.default = fake_gemini.error(403, "API key not valid")
    stack = make_stack(**judge_env, SCORING_CONFIG_PATH=scoring_config_with(tmp_path, JURY))

    score = completed(stack, THOROUGH_ID)

    assert score["status"] == "failed"
    message = score["error_message"]
    assert "the jury has 1 of the 2 verdicts its quorum needs" in message
    assert "openai:gpt-5: the judge rejected the request (400: model gpt-5 does not exist)" in message
    assert "google:gemini-2.5-pro: the judge refused our credentials (403: API key not valid)" in message


def test_the_jury_make_up_is_part_of_the_criteria_hash(
    make_stack: Any, judge_env: dict[str, str], tmp_path: Path
) -> None:
    plain = make_stack(**judge_env, SCORING_LLM_PROVIDER="anthropic").container.config.criteria_hash
    jury = make_stack(**judge_env, SCORING_CONFIG_PATH=scoring_config_with(tmp_path, JURY)).container.config
    other = scoring_config_with(tmp_path, "  jury: {judges: [anthropic, google-default]}\n")
    smaller = make_stack(**judge_env, SCORING_CONFIG_PATH=other).container.config

    assert len({plain, jury.criteria_hash, smaller.criteria_hash}) == 3
    assert jury.criteria_content["scoring"]["jury"]["judges"][1] == {"provider": "google", "model": "gemini-2.5-pro"}


@pytest.fixture
def tarsy_judge_env(fake_tarsy: FakeTarsy, judge_env: dict[str, str]) -> dict[str, str]:
    """A TARSy session recorded with gemini-2.5-pro (the fixture's LLM interactions), read from the fake TARSy."""
    fake_tarsy.add_detailed(detailed(REACT_ID))
    return {
        **judge_env,
        "SCORING_SESSION_SOURCE": "tarsy",
        "SCORING_TARSY_URL": fake_tarsy.base_url,
        "SCORING_TARSY_TOKEN": "tarsy-test-token",
    }


def test_a_gemini_judge_of_a_gemini_agent_says_so(make_stack: Any, tarsy_judge_env: dict[str, str]) -> None:
    stack = make_stack(**tarsy_judge_env, SCORING_LLM_PROVIDER="google-default")

    score = completed(stack, REACT_ID)

    assert score["status"] == "completed"
    assert score["score_spread"]["self_preference"] == {
        "judge_model": "gemini-2.5-pro",
        "family": "gemini",
        "agent_models": ["gemini-2.5-pro"],
    }


def test_a_claude_judge_of_a_gemini_agent_says_nothing(make_stack: Any, tarsy_judge_env: dict[str, str]) -> None:
    stack = make_stack(**tarsy_judge_env, SCORING_LLM_PROVIDER="anthropic")

    score = completed(stack, REACT_ID)

    assert score["status"] == "completed"
    assert score["score_spread"] is None


def test_a_jury_told_to_leave_out_same_family_jurors_leaves_out_gemini(
    make_stack: Any, tarsy_judge_env: dict[str, str], fake_gemini: FakeGemini, tmp_path: Path
) -> None:
    lines = "  jury: {judges: [anthropic, google-default, openai-default], exclude_same_family: true}\n"
    stack = make_stack(**tarsy_judge_env, SCORING_CONFIG_PATH=scoring_config_with(tmp_path, lines))

    score = completed(stack, REACT_ID)

    assert score["status"] == "completed"
    assert fake_gemini.requests == []
    gemini = next(j for j in score["score_spread"]["jurors"] if j["provider"] == "google")
    assert gemini["total"] is None
    assert gemini["excluded"] == "left out: gemini-2.5-pro is of the agent's model family (gemini)"
    assert gemini["same_family_as_agent"] is True
    assert score["score_spread"]["samples"] == 2


@pytest.mark.parametrize("provider", ["google-default", "openai-default"])
def test_a_rate_limit_with_retry_after_defers_without_using_a_delivery(
    make_stack: Any, judge_env: dict[str, str], fake_gemini: FakeGemini, fake_openai: FakeOpenAI, provider: str
) -> None:
    fake = fake_gemini if provider == "google-default" else fake_openai
    fake.script(fake.error(429, "quota exceeded", {"retry-after": "40"}))
    stack = make_stack(**judge_env, SCORING_LLM_PROVIDER=provider)
    stack.request_score(THOROUGH_ID)

    assert stack.poller.drain() == 1

    waiting = stack.score(THOROUGH_ID).json()
    assert waiting["status"] == "pending"
    assert "will retry in about 40 s (deferral 1 of 20, no delivery used)" in waiting["error_message"]
    assert len(fake.requests) == 1


def _circuits(stack: Stack) -> dict[str, str]:
    from tests.integration.faults.conftest import breaker_items

    return {item["id"]["S"]: item["state"]["S"] for item in breaker_items(stack) if "state" in item}


@pytest.fixture(autouse=True)
def _fresh_breaker_counters() -> None:
    """Powertools keeps per-circuit counters process-wide; each test starts from zero."""
    from aws_lambda_powertools.utilities.circuit_breaker import base

    for counters in (base._LOCAL_FAILURES, base._LOCAL_SUCCESSES, base._LAST_OBSERVED_STATE):
        counters.clear()


def test_an_outage_of_one_jurors_provider_opens_only_its_circuit(
    make_stack: Any, judge_env: dict[str, str], fake_gemini: FakeGemini, tmp_path: Path
) -> None:
    fake_gemini.default = fake_gemini.error(503, "The model is overloaded")
    stack = make_stack(**judge_env, SCORING_CONFIG_PATH=scoring_config_with(tmp_path, JURY), JUDGE_MAX_RETRIES="4")

    first = completed(stack, THOROUGH_ID)
    calls = len(fake_gemini.requests)
    second = completed(stack, SHALLOW_ID)

    assert calls == 5  # five consecutive failures open the circuit
    assert _circuits(stack) == {"judge:google:gemini-2.5-pro": "OPEN"}
    assert len(fake_gemini.requests) == calls  # the open circuit keeps the second score from calling Gemini
    assert first["status"] == second["status"] == "completed"
    gemini = next(j for j in second["score_spread"]["jurors"] if j["provider"] == "google")
    assert re.search(r"circuit 'judge:google:gemini-2.5-pro' is open", gemini["failed"])


def test_a_single_judges_breaker_is_keyed_by_its_provider_and_model(
    make_stack: Any, judge_env: dict[str, str], fake_openai: FakeOpenAI
) -> None:
    fake_openai.default = fake_openai.error(503, "overloaded")
    stack = make_stack(**judge_env, SCORING_LLM_PROVIDER="openai-default", JUDGE_MAX_RETRIES="4")

    completed(stack, THOROUGH_ID)

    assert _circuits(stack) == {"judge:openai:gpt-5": "OPEN"}


def test_an_anthropic_outage_in_a_jury_counts_for_anthropic_only(
    make_stack: Any, judge_env: dict[str, str], fake_claude: FakeClaude, tmp_path: Path
) -> None:
    fake_claude.default = reply_error(529, "overloaded_error", "Overloaded")
    stack = make_stack(**judge_env, SCORING_CONFIG_PATH=scoring_config_with(tmp_path, JURY), JUDGE_MAX_RETRIES="4")

    score = completed(stack, THOROUGH_ID)

    assert score["status"] == "completed"
    assert _circuits(stack) == {"judge:anthropic:claude-sonnet-4-6": "OPEN"}


def test_a_jurys_dry_run_estimate_is_the_sum_of_its_jurors_calls(
    make_stack: Any, judge_env: dict[str, str], tmp_path: Path
) -> None:
    runs = "/api/v1/scoring/runs"
    body = {"selection": {"which": "all"}, "max_sessions": 10, "dry_run": True}
    alone = {}
    for name, model in (
        ("anthropic", "claude-sonnet-4-6"),
        ("google-default", "gemini-2.5-pro"),
        ("openai-default", "gpt-5"),
    ):
        answer = make_stack(**judge_env, SCORING_LLM_PROVIDER=name).client.post(runs, json=body)
        assert answer.status_code == 200, answer.text
        alone[model] = answer.json()["estimate"]["estimated_cost_usd"]
    jury = make_stack(**judge_env, SCORING_CONFIG_PATH=scoring_config_with(tmp_path, JURY))

    estimate = jury.client.post(runs, json=body).json()["estimate"]

    assert estimate["estimated_cost_usd"] == pytest.approx(sum(alone.values()), abs=1e-5)
    assert (
        "pricing.claude-sonnet-4-6 + pricing.gemini-2.5-pro + pricing.gpt-5 (each juror's call, summed)"
        in (estimate["method"])
    )


@pytest.mark.parametrize("provider", ["vertex", "bedrock"])
def test_a_batch_mode_run_of_a_provider_without_a_batch_api_is_refused_naming_those_with_one(
    make_stack: Any, judge_env: dict[str, str], provider: str
) -> None:
    stack = make_stack(**judge_env, SCORING_LLM_PROVIDER=provider, GOOGLE_CLOUD_PROJECT="p", GOOGLE_CLOUD_LOCATION="l")

    answer = stack.client.post("/api/v1/scoring/runs", json={"mode": "batch", "max_sessions": 10})

    assert answer.status_code == 400
    assert f"the judge provider is '{provider}'" in answer.text
    assert "the providers with one here: anthropic, openai, google" in answer.text


def test_a_batch_mode_run_of_gemini_on_vertex_ai_is_refused(
    make_stack: Any, judge_env: dict[str, str], tmp_path: Path
) -> None:
    providers = tmp_path / "llm-providers.yaml"
    providers.write_text(
        "llm_providers:\n  gemini-on-vertex:\n    type: vertexai\n    model: gemini-2.5-pro\n"
        "    project_env: TEAM_PROJECT\n    location_env: TEAM_LOCATION\n"
    )
    stack = make_stack(
        **judge_env,
        SCORING_LLM_PROVIDERS_FILE=str(providers),
        SCORING_LLM_PROVIDER="gemini-on-vertex",
        TEAM_PROJECT="sre-judges",
        TEAM_LOCATION="us-central1",
    )

    answer = stack.client.post("/api/v1/scoring/runs", json={"mode": "batch", "max_sessions": 10})

    assert answer.status_code == 400
    assert "the judge provider is 'google' on Vertex AI" in answer.text
    assert "Gemini batch mode on the Gemini API; not Gemini on Vertex AI" in answer.text


def test_a_batch_mode_run_of_the_google_judge_goes_through_gemini_batch_mode(
    make_stack: Any, judge_env: dict[str, str], fake_gemini: FakeGemini
) -> None:
    from tests.integration.test_batch_runs import get_run, plan, poll, start_batch_run
    from tests.support.fake_judges import gemini_batch_error

    stack = make_stack(**judge_env, SCORING_LLM_PROVIDER="google-default")
    # The first answer is rejected (invalid argument: fails its attempt), the second exhausted (8: next batch).
    fake_gemini.batch_script.extend(
        [gemini_batch_error(3, "the request is malformed"), gemini_batch_error(8, "quota exhausted")]
    )
    run = start_batch_run(stack, selection={"which": "all"})
    plan(stack)
    selected = get_run(stack, run["run_id"])["counts"]["pending"]

    assert poll(stack).submitted == selected
    second = poll(stack)  # collects the batch, submits the exhausted request again
    assert (second.completed, second.failed, second.resubmitted) == (selected - 2, 1, 1)
    third = poll(stack)
    assert third.completed == 1

    done = get_run(stack, run["run_id"])
    assert done["status"] == "completed"
    assert (done["counts"]["completed"], done["counts"]["failed"]) == (selected - 1, 1)
    assert fake_gemini.requests == []  # no online call: every verdict came from a batch
    assert fake_gemini.batch_paths[0].endswith("/models/gemini-2.5-pro:batchGenerateContent")
    assert "/batches/" in fake_gemini.batch_paths[1]
    inlined = fake_gemini.batch_requests[0]
    assert set(inlined["metadata"]) == {"key"}  # the attempt's score id, echoed with its answer
    config = inlined["request"]["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert config["responseJsonSchema"]["properties"]["score_breakdown"]["type"] == "object"
    assert inlined["request"]["systemInstruction"]["parts"][0]["text"]
    scores = [stack.score(sid).json() for sid in (THOROUGH_ID, SHALLOW_ID)]
    completed_scores = [s for s in scores if s["status"] == "completed"]
    assert completed_scores
    assert {(s["judge"]["provider"], s["judge"]["model"]) for s in completed_scores} == {("google", "gemini-2.5-pro")}
    assert {s["judge"]["input_tokens"] for s in completed_scores} == {1000}  # cached tokens apart, as online
    # Priced at gemini-2.5-pro's batch discount (half), the usage as the fake reports it.
    price = stack.container.config.price_of("gemini-2.5-pro")
    usage = done["usage"]
    online = price.cost_usd(usage["input_tokens"], usage["output_tokens"], usage["cache_read_tokens"], 0)
    assert usage["cost_usd"] == pytest.approx(online * 0.5, abs=1e-6)
    assert usage["cache_read_tokens"] == 500 * (selected - 1)


def test_a_batch_mode_run_of_the_openai_judge_goes_through_the_batch_api(
    make_stack: Any, judge_env: dict[str, str], fake_openai: FakeOpenAI
) -> None:
    from tests.integration.test_batch_runs import get_run, plan, poll, start_batch_run
    from tests.support.fake_judges import batch_line_error

    stack = make_stack(**judge_env, SCORING_LLM_PROVIDER="openai-default")
    fake_openai.batch_script.extend([batch_line_error(400, "the prompt is malformed")])
    run = start_batch_run(stack, selection={"which": "all"})
    plan(stack)
    selected = get_run(stack, run["run_id"])["counts"]["pending"]

    assert poll(stack).submitted == selected
    second = poll(stack)

    assert second.completed == selected - 1
    done = get_run(stack, run["run_id"])
    assert done["status"] == "completed"
    assert (done["counts"]["completed"], done["counts"]["failed"]) == (selected - 1, 1)
    assert fake_openai.requests == []  # no online call: every verdict came from the batch
    line = fake_openai.batch_requests[0]
    assert (line["method"], line["url"], line["body"]["model"]) == ("POST", "/v1/chat/completions", "gpt-5")
    assert line["body"]["response_format"]["type"] == "json_schema"
    # Priced at gpt-5's batch discount (half): tokens as the fake reports them, cached apart.
    price = stack.container.config.price_of("gpt-5")
    usage = done["usage"]
    online = price.cost_usd(usage["input_tokens"], usage["output_tokens"], usage["cache_read_tokens"], 0)
    assert usage["cost_usd"] == pytest.approx(online * 0.5, abs=1e-6)


def test_cancelling_a_gemini_batch_mode_run_cancels_its_batch(
    make_stack: Any, judge_env: dict[str, str], fake_gemini: FakeGemini
) -> None:
    from tests.integration.test_batch_runs import RUNS, get_run, plan, poll, start_batch_run

    stack = make_stack(**judge_env, SCORING_LLM_PROVIDER="google-default")
    fake_gemini.hold_batches = True
    run = start_batch_run(stack, selection={"which": "all"})
    plan(stack)
    assert poll(stack).batches_created == 1
    assert poll(stack).batches_waiting == 1  # still running: nothing collected

    cancelled = stack.client.post(f"{RUNS}/{run['run_id']}/cancel")

    assert cancelled.status_code == 200
    assert {b["state"] for b in fake_gemini.batches.values()} == {"BATCH_STATE_CANCELLED"}
    assert fake_gemini.batch_paths[-1].endswith(":cancel")
    assert get_run(stack, run["run_id"])["status"] == "cancelled"
