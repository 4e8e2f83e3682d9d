"""Serves the built dashboard (``functions/api/static``, written by ``vite build``) at ``/``, same origin as the API.

Hashed assets come from ``/assets``; any other GET that is not the API, the docs or the health check gets
``index.html`` so client-side routes survive a reload. Matched last, the catch-all routes also answer a method no
other route serves at a path: 405 naming the methods served there, or 404 when none is.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException
from starlette.routing import Match
from starlette.types import Scope

from functions.api.errors import error_answer

STATIC_DIR = Path(__file__).resolve().parent / "static"
RESERVED_PREFIXES = ("api/", "docs", "redoc", "openapi.json", "health")
"""The API's, the docs' and the health check's paths (and ``api`` itself): never a dashboard page."""
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE")
"""The methods a 405's ``Allow`` header may name."""


class DashboardAssets(StaticFiles):
    """The built assets; another method than GET or HEAD is a 405 that says which are allowed."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if scope["method"] not in ("GET", "HEAD"):
            raise HTTPException(status_code=405, headers={"Allow": "GET, HEAD"})
        return await super().get_response(path, scope)


def mount_dashboard(app: FastAPI, static_dir: Path = STATIC_DIR) -> None:
    """Register the dashboard routes last, so they never shadow an API route."""
    app.mount("/assets", DashboardAssets(directory=static_dir / "assets", check_dir=False), name="dashboard-assets")

    @app.api_route("/{path:path}", methods=["POST", "PUT", "PATCH", "DELETE", "OPTIONS"], include_in_schema=False)
    async def not_a_page(path: str, request: Request) -> Response:
        """Only GET serves pages; another method is a 405 where another route serves the path, else a 404."""
        return _method_not_served(request, exclude=(not_a_page, dashboard))

    @app.api_route("/{path:path}", methods=["GET", "HEAD"], include_in_schema=False)
    async def dashboard(path: str, request: Request) -> Response:
        if path == "api" or path.startswith(RESERVED_PREFIXES):
            return _method_not_served(request, exclude=(not_a_page, dashboard))
        index = static_dir / "index.html"
        if not index.is_file():
            detail = "the dashboard is not built; run `make dashboard` (or `make run`, which builds it)"
            return error_answer(404, "dashboard_not_built", detail)
        candidate = (static_dir / path).resolve()
        if path and candidate.is_file() and candidate.is_relative_to(static_dir.resolve()):
            return FileResponse(candidate)
        return FileResponse(index, headers={"Cache-Control": "no-cache"})


def _method_not_served(request: Request, exclude: tuple[object, ...]) -> Response:
    """405 naming the methods served at the path, else 404; neither echoes the path (a reflection to abuse)."""
    allowed = served_methods(request, exclude)
    if not allowed:
        return error_answer(404, "not_found", "no such route")
    detail = f"{request.method} is not served at this path; use {' or '.join(allowed)}"
    return error_answer(405, "method_not_allowed", detail, {"Allow": ", ".join(allowed)})


def served_methods(request: Request, exclude: tuple[object, ...] = ()) -> list[str]:
    """The methods some route of the app serves at the request's path, leaving out the routes whose endpoint is in
    ``exclude`` and mounted apps (the assets answer their own 405)."""
    routes = [
        route
        for route in request.app.router.routes
        if getattr(route, "endpoint", None) not in exclude and getattr(route, "name", None) != "dashboard-assets"
    ]
    return [
        method
        for method in METHODS
        if any(route.matches({**request.scope, "method": method})[0] == Match.FULL for route in routes)
    ]
