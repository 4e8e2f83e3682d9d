"""The judge over the official ``openai`` SDK: OpenAI's Chat Completions API, or any OpenAI-compatible server through
``base_url`` (Azure OpenAI, vLLM, Ollama, a LiteLLM proxy, xAI, Gemini's OpenAI endpoint).

Output is constrained with ``response_format={"type": "json_schema", ...}`` (strict when the schema allows it) and
validated again (``judge/structured.py``). The SDK's own retries are off (``max_retries=0``): the scorer retries
within the Lambda's remaining time. Usage: ``prompt_tokens`` less its ``cached_tokens`` is input, the cached part is
a cache read (as the Messages API counts them, so one price table fits both).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import httpx2
import openai

from session_scoring.errors import JudgePermanentError
from session_scoring.judge.sdk_errors import status_error, timed_out, unreachable
from session_scoring.judge.structured import StructuredJudge, Turn, is_strict_compatible
from session_scoring.models.judge import TokenUsage
from session_scoring.models.rubric import Rubric

CONNECT_TIMEOUT_SECONDS = 5.0


def classify_openai_error(exc: openai.OpenAIError) -> Exception:
    """Map an SDK error onto our hierarchy: transient (retried, counted by the breaker) or permanent."""
    if isinstance(exc, openai.APITimeoutError):
        return timed_out(exc)
    if isinstance(exc, openai.APIConnectionError):
        return unreachable(exc)
    if isinstance(exc, openai.APIStatusError):
        return status_error(
            exc.status_code,
            _message(exc),
            exc.response.headers,
            "the API key variable its provider entry names (api_key_env, OPENAI_API_KEY for openai-default)",
        )
    return JudgePermanentError(f"judge client error: {exc}")


def _message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(exc.message)


@contextmanager
def openai_errors() -> Iterator[None]:
    try:
        yield
    except openai.OpenAIError as exc:
        raise classify_openai_error(exc) from exc


def read_completion(completion: Any) -> tuple[str, TokenUsage, bool]:
    """A Chat Completions answer's text, its usage, and whether it stopped at the token limit."""
    choice = completion.choices[0] if completion.choices else None
    text = ""
    truncated = False
    if choice is not None:
        text = choice.message.content or ""
        truncated = choice.finish_reason == "length"
    usage = completion.usage
    if usage is None:
        return text, TokenUsage(), truncated
    details = getattr(usage, "prompt_tokens_details", None)
    cached = int(getattr(details, "cached_tokens", 0) or 0)
    tokens = TokenUsage(
        input_tokens=max(0, int(usage.prompt_tokens or 0) - cached),
        output_tokens=int(usage.completion_tokens or 0),
        cache_read_tokens=cached,
    )
    return text, tokens, truncated


class OpenAIJudge(StructuredJudge):
    """A judge backed by a model behind the Chat Completions API."""

    def __init__(
        self, client: openai.OpenAI, model: str, max_tokens: int, rubric: Rubric, provider: str = "openai"
    ) -> None:
        super().__init__(model, max_tokens, rubric)
        self.provider = provider
        self._client = client
        self._response_format = {
            "type": "json_schema",
            "json_schema": {
                "name": "judge_verdict",
                "schema": self._schema,
                "strict": is_strict_compatible(self._schema),
            },
        }

    def request_body(self, system: str, turns: list[Turn]) -> dict[str, Any]:
        """The Chat Completions request (online, and the body of a Batch API line)."""
        return {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, *({"role": r, "content": t} for r, t in turns)],
            "response_format": self._response_format,
            "max_completion_tokens": self._max_tokens,
        }

    def _call(self, system: str, turns: list[Turn], timeout_seconds: float) -> tuple[str, TokenUsage, bool]:
        with openai_errors():
            completion = self._client.chat.completions.create(
                **cast(Any, self.request_body(system, turns)),
                timeout=httpx2.Timeout(timeout_seconds, connect=min(CONNECT_TIMEOUT_SECONDS, timeout_seconds)),
            )
        return read_completion(completion)
