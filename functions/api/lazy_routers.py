"""Routers included on first use: the API's cold init builds no route (declaring the routes and importing the models
they answer with is nearly all of it beyond a bare FastAPI app's).

A :class:`LazyRouter` holds the place of one router module in the app's route list. The first time a request is
matched against it (or a URL is built, or the OpenAPI document is asked for), it includes the module's ``router``
exactly as ``app.include_router`` does and puts the route FastAPI appended for it in its place. That FastAPI appends
one route per included router is its behaviour, not its documented API: pyproject.toml pins the version that does,
and any other count is a loud error on first use (``tests/unit/api/test_lazy_routers.py``). A request loads the
routers up to the one that answers it; a path that no router answers (a dashboard page) loads them all, as does
priming.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from importlib import import_module
from typing import Any

from fastapi import FastAPI
from fastapi.params import Depends
from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send

_LOADING = threading.Lock()
"""One router loads at a time (each appends to, then rearranges, the app's route list)."""


class LazyRouter(BaseRoute):
    """The place of ``module``'s ``router`` (an ``APIRouter``) in ``app``'s routes until it is first needed."""

    def __init__(self, app: FastAPI, module: str, dependencies: Sequence[Depends] = ()) -> None:
        self._app = app
        self.module = module
        self.dependencies = list(dependencies)
        self._included: BaseRoute | None = None

    def __repr__(self) -> str:
        return f"LazyRouter({self.module!r}, loaded={self.loaded})"

    @property
    def loaded(self) -> bool:
        return self._included is not None

    def load(self) -> BaseRoute:
        """Import the module, include its router with ``app.include_router`` and take the place it was given."""
        with _LOADING:
            if self._included is None:
                router = import_module(self.module).router
                routes = self._app.router.routes
                before = len(routes)
                self._app.include_router(router, dependencies=self.dependencies)
                appended = routes[before:]
                if len(appended) != 1:
                    raise RuntimeError(
                        f"include_router added {len(appended)} routes for {self.module}, where this FastAPI "
                        "version adds one: lazy inclusion needs updating for it"
                    )
                del routes[before:]
                routes[routes.index(self)] = included = appended[0]  # in this placeholder's place
                self._included = included
            return self._included

    @property
    def original_router(self) -> Any:
        """The module's router, as FastAPI's included router names it (loads it): what inspects the routes of
        included routers (the NUL check naming a path parameter) sees through this placeholder."""
        return getattr(self.load(), "original_router", None)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        return self.load().matches(scope)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.load().handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> Any:
        return self.load().url_path_for(name, **path_params)


class LazilyRoutedAPI(FastAPI):
    """A FastAPI app whose OpenAPI document includes the routers still waiting first (it documents every route)."""

    def openapi(self) -> dict[str, Any]:
        load_all(self)
        return super().openapi()


def include_lazily(app: FastAPI, modules: Sequence[str], dependencies: Sequence[Depends] = ()) -> None:
    """Add a :class:`LazyRouter` for each module's ``router``, in order, after the app's routes so far."""
    app.router.routes.extend(LazyRouter(app, module, dependencies) for module in modules)


def load_all(app: FastAPI) -> None:
    """Include every router still waiting (the OpenAPI document and priming need them all)."""
    for route in list(app.router.routes):
        if isinstance(route, LazyRouter):
            route.load()
