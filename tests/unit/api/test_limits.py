"""The body limit: a refused body is read to its end before the 413 (so a client that writes its whole body first
reads the answer), a malformed Content-Length is a JSON 400, and a body within the limit reaches the app whole."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import Message

from functions.api.limits import DRAIN_LIMIT_BYTES, BodyLimit

LIMIT = 1000


class Client:
    """An ASGI client side: the body in chunks, and what the middleware sent back."""

    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = list(chunks)
        self.read = 0
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        if not self.chunks:
            return {"type": "http.disconnect"}
        chunk = self.chunks.pop(0)
        self.read += len(chunk)
        return {"type": "http.request", "body": chunk, "more_body": bool(self.chunks)}

    async def send(self, message: Message) -> None:
        self.sent.append(dict(message))

    @property
    def status(self) -> int:
        return int(self.sent[0]["status"])

    @property
    def json(self) -> dict[str, Any]:
        body: dict[str, Any] = json.loads(self.sent[1]["body"])
        return body


def _serve(client: Client, length: str | None, method: str = "POST") -> list[bytes]:
    seen: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append((await receive())["body"])
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    headers = [] if length is None else [(b"content-length", length.encode())]
    scope = {"type": "http", "method": method, "path": "/x", "headers": headers}
    # A loop of its own, never the thread's: asyncio.run would leave the main thread without one, which Mangum
    # (tests that invoke the Lambda handler later in the run) asks for.
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(BodyLimit(app, lambda _path: LIMIT)(scope, client.receive, client.send))
    finally:
        loop.close()
    return seen


def test_a_body_over_the_limit_is_read_to_its_end_before_the_413() -> None:
    client = Client([b"x" * 600] * 5)

    assert _serve(client, str(3000)) == []
    assert client.status == 413
    assert client.read == 3000
    assert client.json["code"] == "body_too_large"


def test_a_chunked_body_over_the_limit_is_read_to_its_end_too() -> None:
    client = Client([b"x" * 600] * 5)

    _serve(client, None)

    assert (client.status, client.read) == (413, 3000)


def test_a_declared_length_beyond_the_drain_limit_is_refused_without_reading() -> None:
    client = Client([b"x" * 600])

    _serve(client, str(DRAIN_LIMIT_BYTES + 1))

    assert (client.status, client.read) == (413, 0)


def test_a_malformed_content_length_is_a_json_400_whatever_the_method() -> None:
    for method in ("POST", "GET"):
        client = Client([b"{}"])
        assert _serve(client, "abc", method) == []
        assert client.status == 400
        assert client.json["code"] == "invalid_content_length"
        assert dict(client.sent[0]["headers"])[b"content-type"] == b"application/json"


def test_a_body_within_the_limit_reaches_the_app_whole() -> None:
    client = Client([b"a" * 400, b"b" * 400])

    assert _serve(client, "800") == [b"a" * 400 + b"b" * 400]
    assert client.status == 200
