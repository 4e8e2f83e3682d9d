"""SnapStart priming of the API function: the hooks ``entrypoints/snapstart.py`` runs before the snapshot (build what
a first request would, then rehearse a GET) and after a restore (connect); ``app.py`` registers them at import.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import redirect_stdout
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote

from functions.api.blocking import one_request_per_loop
from functions.api.params import API_PREFIX
from session_scoring.entrypoints.snapstart import register_priming

if TYPE_CHECKING:
    from fastapi import FastAPI
    from mangum import Mangum

Hook = Callable[[], object]

NEVER_SCORED = "never-scored-warm-up"
"""The session a warm-up request asks for when nothing has been scored yet (its answer is the 404 path)."""


class ApiPriming(NamedTuple):
    warm_ups: tuple[Hook, ...]
    """Run after the container's services are built, no I/O (``entrypoints/snapstart.prime``)."""
    rehearsals: tuple[Hook, ...]
    """Then run a few times with a database connection, closed before the snapshot."""
    connect_ups: tuple[Hook, ...]
    """Run after a restore, before the first request (``entrypoints/snapstart.reconnect``)."""


def api_priming(app: FastAPI, adapter: Mangum, build_handler: Hook, routers: tuple[str, ...]) -> ApiPriming:
    """The hooks of ``app``, served through ``adapter`` by the handler ``build_handler`` builds (a warm-up too),
    registered with the Lambda runtime (nothing outside it); ``routers`` are the modules of its routers."""
    priming = ApiPriming(
        warm_ups=(build_handler, partial(build_routes, app), partial(build_request_path, app, routers)),
        rehearsals=(partial(rehearse_a_read, adapter),),
        connect_ups=(connect_for_reads,),
    )
    register_priming(*priming.warm_ups, rehearsals=priming.rehearsals, connect_ups=priming.connect_ups)
    return priming


def build_routes(app: FastAPI) -> None:
    """Include every router (``lazy_routers.py``) and build its routes, as FastAPI does when a request's path is
    first matched against them: matching a path that is no API route does both, calling nothing, no I/O."""
    scope = {"type": "http", "method": "GET", "path": f"{API_PREFIX}/-", "root_path": "", "headers": []}
    for route in app.router.routes:
        route.matches(scope)


def build_request_path(app: FastAPI, routers: tuple[str, ...]) -> None:
    """Build what Starlette and FastAPI otherwise build on the first request: the middleware stack, and each
    endpoint's source lines in Python's cache (FastAPI reads them on its first call, for its error context)."""
    import inspect
    from importlib import import_module

    from fastapi.routing import APIRoute

    app.middleware_stack = app.build_middleware_stack()
    for module in routers:
        for route in import_module(module).router.routes:
            if isinstance(route, APIRoute):
                inspect.getsourcelines(route.endpoint)


def rehearse_a_read(adapter: Mangum) -> None:
    """Serve one GET of the score of the session scored last (the 404 path before the first score) through Mangum,
    so a GET's code has run in the snapshot; its ``ApiRequests`` line is discarded (no client sent it)."""
    from session_scoring.container import get_container

    session_id = get_container().scoring_service.last_scored_session() or NEVER_SCORED
    event = api_gateway_get(f"{API_PREFIX}/sessions/{quote(session_id, safe='')}/score")
    with redirect_stdout(io.StringIO()), one_request_per_loop():
        adapter(event, None)  # type: ignore[arg-type]


def api_gateway_get(path: str) -> dict[str, Any]:
    """A GET of ``path`` shaped as API Gateway's HTTP API delivers it (template.yaml), without any identity."""
    headers = {"accept": "application/json", "host": "warm-up", "user-agent": "warm-up", "x-forwarded-proto": "https"}
    http = {"method": "GET", "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1", "userAgent": "warm-up"}
    route = "ANY /api/{proxy+}"
    context = {"domainName": "warm-up", "http": http, "requestId": "warm-up", "routeKey": route, "stage": "$default"}
    return {
        "version": "2.0",
        "routeKey": route,
        "rawPath": path,
        "rawQueryString": "",
        "headers": headers,
        "requestContext": context,
        "isBase64Encoded": False,
        "pathParameters": {"proxy": path.removeprefix("/api/")},
    }


def connect_for_reads() -> None:
    """Open the pool's connection, run the GET's statement on it, and shape one answer (after a SnapStart restore:
    the first request then runs as a warm one)."""
    from functions.api.responses import json_response
    from session_scoring.container import get_container

    score = get_container().scoring_service.warm_up()
    if score is not None:
        json_response(score)
