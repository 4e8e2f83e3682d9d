"""The request Lambda: the scoring REST API (FastAPI), served through Mangum behind API Gateway.

This module only assembles the app (routers, error handlers, middleware, the dashboard last). Importing it builds
nothing else (a short cold init): the logger, settings and container come with the first invocation or the SnapStart
priming (``priming.py``), the routers when a request is first matched against them (``lazy_routers.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from fastapi import Depends, FastAPI
from mangum import Mangum

from functions.api.blocking import one_request_per_loop
from functions.api.dashboard import mount_dashboard
from functions.api.deps import authorized
from functions.api.errors import document_error_body, install_error_handlers
from functions.api.lazy_routers import LazilyRoutedAPI, include_lazily
from functions.api.limits import BodyLimit
from functions.api.middleware import ConfiguredCORS, HeadAsGet, RejectNulCharacters, RequestMetrics, SecurityHeaders
from functions.api.priming import api_priming
from functions.api.route_roles import document_roles
from session_scoring import __version__

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.typing import LambdaContext

LambdaHandler = Callable[[dict[str, Any], "LambdaContext"], dict[str, Any]]


class ScoringAPI(LazilyRoutedAPI):
    """FastAPI whose OpenAPI document carries ``ErrorBody``'s schema (``errors.error_response``) and each route's
    required role (``route_roles.py``)."""

    def openapi(self) -> dict[str, Any]:
        return document_error_body(document_roles(super().openapi()))


ROUTERS = tuple(
    f"functions.api.routers.{name}"
    for name in (
        "scores",
        "sessions",
        "criteria",
        "analytics",
        "imports",
        "runs",
        "insights",
        "exports",
        "labels",
        "me",
        "health",
    )
)
"""The API's routers in the order a request is matched against them."""


def create_app() -> FastAPI:
    app = ScoringAPI(
        title="Session Scoring API",
        version=__version__,
        description="Scores completed TARSy investigations with a judge LLM. Scoring is asynchronous: POST queues "
        "an attempt (202) and GET polls it until it is completed or failed.",
    )
    # The first added runs last: NUL characters are looked for once the body limit has read (or refused) the body.
    app.add_middleware(HeadAsGet)
    app.add_middleware(RejectNulCharacters)
    app.add_middleware(BodyLimit)
    app.add_middleware(ConfiguredCORS)
    app.add_middleware(RequestMetrics)
    app.add_middleware(SecurityHeaders)  # outermost: every answer, the other middleware's refusals included
    install_error_handlers(app)
    # Every route is authorized by the one dependency, from the role route_roles.py declares for it.
    include_lazily(app, ROUTERS, dependencies=[Depends(authorized)])
    mount_dashboard(app)
    return app


app = create_app()
_mangum = Mangum(app, lifespan="off")


@cache
def logged_handler() -> LambdaHandler:
    """The Mangum adapter inside Powertools' Lambda-context logging (the request id as correlation id), built on
    the first invocation or by priming."""
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


PRIMING = api_priming(app, _mangum, logged_handler, ROUTERS)
"""SnapStart's hooks for this app (``priming.py``), registered at import."""
