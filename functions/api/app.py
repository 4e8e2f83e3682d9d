"""The request Lambda: the scoring REST API (FastAPI), served through Mangum behind API Gateway.

This module only assembles the app: one router per resource (``routers/``), the error handlers (``errors.py``, the
one place that maps errors to HTTP status codes), the middleware, and the dashboard last so it never shadows an
API route. Every log line of a request carries the API Gateway request id as its correlation id.

Importing this module builds the app and nothing else of the service (a short cold init): Powertools' logger, the
settings and the container are imported by the first invocation, or before a SnapStart snapshot by the priming
hook registered here (``entrypoints/snapstart.py``). The routers, and with them the API's models, are imported and
included when a request is first matched against them (``lazy_routers.py``), or by priming.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import redirect_stdout
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from fastapi import Depends, FastAPI
from mangum import Mangum

from functions.api.blocking import one_request_per_loop
from functions.api.dashboard import mount_dashboard
from functions.api.deps import authenticated
from functions.api.errors import document_error_body, install_error_handlers
from functions.api.lazy_routers import LazilyRoutedAPI, include_lazily
from functions.api.limits import BodyLimit
from functions.api.middleware import ConfiguredCORS, RejectNulCharacters, RequestMetrics, body_limit
from functions.api.params import API_PREFIX
from session_scoring import __version__
from session_scoring.entrypoints.snapstart import register_priming

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

LambdaHandler = Callable[[dict[str, Any], "LambdaContext"], dict[str, Any]]


class ScoringAPI(LazilyRoutedAPI):
    """FastAPI whose OpenAPI document, built when first asked for, carries ``ErrorBody``'s schema: the routes refer
    to it without making FastAPI build a model field per error status (``errors.error_response``)."""

    def openapi(self) -> dict[str, Any]:
        return document_error_body(super().openapi())


ROUTERS = tuple(
    f"functions.api.routers.{name}"
    for name in ("scores", "sessions", "criteria", "analytics", "imports", "runs", "insights", "exports", "labels")
)
"""The API's routers in the order a request is matched against them (each behind the authentication check)."""

PUBLIC_ROUTERS = ("functions.api.routers.health",)
"""Routers outside the API prefix and without the authentication check, matched after ``ROUTERS``."""


def create_app() -> FastAPI:
    app = ScoringAPI(
        title="Session Scoring API",
        version=__version__,
        description="Scores completed TARSy investigations with a judge LLM. Scoring is asynchronous: POST queues "
        "an attempt (202) and GET polls it until it is completed or failed.",
    )
    # The first added runs last: NUL characters are looked for once the body limit has read (or refused) the body.
    app.add_middleware(RejectNulCharacters)
    app.add_middleware(BodyLimit, limit_for=body_limit)
    app.add_middleware(ConfiguredCORS)
    app.add_middleware(RequestMetrics)
    install_error_handlers(app)
    # Included on first use (lazy_routers.py): building the routes is most of the app's cold init.
    include_lazily(app, ROUTERS, dependencies=[Depends(authenticated)])
    include_lazily(app, PUBLIC_ROUTERS)
    mount_dashboard(app)
    return app


app = create_app()
_mangum = Mangum(app, lifespan="off")


