"""Request-body limits per route (:func:`body_limit`), enforced on the bytes actually received, not only the
Content-Length header.

:class:`BodyLimit` reads the body up to the route's limit and replays it to the application, or answers 413 naming
the limit (400 for a Content-Length that is not a decimal number). A refused body is read to its end (up to
:data:`DRAIN_LIMIT_BYTES`) before the 413 is sent: a client that writes its whole body before reading (Python's
``urllib``) would otherwise see a connection reset, not the 413.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from functions.api.params import IMPORT_PATH
from session_scoring.container import get_container

MAX_BODY_BYTES = 4096

_BODYLESS = frozenset({"GET", "HEAD", "OPTIONS", "DELETE"})

DRAIN_LIMIT_BYTES = 32 * 1024 * 1024
"""The most of a refused body read (and discarded) so that the client reads the 413; a larger body is refused as
soon as it is known to be too large, and the connection is closed under it."""


def body_limit(path: str) -> int:
    """Largest request body per route (read on the request, never at import): the import limit for uploads,
    MAX_BODY_BYTES for everything else."""
    return get_container().settings.import_max_bytes if path == IMPORT_PATH else MAX_BODY_BYTES


async def send_error(send: Send, status: int, code: str, detail: object) -> None:
    """An answer in the API's error shape, ``{"code", "detail"}``, sent by a middleware instead of the application."""
    body = json.dumps({"code": code, "detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    def __init__(self, app: ASGIApp, limit_for: Callable[[str], int] = body_limit) -> None:
        self._app = app
        self._limit_for = limit_for

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and not length.isdigit():
            detail = (
                f"the Content-Length header {length.decode('latin-1')!r} is not a number of bytes; "
                "send the body's length in bytes (or no Content-Length, with a chunked body)"
            )
            await send_error(send, 400, "invalid_content_length", detail)
            return
        if scope["method"] in _BODYLESS:
            await self._app(scope, receive, send)
            return
        path = str(scope["path"])
        limit = self._limit_for(path)
        if length is not None and int(length) > limit:
            if int(length) <= DRAIN_LIMIT_BYTES:
                await drain(receive, 0)
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
            more = bool(message.get("more_body", False))
            if received > limit:
                if more:
                    await drain(receive, received)
                await _too_large(send, path, limit)
                return
            chunks.append(chunk)
        body = b"".join(chunks)
        await self._app(scope, _replay({"type": "http.request", "body": body, "more_body": False}, receive), send)


async def drain(receive: Receive, received: int) -> None:
    """Read the rest of a refused body, discarding it, until its end, a disconnect or :data:`DRAIN_LIMIT_BYTES`."""
    while received <= DRAIN_LIMIT_BYTES:
        message = await receive()
        if message["type"] != "http.request":
            return
        received += len(message.get("body", b""))
        if not message.get("more_body", False):
            return


def _replay(first: Message, receive: Receive) -> Receive:
    pending = [first]

    async def replay() -> Message:
        return pending.pop() if pending else await receive()

    return replay


async def _too_large(send: Send, path: str, limit: int) -> None:
    mib = f" ({limit // 2**20} MiB)" if limit >= 2**20 and limit % 2**20 == 0 else ""
    detail = f"request body exceeds the limit of {limit} bytes{mib} for {path}"
    await send_error(send, 413, "body_too_large", detail)
