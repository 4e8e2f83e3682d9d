"""How the local stack serves the API: uvicorn on 127.0.0.1, answering a request it cannot parse as JSON.

uvicorn answers a request that is not valid HTTP/1.1 itself, with a ``text/plain`` 400; its documented ``http``
setting takes the protocol implementation, so the local stack passes :class:`JsonErrorsH11Protocol`, whose 400 is in
the API's error shape. Behind API Gateway the gateway answers malformed requests.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

if TYPE_CHECKING:
    from session_scoring.configuration.settings import Settings

APP = "devstack.server:local_api"
"""The app factory uvicorn serves (``factory=True``)."""
HOST = "127.0.0.1"
"""Only this machine reaches the API: with SCORING_TRUST_FORWARDED_USER, the proxy in front must be the only way in."""


class JsonErrorsH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, with the 400 for an unparseable request in the API's JSON error shape."""

    def send_400_response(self, msg: str) -> None:
        body = json.dumps(
            {
                "code": "malformed_request",
                "detail": f"{msg.rstrip('.')}: the request line or a header is not valid HTTP/1.1 (e.g. a "
                "Content-Length that is not a number of bytes); nothing was done",
            }
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body)):
            self.transport.write(self.conn.send(event))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self.transport.close()


def local_api() -> Any:
    """The API as the local server serves it: behind ``LocalServerGuard`` (the Host allow-list, the refusal of
    cross-origin writes and of bodies that are not JSON), which API Gateway and its authorizer stand for in AWS."""
    from functions.api.app import app
    from functions.api.middleware import LocalServerGuard

    return LocalServerGuard(app)


def server_options(port: int) -> dict[str, Any]:
    """uvicorn's settings for the local API (``uvicorn.run(APP, **server_options(port))``; tests build a
    ``uvicorn.Config`` from them)."""
    return {"host": HOST, "port": port, "http": JsonErrorsH11Protocol}


def access_summary(settings: Settings) -> str:
    """Who may do what on the local API, in one line of the start-up summary."""
    if not settings.require_authentication:
        return "roles not checked (SCORING_REQUIRE_AUTH is off): every caller acts as admin"
    if settings.trust_forwarded_user:
        return (
            "roles checked: the caller from X-Forwarded-User (or -Email), roles from X-Forwarded-Groups, as the proxy "
            "in front (oauth2-proxy) sets them; no identity: 401, no role: 403"
        )
    return (
        "roles checked, but nobody can sign in locally: without a JWT authorizer every API request answers 401; set "
        "SCORING_TRUST_FORWARDED_USER=true behind a proxy that sets X-Forwarded-User and X-Forwarded-Groups"
    )
