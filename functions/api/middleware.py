"""ASGI middleware of the API: security headers, CORS from the settings, the refusal of NUL characters, the request
metric (the body limit is ``limits.py``)."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from typing import Any
from urllib.parse import parse_qsl

from fastapi.middleware.cors import CORSMiddleware
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from functions.api.limits import DRAIN_LIMIT_BYTES, drain, send_error
from functions.api.params import IMPORT_PATH
from session_scoring.container import get_container
from session_scoring.models.text import NUL, NUL_ERROR_TYPE, NUL_MESSAGE

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        # MUI styles through emotion, which inserts <style> elements at run time: without a per-response nonce in
        # index.html (a static file here) they need 'unsafe-inline'. Styles cannot run script; scripts stay 'self'.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
"""The policy of the dashboard and of every API answer: nothing from another origin, no inline script, no framing."""

DOCS_PATHS = ("/docs", "/docs/oauth2-redirect", "/redoc")
"""FastAPI's documentation pages: Swagger UI and ReDoc from the jsDelivr CDN, started by an inline script."""

_DOCS_POLICY = (
    "default-src 'none'",
    "script-src https://cdn.jsdelivr.net{scripts}",
    "style-src https://cdn.jsdelivr.net https://fonts.googleapis.com 'unsafe-inline'",
    "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.jsdelivr.net",
    "font-src https://fonts.gstatic.com",
    "connect-src 'self'",
    "worker-src blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
)

_INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.DOTALL)

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
)
HSTS = (b"strict-transport-security", b"max-age=31536000; includeSubDomains")
"""Sent over HTTPS only (behind API Gateway; the local server speaks HTTP)."""


def security_headers(scheme: str) -> list[tuple[bytes, bytes]]:
    """The headers every answer carries, with the default policy (the 500 of an unexpected error adds them itself)."""
    headers = [*SECURITY_HEADERS, (b"content-security-policy", CONTENT_SECURITY_POLICY.encode())]
    return [*headers, HSTS] if scheme == "https" else headers


def docs_policy(html: bytes) -> str:
    """The policy of a documentation page: its CDN, and its inline scripts by their SHA-256."""
    hashes = "".join(
        f" 'sha256-{base64.b64encode(hashlib.sha256(script).digest()).decode()}'"
        for script in _INLINE_SCRIPT.findall(html)
    )
    return "; ".join(_DOCS_POLICY).format(scripts=hashes)


