"""SnapStart priming of the API function: what its before-snapshot hook builds and rehearses, and what its
after-restore hook connects. ``entrypoints/snapstart.py`` runs them; ``app.py`` registers them at import (nothing is
registered outside the Lambda runtime, and nothing runs unless SCORING_SNAPSTART is on).

The warm-ups build, without I/O, what the first request would: Powertools' context logging, the routers (included on
first use, ``lazy_routers.py``) and their routes, the middleware stack. The rehearsal then serves a GET through the
app several times with a database connection, so the snapshot holds code that has run every step of a warm GET; the
connection is closed before the snapshot. After a restore, the pool's connection is opened and the GET's statement
run before the first request arrives.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from functions.api.blocking import one_request_per_loop
from functions.api.params import API_PREFIX
from session_scoring.entrypoints.snapstart import register_priming

if TYPE_CHECKING:
    from fastapi import FastAPI
    from mangum import Mangum

NEVER_SCORED = "never-scored-warm-up"
"""The session a warm-up request asks for when nothing has been scored yet (its answer is the 404 path)."""


@dataclass(frozen=True)
class ApiPriming:
    """The priming hooks of ``app``, served through ``adapter`` by the handler ``build_handler`` builds; ``routers``
    are the modules of the app's routers."""

    app: FastAPI
    adapter: Mangum
    build_handler: Callable[[], object]
    routers: tuple[str, ...]

    @property
    def warm_ups(self) -> tuple[Callable[[], object], ...]:
        """What priming runs after building the container's services, no I/O (``entrypoints/snapstart.prime``)."""
        return (self.build_handler, self.build_routes, self.build_request_path)

    @property
    def rehearsals(self) -> tuple[Callable[[], object], ...]:
        """What priming then runs a few times with a database connection, closed before the snapshot."""
        return (self.rehearse_a_read,)

    @property
    def connect_ups(self) -> tuple[Callable[[], object], ...]:
        """What runs after a SnapStart restore, before the first request (``entrypoints/snapstart.reconnect``)."""
        return (connect_for_reads,)

    def register(self) -> bool:
        """Register the hooks with the Lambda runtime; False outside it."""
        return register_priming(*self.warm_ups, rehearsals=self.rehearsals, connect_ups=self.connect_ups)

    def build_routes(self) -> None:
        """Include every router and build its routes as FastAPI builds them for the first request that walks through
        them.

        FastAPI builds an included router's routes lazily, each again with the app's dependencies (its parameters'
        model fields and its handler), when a request's path is first matched against that router: about 40 ms of a
        first request here. Matching a path that is no API route walks through every router (including each) and
        does both; nothing is called, no I/O."""
        scope = {"type": "http", "method": "GET", "path": f"{API_PREFIX}/-", "root_path": "", "headers": []}
        for route in self.app.router.routes:
            route.matches(scope)

    def build_request_path(self) -> None:
        """Build the middleware stack and put the source lines of each endpoint in Python's cache (FastAPI locates an
        endpoint's source on its first call, for its error context: reading the file is about half of that here, the
        rest is paid by each endpoint's first call; the GET a rehearsal serves has paid it all). No request is
        served, no I/O but reading our own sources."""
        import inspect
        from importlib import import_module

        from fastapi.routing import APIRoute

        self.app.middleware_stack = self.app.build_middleware_stack()
        for module in self.routers:
            for route in import_module(module).router.routes:
                if isinstance(route, APIRoute):
                    inspect.getsourcelines(route.endpoint)

    def rehearse_a_read(self) -> None:
        """Serve one GET of the score of the session scored last (the 404 path before the first score; 401 when
        authentication is required) through the app, on the main thread (Mangum's event loop), with its
        ``ApiRequests`` line discarded: no client sent it. Powertools' context logging is left out, so the first
        client request is still the one logged as the cold start."""
        from session_scoring.container import get_container

        session_id = get_container().scoring_service.last_scored_session() or NEVER_SCORED
        event = get_event(f"{API_PREFIX}/sessions/{quote(session_id, safe='')}/score")
        with redirect_stdout(io.StringIO()), one_request_per_loop():
            self.adapter(event, None)  # type: ignore[arg-type]


def get_event(path: str) -> dict[str, Any]:
    """A GET of ``path`` shaped as API Gateway's HTTP API delivers it (template.yaml), without any identity."""
    return {
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


def connect_for_reads() -> None:
    """Open the pool's connection, run the GET's statement on it, and shape one answer (after a SnapStart restore:
    the first request then runs as a warm one)."""
    from functions.api.responses import json_response
    from session_scoring.container import get_container

    score = get_container().scoring_service.warm_up()
    if score is not None:
        json_response(score)
