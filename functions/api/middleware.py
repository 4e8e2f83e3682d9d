"""ASGI middleware of the API: the request body limit per route and CORS from the settings."""

from __future__ import annotations

from fastapi.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from functions.api.params import IMPORT_PATH
from session_scoring.container import get_container

MAX_BODY_BYTES = 4096


def body_limit(path: str) -> int:
    """Largest request body per route (read on the request, never at import): the import limit for uploads,
    MAX_BODY_BYTES for everything else. ``limits.BodyLimit`` enforces it on the bytes received."""
    return get_container().settings.import_max_bytes if path == IMPORT_PATH else MAX_BODY_BYTES


class ConfiguredCORS:
    """CORS for the origins in SCORING_CORS_ORIGINS (comma-separated; none: no CORS headers at all).

    Settings are read on the first request, never at import; the middleware is rebuilt only if they change. Behind
    API Gateway the HTTP API's own CORS configuration answers browsers first (template.yaml sets both from the same
    parameter), so this matters for the local run and any deployment without API Gateway.
    """

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
                    allow_methods=["GET", "POST", "OPTIONS"],
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
    """Counts every API request by route template, method and status class (the ``ApiRequests`` metric). Paths that
    are not API routes (the dashboard, its assets) are counted under ``other``: a raw path per dimension would make
    one metric per session."""

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
            # Imported on the first request, not with the app: Powertools' metrics are not needed to build it.
            from session_scoring.observability import record_api_request

            route = scope.get("route")
            template = getattr(route, "path", None)
            if not isinstance(template, str) or not template.startswith(("/api/", "/health")):
                template = "other"
            record_api_request(template, str(scope.get("method", "GET")), status)