class SecurityHeaders:
    """Adds :func:`security_headers` to every answer that does not set them itself, the other middleware's refusals
    included. A documentation page gets :func:`docs_policy` instead (its body is read to hash its scripts)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        defaults = security_headers(scope.get("scheme", "http"))
        docs = scope["path"] in DOCS_PATHS
        start: Message | None = None
        body = b""

        async def secure(message: Message) -> None:
            nonlocal start, body
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                headers = [*message.get("headers", []), *(h for h in defaults if h[0] not in present)]
                message = {**message, "headers": headers}
                if docs:
                    start = message  # sent with the policy once the page is read
                    return
            elif docs and start is not None and message["type"] == "http.response.body":
                body += message.get("body", b"")
                if message.get("more_body", False):
                    return
                headers = [h for h in start["headers"] if h[0] != b"content-security-policy"]
                await send({**start, "headers": [*headers, (b"content-security-policy", docs_policy(body).encode())]})
                message = {**message, "body": body}
                start = None
            await send(message)

        await self._app(scope, receive, secure)


CORS_METHODS = ("GET", "POST", "PUT", "DELETE", "OPTIONS")
"""The methods a browser on an allowed origin may use (template.yaml's HTTP API allows the same)."""


class ConfiguredCORS:
    """CORS for the origins in SCORING_CORS_ORIGINS (comma-separated; none: no CORS headers at all), read on each
    request (never at import), the middleware rebuilt when they change. Behind API Gateway its own CORS answers
    first (template.yaml sets both from one parameter)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._origins: str | None = None
        self._inner: ASGIApp = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        origins = get_container().settings.cors_origins
        if origins != self._origins:
            allowed = [origin.strip() for origin in origins.split(",") if origin.strip()]
            self._inner = (
                CORSMiddleware(
                    self._app,
                    allow_origins=allowed,
                    allow_methods=list(CORS_METHODS),
                    allow_headers=["authorization", "content-type"],
                    expose_headers=["location"],
                    max_age=600,
                )
                if allowed
                else self._app
            )
            self._origins = origins
        await self._inner(scope, receive, send)


class RequestMetrics:
    """Counts every API request by route template, method and status class (``ApiRequests``); other paths (the
    dashboard, its assets) count as ``other``."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        status = 500

        async def capture(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self._app(scope, receive, capture)
        finally:
            from session_scoring.observability import record_api_request

            route = scope.get("route")
            template = getattr(route, "path", None)
            if not isinstance(template, str) or not template.startswith(("/api/", "/health")):
                template = "other"
            record_api_request(template, str(scope.get("method", "GET")), status)


class HeadAsGet:
    """Answers HEAD as the GET of the same path without its body (RFC 9110, 9.3.2): the API's routes declare GET
    only, and a monitor's or a proxy's HEAD would otherwise get a 405."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self._app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] != "http.response.body":
                await send(message)
            elif not message.get("more_body", False):
                await send({"type": "http.response.body", "body": b""})

        await self._app({**scope, "method": "GET"}, receive, headers_only)


class RejectNulCharacters:
    """Answers 422 in the shape of FastAPI's validation errors (``loc`` ``["query", "agent"]``) when the decoded path,
    a query parameter or a header holds a NUL character, which PostgreSQL cannot store (bodies: their models)."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            loc = _nul_location(scope)
            if loc is not None:
                await send_error(send, 422, "validation_error", _nul_problem(loc))
                return
        await self._app(scope, receive, send)


def _nul_location(scope: Scope) -> list[str] | None:
    if NUL in scope["path"]:
        # The name of the path parameter that holds it, from the route the path matches (none: no name).
        routes = getattr(getattr(scope.get("app"), "router", None), "routes", [])
        return ["path", *(_parameter_in(routes, scope) or [])]
    # Decoded as Starlette decodes it for the routes (percent escapes as UTF-8, ``+`` as a space).
    for name, value in parse_qsl(scope["query_string"].decode("latin-1"), keep_blank_values=True):
        if NUL in name or NUL in value:
            return ["query", name]
    for name, value in scope["headers"]:
        if b"\x00" in value:
            return ["header", name.decode("latin-1")]
    return None


def _parameter_in(routes: list[Any], scope: Scope) -> list[str] | None:
    """The NUL's parameter name in the first of ``routes`` that matches (looking into included routers, which
    answer a match without the parameters), or None when none matches."""
    for route in routes:
        match, child = route.matches(scope)
        if match == Match.NONE:
            continue
        parameters = child.get("path_params") or {}
        inner = getattr(getattr(route, "original_router", None), "routes", None)
        if not parameters and inner:
            found = _parameter_in(list(inner), scope)
            if found is not None:
                return found
            continue
        return [name for name, value in parameters.items() if NUL in str(value)][:1]
    return None


_PLACES = {"path": "path parameter", "query": "query parameter", "header": "header"}


def _nul_problem(loc: list[str]) -> list[dict[str, Any]]:
    where = f"the {_PLACES[loc[0]]} {loc[1]!r}" if len(loc) > 1 else "the path"
    return [{"loc": loc, "msg": f"{NUL_MESSAGE} from {where}", "type": NUL_ERROR_TYPE}]


STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
JSON_TYPES = frozenset({"application/json"})
UPLOAD_TYPES = frozenset(
    {"application/json", "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"}
)
"""What an upload may be sent as (or without a Content-Type: the file name decides); JSON routes take JSON only."""


def _host_name(host: str) -> str:
    """``127.0.0.1:8000`` -> ``127.0.0.1``, ``[::1]:8000`` -> ``[::1]``, lower-cased."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[: host.find("]") + 1] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


class LocalServerGuard:
    """What the local server (``make run``) checks before the API sees a request, as API Gateway's own domain and
    the JWT authorizer do in AWS: the Host is one of SCORING_LOCAL_ALLOWED_HOSTS (else 421: a page whose DNS name was
    rebound to 127.0.0.1 cannot read the API); a state-changing request from a browser on another origin (its
    ``Origin`` neither the server's own nor one of SCORING_CORS_ORIGINS, or ``Sec-Fetch-Site: cross-site``) is refused
    (403); a body sent to a JSON route is JSON, an upload JSON or JSON Lines (else 415: a cross-site form or a
    ``text/plain`` fetch cannot reach a route). Refusals never echo what was sent."""

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is None:
            await self._app(scope, receive, send)
            return
        status, code, detail = refusal
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if scope["method"] in STATE_CHANGING and (not length.isdigit() or int(length) <= DRAIN_LIMIT_BYTES):
            await drain(receive, 0)  # read before answering: a client writing its whole body first reads the refusal
        body = json.dumps({"code": code, "detail": detail}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *security_headers(scope.get("scheme", "http")),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    @staticmethod
    def _refusal(scope: Scope) -> tuple[int, str, str] | None:
        settings = get_container().settings
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
        allowed = {name.strip().lower() for name in settings.local_allowed_hosts.split(",") if name.strip()}
        host = headers.get("host", "")
        if _host_name(host) not in allowed:
            return (
                421,
                "host_not_allowed",
                "this server answers only the host names in SCORING_LOCAL_ALLOWED_HOSTS "
                f"({', '.join(sorted(allowed))}); call it by one of them, or add the name a proxy in front forwards",
            )
        if scope["method"] not in STATE_CHANGING:
            return None
        origin = headers.get("origin")
        own = f"{scope.get('scheme', 'http')}://{host.lower()}"
        trusted = {item.strip().rstrip("/") for item in settings.cors_origins.split(",") if item.strip()}
        foreign = origin is not None and origin.rstrip("/").lower() != own and origin.rstrip("/") not in trusted
        if foreign or (origin is None and headers.get("sec-fetch-site") == "cross-site"):
            return (
                403,
                "cross_origin_refused",
                f"{scope['method']} from a page on another origin is refused: call the API from the dashboard it "
                "serves, from a client that sends no Origin, or from an origin listed in SCORING_CORS_ORIGINS",
            )
        has_body = headers.get("content-length", "0") not in ("", "0") or "transfer-encoding" in headers
        media_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if not has_body:
            return None
        if scope["path"] == IMPORT_PATH:
            if media_type and media_type not in UPLOAD_TYPES:
                return (
                    415,
                    "unsupported_media_type",
                    "an upload is sent as application/json or application/x-ndjson (JSON Lines), or without a "
                    "Content-Type; nothing was stored",
                )
        elif media_type not in JSON_TYPES and not re.fullmatch(r"application/[\w.+-]+\+json", media_type):
            return (
                415,
                "unsupported_media_type",
                "this route takes a JSON body: send it with Content-Type: application/json; nothing was done",
            )
        return None
