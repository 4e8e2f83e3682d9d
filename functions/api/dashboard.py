"""Serves the built dashboard (``functions/api/static``, written by ``vite build``) at ``/``, same origin as the API.

Hashed assets come from ``/assets``; any other GET that is not the API, the docs or the health check gets
``index.html`` so the dashboard's client-side routes (``/sessions/<id>``, ``/analytics``) survive a reload.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parent / "static"
RESERVED_PREFIXES = ("api/", "docs", "redoc", "openapi.json", "health")


def mount_dashboard(app: FastAPI, static_dir: Path = STATIC_DIR) -> None:
    """Register the dashboard routes last, so they never shadow an API route."""
    app.mount("/assets", StaticFiles(directory=static_dir / "assets", check_dir=False), name="dashboard-assets")

    @app.api_route("/{path:path}", methods=["POST", "PUT", "PATCH", "DELETE"], include_in_schema=False)
    def not_a_page(path: str) -> Response:
        """Only GET serves pages; another method on a path that is not the API's is simply not found."""
        if path == "api" or path.startswith(RESERVED_PREFIXES):
            return JSONResponse(status_code=405, content={"code": "method_not_allowed", "detail": "Method Not Allowed"})
        return JSONResponse(status_code=404, content={"code": "not_found", "detail": f"no route /{path}"})

    @app.get("/{path:path}", include_in_schema=False)
    def dashboard(path: str) -> Response:
        if path == "api" or path.startswith(RESERVED_PREFIXES):
            return JSONResponse(status_code=404, content={"code": "not_found", "detail": f"no route /{path}"})
        index = static_dir / "index.html"
        if not index.is_file():
            return JSONResponse(
                status_code=404,
                content={
                    "code": "dashboard_not_built",
                    "detail": "the dashboard is not built; run `make dashboard` (or `make run`, which builds it)",
                },
            )
        candidate = (static_dir / path).resolve()
        if path and candidate.is_file() and candidate.is_relative_to(static_dir.resolve()):
            return FileResponse(candidate)
        return FileResponse(index, headers={"Cache-Control": "no-cache"})
