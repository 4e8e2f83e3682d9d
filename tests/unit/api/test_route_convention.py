"""Every route of the API follows the one route convention (docs/architecture.md, "Routes").

A route is ``async def``, as is every dependency it runs: behind Mangum a ``def`` route or dependency starts a worker
thread per request (``functions/api/blocking.py``). It answers with a ``Response`` it built (``json_response`` or
``streamed_response``), never a model FastAPI would validate and serialise again. A new route that breaks either
fails here, naming it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from importlib import import_module
from typing import Any

from fastapi import Response
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from functions.api.app import create_app
from functions.api.lazy_routers import LazyRouter


def api_routes() -> Iterator[tuple[APIRoute, list[Callable[..., Any]]]]:
    """Each route of the app with the dependencies its router is included with (the routers' modules are imported,
    not included: the app stays as it was built)."""
    for route in create_app().router.routes:
        if isinstance(route, LazyRouter):
            included = [depends.dependency for depends in route.dependencies if depends.dependency is not None]
            for inner in import_module(route.module).router.routes:
                assert isinstance(inner, APIRoute), f"{route.module}: {inner!r} is not an APIRoute"
                yield inner, included
        elif isinstance(route, APIRoute):  # the dashboard's
            yield route, []


def calls(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    for dependency in dependant.dependencies:
        if dependency.call is not None:
            yield dependency.call
        yield from calls(dependency)


def name(route: APIRoute) -> str:
    return f"{','.join(sorted(route.methods))} {route.path} ({route.endpoint.__module__}.{route.endpoint.__name__})"


def test_every_route_and_every_dependency_it_runs_is_async() -> None:
    blocking = [
        f"{name(route)}: {call.__qualname__}"
        for route, included in api_routes()
        for call in (route.endpoint, *included, *calls(route.dependant))
        if not inspect.iscoroutinefunction(call)
    ]
    assert blocking == [], "plain def (a worker thread per request behind Mangum): make it async def, see blocking.py"


def test_every_route_answers_a_response_it_built() -> None:
    answering_models = [
        name(route)
        for route, _ in api_routes()
        if not (
            inspect.isclass(annotation := inspect.signature(route.endpoint, eval_str=True).return_annotation)
            and issubclass(annotation, Response)
        )
    ]
    assert answering_models == [], "return json_response(...) or streamed_response(...) (functions/api/responses.py)"


def test_the_walk_sees_every_route_of_the_openapi_document() -> None:
    documented = {(method.upper(), path) for path, item in create_app().openapi()["paths"].items() for method in item}
    walked = {(method, route.path) for route, _ in api_routes() if route.include_in_schema for method in route.methods}
    assert walked == documented
