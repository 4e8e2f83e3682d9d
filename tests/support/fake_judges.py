"""Local HTTP servers that speak OpenAI's Chat Completions API and Gemini's ``generateContent``, for tests.

The real ``openai`` and ``google-genai`` SDKs are pointed at them through ``base_url``; nothing in an SDK is
patched (as with ``fake_claude.py``). Tests script the next replies (a verdict with its usage, an error status with
headers such as ``retry-after``, a slow answer, a dropped connection, raw text) and read back the requests, their
paths and headers. Unscripted requests get the default verdict (``SAMPLE_VERDICT``; its outcome ``found`` when the
request carries a fenced reference root cause), with fixed usage: 1,500 prompt tokens of which 500 cached, 450
output tokens (Gemini: 400 answer and 50 thinking tokens).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.fake_claude import (
    DEFAULT_FOUND_REASON,
    REFERENCE_FENCE,
    SAMPLE_VERDICT,
    FakeReply,
)
from tests.support.loopback import LoopbackHttpServer, QuietHandler, send_json

PROMPT_TOKENS = 1500
CACHED_TOKENS = 500
OUTPUT_TOKENS = 450


def _verdict_for(payload: dict[str, Any]) -> dict[str, Any]:
    if REFERENCE_FENCE not in json.dumps(payload):
        return SAMPLE_VERDICT
    return {**SAMPLE_VERDICT, "outcome": "found", "outcome_reason": DEFAULT_FOUND_REASON}


class _ScriptedServer(LoopbackHttpServer):
    """Scripted replies in order, then the default verdict; every request recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.replies: deque[FakeReply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.request_headers: list[dict[str, str]] = []
        self.default: FakeReply | None = None
        """The reply to unscripted requests (e.g. an outage: always 503); None: the default verdict."""
        self._lock = threading.Lock()

    def script(self, *replies: FakeReply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.replies.clear()
            self.requests.clear()
            self.paths.clear()
            self.request_headers.clear()
            self.default = None

    def verdict(self, verdict: dict[str, Any] | str, **usage: int) -> FakeReply:
        """A reply carrying ``verdict`` (a dict, or raw answer text such as invalid JSON) in this API's shape."""
        return FakeReply(body=self.answer_body(verdict if isinstance(verdict, str) else json.dumps(verdict), **usage))

    def error(self, status: int, message: str, headers: dict[str, str] | None = None) -> FakeReply:
        return FakeReply(status=status, body=self.error_body(status, message), headers=headers or {})

    def slow(self, seconds: float) -> FakeReply:
        """The default verdict, answered only after ``seconds`` (past a short judge timeout)."""
        return FakeReply(body=self.answer_body(json.dumps(SAMPLE_VERDICT)), delay_seconds=seconds)

    def answer_body(self, text: str, **usage: int) -> dict[str, Any]:
        raise NotImplementedError

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        raise NotImplementedError

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                payload = json.loads(self.rfile.read(length) or b"{}")
                with fake._lock:
                    fake.requests.append(payload)
                    fake.paths.append(self.path)
                    fake.request_headers.append({k.lower(): v for k, v in self.headers.items()})
                    reply = fake.replies.popleft() if fake.replies else fake.default
                if reply is None:
                    reply = FakeReply(body=fake.answer_body(json.dumps(_verdict_for(payload))))
                if reply.delay_seconds:
                    time.sleep(reply.delay_seconds)
                if reply.drop_connection:
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.connection.close()
                    return
                data = (reply.raw if reply.raw is not None else json.dumps(reply.body)).encode()
                send_json(self, reply.status, data, reply.headers)

        return Handler


class FakeOpenAI(_ScriptedServer):
    """``POST /v1/chat/completions`` (give the SDK ``base_url=fake.base_url + "/v1"``)."""

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/v1"

    def answer_body(
        self,
        text: str,
        prompt_tokens: int = PROMPT_TOKENS,
        cached_tokens: int = CACHED_TOKENS,
        completion_tokens: int = OUTPUT_TOKENS,
        finish_reason: str = "stop",
    ) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-5",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": None},
                    "finish_reason": finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached_tokens},
            },
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = {429: "rate_limit_exceeded", 401: "invalid_api_key"}.get(status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


_GOOGLE_STATUS = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 400: "INVALID_ARGUMENT"}


class FakeGemini(_ScriptedServer):
    """``POST /v1beta/models/MODEL:generateContent`` (Gemini API) and the Vertex AI path of the same method."""

    def answer_body(
        self,
        text: str,
        prompt_tokens: int = PROMPT_TOKENS,
        cached_tokens: int = CACHED_TOKENS,
        candidates_tokens: int = OUTPUT_TOKENS - 50,
        thoughts_tokens: int = 50,
        finish_reason: str = "STOP",
    ) -> dict[str, Any]:
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": finish_reason, "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "cachedContentTokenCount": cached_tokens,
                "candidatesTokenCount": candidates_tokens,
                "thoughtsTokenCount": thoughts_tokens,
                "totalTokenCount": prompt_tokens + candidates_tokens + thoughts_tokens,
            },
            "modelVersion": "gemini-2.5-pro",
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"code": status, "message": message, "status": _GOOGLE_STATUS.get(status, "UNKNOWN")}}
