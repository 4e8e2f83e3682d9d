"""The openai and google judges through their real SDKs against the local fakes (over HTTP, nothing patched): the
structured-output request, usage with cached tokens, the one repair turn, and each fault mapped onto our errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from session_scoring.configuration.criteria import default_rubric
from session_scoring.configuration.providers import JudgeTarget
from session_scoring.configuration.settings import Settings
from session_scoring.errors import JudgeOutputError, JudgePermanentError, JudgeTransientError
from session_scoring.judge.base import Judge, JudgePrompt, JudgeRequest
from session_scoring.judge.factory import build_judge_for
from session_scoring.models.session import Session
from tests.support.fake_claude import SAMPLE_VERDICT
from tests.support.fake_judges import FakeGemini, FakeOpenAI

REQUEST = JudgeRequest(
    session=Session(session_id="s-1", status="completed"),
    prompt=JudgePrompt(system="the rubric", user="the session", estimated_tokens=10),
    timeout_seconds=1.0,
)


@pytest.fixture(params=["openai", "google"])
def judged(request: pytest.FixtureRequest, loopback: Callable[[type[Any]], Any]) -> tuple[Judge, Any]:
    """Each judge built by the factory, pointed at its fake."""
    if request.param == "openai":
        fake = loopback(FakeOpenAI)
        settings = Settings(template_variables={"OPENAI_API_KEY": "k"}, openai_base_url=fake.api_url)
        return build_judge_for(
            JudgeTarget("openai-default", "openai", "gpt-5", "OPENAI_API_KEY"), settings, default_rubric()
        ), fake
    fake = loopback(FakeGemini)
    settings = Settings(template_variables={"GOOGLE_API_KEY": "k"}, google_base_url=fake.base_url)
    target = JudgeTarget("google-default", "google", "gemini-2.5-pro", "GOOGLE_API_KEY")
    return build_judge_for(target, settings, default_rubric()), fake


def test_a_verdict_with_its_usage_cached_tokens_apart(judged: tuple[Judge, Any]) -> None:
    judge, _fake = judged
    verdict = judge.evaluate(REQUEST)
    assert verdict.output.total_score == SAMPLE_VERDICT["total_score"]
    usage = verdict.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (1000, 500, 450)


def test_invalid_json_gets_one_repair_turn_with_the_problem(judged: tuple[Judge, Any]) -> None:
    judge, fake = judged
    fake.script(fake.verdict("Here is my evaluation: {"))
    verdict = judge.evaluate(REQUEST)
    assert verdict.output.total_score == SAMPLE_VERDICT["total_score"]
    assert len(fake.requests) == 2
    assert "the response is not JSON" in str(fake.requests[1])
    assert verdict.usage.output_tokens == 900  # both calls


def test_a_schema_violation_twice_fails_with_the_reason(judged: tuple[Judge, Any]) -> None:
    judge, fake = judged
    broken = {**SAMPLE_VERDICT, "total_score": 99}
    fake.script(fake.verdict(broken), fake.verdict(broken))
    with pytest.raises(JudgeOutputError, match=r"invalid after one repair turn: .*total_score"):
        judge.evaluate(REQUEST)


@pytest.mark.parametrize("status", [500, 503])
def test_a_server_error_is_transient(judged: tuple[Judge, Any], status: int) -> None:
    judge, fake = judged
    fake.script(fake.error(status, "try again later"))
    with pytest.raises(JudgeTransientError, match=f"answered {status}: try again later"):
        judge.evaluate(REQUEST)
    assert len(fake.requests) == 1  # the SDK's own retries are off: ours are bounded by the Lambda's time


def test_a_rate_limit_carries_its_retry_after(judged: tuple[Judge, Any]) -> None:
    judge, fake = judged
    fake.script(fake.error(429, "quota exceeded", {"retry-after": "40"}))
    with pytest.raises(JudgeTransientError) as raised:
        judge.evaluate(REQUEST)
    assert raised.value.retry_after_seconds == 40.0


def test_an_answer_slower_than_the_timeout_is_transient(judged: tuple[Judge, Any]) -> None:
    judge, fake = judged
    fake.script(fake.slow(2.5))
    with pytest.raises(JudgeTransientError, match="did not answer in time"):
        judge.evaluate(REQUEST)


def test_a_refused_key_is_permanent_and_says_what_to_check(judged: tuple[Judge, Any]) -> None:
    judge, fake = judged
    fake.script(fake.error(401, "invalid key"))
    with pytest.raises(JudgePermanentError, match=r"refused our credentials .*API key"):
        judge.evaluate(REQUEST)


def test_gemini_on_vertex_ai_with_a_test_access_token(loopback: Callable[[type[Any]], Any]) -> None:
    fake = loopback(FakeGemini)
    settings = Settings(google_base_url=fake.base_url, vertex_access_token="test-access-token")
    target = JudgeTarget(
        "gemini-on-vertex", "google", "gemini-2.5-pro", project="judges", location="europe-west4", vertex_ai=True
    )
    verdict = build_judge_for(target, settings, default_rubric()).evaluate(REQUEST)
    assert verdict.output.total_score == SAMPLE_VERDICT["total_score"]
    (path,) = fake.paths
    assert "/projects/judges/locations/europe-west4/publishers/google/models/gemini-2.5-pro:generateContent" in path
    assert fake.request_headers[0]["authorization"] == "Bearer test-access-token"


def test_a_missing_key_names_the_variable() -> None:
    from session_scoring.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="needs an API key and TEAM_KEY is not set"):
        build_judge_for(
            JudgeTarget("team", "openai", "gpt-5", "TEAM_KEY"), Settings(template_variables={}), default_rubric()
        )


def test_xai_default_is_the_openai_judge_at_xais_endpoint_with_its_own_key() -> None:
    """Built only (no call: xAI's endpoint is a default, never reached in tests)."""
    from session_scoring.configuration.providers import resolve_target

    judge = build_judge_for(
        resolve_target("xai-default", "", {}, {}), Settings(template_variables={"XAI_API_KEY": "x"}), default_rubric()
    )
    assert (judge.provider, judge.model) == ("openai", "grok-4")
    client = judge._client  # type: ignore[attr-defined]
    assert str(client.base_url).rstrip("/") == "https://api.x.ai/v1"
    assert client.api_key == "x"