@cache
def logged_handler() -> LambdaHandler:
    """The Mangum adapter inside Powertools' Lambda-context logging (the request id as correlation id), built on
    the first invocation or by priming: importing Powertools' logger is not needed to build the app."""
    from aws_lambda_powertools.logging import correlation_paths
    from aws_lambda_powertools.utilities import jmespath_utils

    from session_scoring.log import logger

    @logger.inject_lambda_context(correlation_id_path=correlation_paths.API_GATEWAY_HTTP, clear_state=True)
    def serve(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
        with one_request_per_loop():
            return _mangum(event, context)  # type: ignore[arg-type]

    jmespath_utils.query(data={}, envelope=correlation_paths.API_GATEWAY_HTTP)  # parsed once, here, not per cold start
    return serve


def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return logged_handler()(event, context)


def build_routes() -> None:
    """Include every router and build its routes as FastAPI builds them for the first request that walks through
    them (a warm-up).

    The routers are included on first use (``lazy_routers.py``), and FastAPI builds an included router's routes
    lazily too, each again with the app's dependencies (its parameters' model fields and its handler), when a
    request's path is first matched against that router: about 40 ms of a first request here. Matching a path that
    is no API route walks through every router and does both; nothing is called, no I/O."""
    scope = {"type": "http", "method": "GET", "path": "/api/v1/scoring/-", "root_path": "", "headers": []}
    for route in app.router.routes:
        route.matches(scope)


def build_request_path() -> None:
    """Build what Starlette and FastAPI otherwise build on the first request: the middleware stack, and the source
    lines of each endpoint in Python's cache (FastAPI locates an endpoint's source on its first call, for its error
    context: reading the file is about half of that here, the rest is paid by each endpoint's first call; the GET
    a rehearsal serves has paid it all). No request is served, no I/O but reading our own sources."""
    import inspect
    from importlib import import_module

    from fastapi.routing import APIRoute

    app.middleware_stack = app.build_middleware_stack()
    for module in (*ROUTERS, *PUBLIC_ROUTERS):
        for route in import_module(module).router.routes:
            if isinstance(route, APIRoute):
                inspect.getsourcelines(route.endpoint)


def connect_for_reads() -> None:
    """Open the pool's connection, run the GET's statement on it, and shape one answer (after a SnapStart restore:
    the first request then runs as a warm one)."""
    from functions.api.responses import json_response
    from session_scoring.container import get_container

    score = get_container().scoring_service.warm_up()
    if score is not None:
        json_response(score)


NEVER_SCORED = "never-scored-warm-up"
"""The session a warm-up request asks for when nothing has been scored yet (its answer is the 404 path)."""


def rehearse_a_read() -> None:
    """Serve one GET of the score of the session scored last (the 404 path before the first score; 401 when
    authentication is required) through the app, in the main thread (Mangum's event loop), with its ``ApiRequests``
    line discarded: no client sent it (a GET logs nothing). Powertools' context logging is left out, so the first
    client request is still the one logged as the cold start. Priming runs it several times before a SnapStart
    snapshot: every code path a GET runs (Mangum's cycle, the middleware and metrics, the route's dependencies, the
    read, the response) has then run in the snapshot."""
    from session_scoring.container import get_container

    session_id = get_container().scoring_service.last_scored_session() or NEVER_SCORED
    path = f"{API_PREFIX}/sessions/{quote(session_id, safe='')}/score"
    event = {  # shaped as API Gateway's HTTP API delivers a GET (template.yaml), without any identity
        "version": "2.0",
        "routeKey": "ANY /api/{proxy+}",
        "rawPath": path,
        "rawQueryString": "",
        "headers": {
            "accept": "application/json",
            "host": "warm-up",
            "user-agent": "warm-up",
            "x-forwarded-proto": "https",
        },
        "requestContext": {
            "domainName": "warm-up",
            "http": {
                "method": "GET",
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": "warm-up",
            },
            "requestId": "warm-up",
            "routeKey": "ANY /api/{proxy+}",
            "stage": "$default",
        },
        "isBase64Encoded": False,
        "pathParameters": {"proxy": path.removeprefix("/api/")},
    }
    with redirect_stdout(io.StringIO()), one_request_per_loop():
        _mangum(event, None)  # type: ignore[arg-type]


WARM_UPS = (logged_handler, build_routes, build_request_path)
"""What priming runs after building the container's services, no I/O (``entrypoints/snapstart.prime``)."""

REHEARSALS = (rehearse_a_read,)
"""What priming then runs a few times with a database connection, closed before the snapshot."""

CONNECT_UPS = (connect_for_reads,)
"""What runs after a SnapStart restore, before the first request (``entrypoints/snapstart.reconnect``)."""

register_priming(*WARM_UPS, rehearsals=REHEARSALS, connect_ups=CONNECT_UPS)
