"""The Gemini judge over the Google Gen AI SDK (``google-genai``), on the Gemini API or on Vertex AI.

Output is constrained with ``response_mime_type="application/json"`` and ``response_json_schema`` (the SDK's
documented structured output) and validated again (``judge/structured.py``). The SDK's retries are off (one
attempt): the scorer retries within the Lambda's remaining time. The SDK speaks httpx2 (or httpx, when
configured so): both clients' timeouts and connection errors are transient. Usage: ``promptTokenCount`` less its
``cachedContentTokenCount`` is input, the cached part a cache read; thinking tokens are billed as output and counted
so.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import httpx2
from google import genai
from google.genai import errors, types

from session_scoring.errors import JudgePermanentError
from session_scoring.judge.sdk_errors import status_error, timed_out, unreachable
from session_scoring.judge.structured import StructuredJudge, Turn
from session_scoring.models.judge import TokenUsage
from session_scoring.models.rubric import Rubric


def classify_google_error(exc: Exception) -> Exception:
    """Map an SDK (or its HTTP client's) error onto our hierarchy."""
    if isinstance(exc, httpx.TimeoutException | httpx2.TimeoutException):
        return timed_out(exc)
    if isinstance(exc, httpx.TransportError | httpx2.TransportError):
        return unreachable(exc)
    if isinstance(exc, errors.APIError):
        return status_error(
            int(exc.code or 0),
            exc.message or exc.status or "no message",
            getattr(getattr(exc, "response", None), "headers", None),
            "the API key variable its provider entry names (GOOGLE_API_KEY for google-default) or the Vertex AI "
            "credentials",
        )
    return JudgePermanentError(f"judge client error: {type(exc).__name__}: {exc}")


@contextmanager
def google_errors() -> Iterator[None]:
    try:
        yield
    except (errors.APIError, httpx.HTTPError, httpx2.HTTPError) as exc:
        raise classify_google_error(exc) from exc


def read_response(response: Any) -> tuple[str, TokenUsage, bool]:
    """A generateContent answer's text, its usage, and whether it stopped at the token limit."""
    text = ""
    truncated = False
    if response.candidates:
        candidate = response.candidates[0]
        parts = candidate.content.parts if candidate.content is not None and candidate.content.parts else []
        text = "".join(part.text for part in parts if part.text and not part.thought)
        truncated = candidate.finish_reason == types.FinishReason.MAX_TOKENS
    meta = response.usage_metadata
    if meta is None:
        return text, TokenUsage(), truncated
    cached = int(meta.cached_content_token_count or 0)
    usage = TokenUsage(
        input_tokens=max(0, int(meta.prompt_token_count or 0) - cached),
        output_tokens=int(meta.candidates_token_count or 0) + int(meta.thoughts_token_count or 0),
        cache_read_tokens=cached,
    )
    return text, usage, truncated


def no_retries() -> types.HttpRetryOptions:
    """One attempt per call: the scorer's retries are bounded by the Lambda's remaining time."""
    return types.HttpRetryOptions(attempts=1)


class GoogleJudge(StructuredJudge):
    """A judge backed by a Gemini model."""

    provider = "google"

    def __init__(self, client: genai.Client, model: str, max_tokens: int, rubric: Rubric) -> None:
        super().__init__(model, max_tokens, rubric)
        self._client = client

    def request_config(self, system: str, timeout_seconds: float | None) -> types.GenerateContentConfig:
        http = None
        if timeout_seconds is not None:
            http = types.HttpOptions(timeout=max(1, int(timeout_seconds * 1000)), retry_options=no_retries())
        return types.GenerateContentConfig(
            system_instruction=system,
            response_mime_type="application/json",
            response_json_schema=self._schema,
            max_output_tokens=self._max_tokens,
            http_options=http,
        )

    @staticmethod
    def contents(turns: list[Turn]) -> list[types.Content]:
        return [
            types.Content(role="model" if role == "assistant" else "user", parts=[types.Part(text=text)])
            for role, text in turns
        ]

    def _call(self, system: str, turns: list[Turn], timeout_seconds: float) -> tuple[str, TokenUsage, bool]:
        with google_errors():
            response = self._client.models.generate_content(
                model=self.model, contents=self.contents(turns), config=self.request_config(system, timeout_seconds)
            )
        return read_response(response)
