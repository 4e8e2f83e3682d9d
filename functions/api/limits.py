"""Request-body limits per route, enforced on the bytes actually received (not only the Content-Length header).

A pure ASGI middleware: it reads the body up to the route's limit, answers 413 naming the limit as soon as the
limit is passed (or when Content-Length already says so), and otherwise replays the body to the application.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

_BODYLESS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})


def describe_bytes(limit: int) -> str:
    if limit >= 1024 * 1024 and limit % (1024 * 1024) == 0:
        return f"{limit} bytes ({limit // (1024 * 1024)} MiB)"
    return f"{limit} bytes"


class BodyLimit:
    def __init__(self, app: ASGIApp, limit_for: Callable[[str], int]) -> None:
        self._app = app
        self._limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in _BODYLESS:
            await self._app(scope, receive, send)
            return
        path = str(scope["path"])
        limit = self._limit_for(path)
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            await _too_large(send, path, limit)
            return
        chunks: list[bytes] = []
        received = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                await self._app(scope, _replay(message, receive), send)
                return
            chunk = message.get("body", b"")
            received += len(chunk)
            if received > limit:
                await _too_large(send, path, limit)
                return
            chunks.append(chunk)
            more = bool(message.get("more_body", False))
        body = b"".join(chunks)
        await self._app(scope, _replay({"type": "http.request", "body": body, "more_body": False}, receive), send)


def _replay(first: Message, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return first
        return await receive()

    return replay


async def _too_large(send: Send, path: str, limit: int) -> None:
    body = json.dumps(
        {
            "code": "body_too_large",
            "detail": f"request body exceeds the limit of {describe_bytes(limit)} for {path}",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
