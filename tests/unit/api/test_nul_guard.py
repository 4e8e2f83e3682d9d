"""A NUL character in a request's headers is refused before the app, naming the header (HTTP servers refuse it in
the request line and headers themselves; a Lambda event is not parsed by one)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import Message

from functions.api.middleware import RejectNulCharacters


def _answer(headers: list[tuple[bytes, bytes]], query: bytes = b"") -> tuple[list[dict[str, Any]], bool]:
    sent: list[dict[str, Any]] = []
    reached: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(dict(message))

    scope = {"type": "http", "method": "GET", "path": "/health", "query_string": query, "headers": headers}
    loop = asyncio.new_event_loop()  # a loop of its own: the main thread's is left as it was
    try:
        loop.run_until_complete(RejectNulCharacters(app)(scope, receive, send))
    finally:
        loop.close()
    return sent, bool(reached)


def test_a_nul_in_a_header_is_422_naming_it_and_never_reaches_the_app() -> None:
    sent, reached = _answer([(b"host", b"x"), (b"x-forwarded-user", b"mallory\x00")])

    assert not reached
    assert sent[0]["status"] == 422
    problem = json.loads(sent[1]["body"])["detail"][0]
    assert problem["loc"] == ["header", "x-forwarded-user"]
    assert problem["type"] == "string_nul_character"


def test_a_nul_percent_encoded_in_a_query_name_is_422_too() -> None:
    sent, reached = _answer([(b"host", b"x")], query=b"a%00b=1")

    assert not reached
    assert json.loads(sent[1]["body"])["detail"][0]["loc"] == ["query", "a\x00b"]


def test_a_request_without_nul_reaches_the_app() -> None:
    sent, reached = _answer([(b"host", b"x")], query=b"agent=KubernetesAgent")

    assert reached
    assert sent == []
