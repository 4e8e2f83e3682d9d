"""Every route declares the role it needs, in one table (``functions/api/route_roles.py``), and one dependency enforces
it on every router: a route added without a role fails here, naming it, and is refused at run time until it has one.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module
from types import SimpleNamespace
from typing import get_args

from fastapi import APIRouter, Depends, FastAPI, Response
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from functions.api import deps
from functions.api.app import ROUTERS, create_app
from functions.api.errors import install_error_handlers
from functions.api.lazy_routers import LazyRouter
from functions.api.route_roles import ROUTE_ROLES, RouteAccess
from session_scoring.models.access import Role
from session_scoring.services.access import AUTHENTICATED, PUBLIC, AccessPolicy


def router_routes(app: FastAPI) -> Iterator[tuple[LazyRouter, APIRoute]]:
    """Each route of each router the app includes (imported, not included: the app stays as it was built)."""
    for route in app.router.routes:
        if isinstance(route, LazyRouter):
            for inner in import_module(route.module).router.routes:
                assert isinstance(inner, APIRoute)
                yield route, inner


def undeclared(routes: Iterator[tuple[LazyRouter, APIRoute]]) -> list[str]:
    return sorted(
        f"{method} {route.path} ({route.endpoint.__module__}.{route.endpoint.__name__})"
        for _, route in routes
        for method in route.methods
        if (method, route.path) not in ROUTE_ROLES
    )


def test_every_route_of_every_router_declares_its_role() -> None:
    assert undeclared(router_routes(create_app())) == [], "add the route to ROUTE_ROLES in functions/api/route_roles.py"


def test_every_declared_role_is_of_a_route_that_exists() -> None:
    served = {(method, route.path) for _, route in router_routes(create_app()) for method in route.methods}
    assert sorted(set(ROUTE_ROLES) - served) == []


def test_every_router_is_included_with_the_authorization_dependency() -> None:
    app = create_app()
    routers = [route for route in app.router.routes if isinstance(route, LazyRouter)]

    assert [router.module for router in routers] == list(ROUTERS)
    for router in routers:
        assert [depends.dependency for depends in router.dependencies] == [deps.authorized], router.module


def test_no_api_route_is_added_outside_a_router() -> None:
    """Only the dashboard's catch-alls (matched last, they serve pages and 404/405s) are routes of the app itself:
    a route added there would skip the routers' authorization."""
    app = create_app()
    direct = sorted(route.endpoint.__name__ for route in app.router.routes if isinstance(route, APIRoute))
    assert direct == ["dashboard", "not_a_page"]


def test_the_requirements_are_the_roles_and_the_two_kinds_of_open_route() -> None:
    assert set(get_args(RouteAccess)) == {PUBLIC, AUTHENTICATED, *(role.value for role in Role)}


def _policy(method: str, path: str) -> RouteAccess:
    """The roles as defined (viewer reads, labeller labels and sets a session's known root cause, operator scores,
    imports and runs, admin exports training data), stated independently of the table."""
    if path == "/health":
        return "public"
    if path == "/api/v1/scoring/me":
        return "authenticated"
    if path.startswith("/api/v1/scoring/exports/"):
        return "admin"
    if method == "GET":
        return "viewer"
    if path.endswith(("/labels", "/labels/reference")):
        return "labeller"
    return "operator"


def test_the_table_gives_each_route_the_role_its_action_needs() -> None:
    assert {key: _policy(*key) for key in ROUTE_ROLES} == ROUTE_ROLES


def test_the_openapi_document_states_each_routes_role_and_its_401_and_403() -> None:
    document = create_app().openapi()
    operations = {
        (method.upper(), path): operation
        for path, item in document["paths"].items()
        for method, operation in item.items()
    }

    assert {key: op["x-required-role"] for key, op in operations.items()} == ROUTE_ROLES
    runs = operations[("POST", "/api/v1/scoring/runs")]
    assert set(runs["responses"]) >= {"401", "403"}
    assert runs["description"].endswith("Needs the operator role (or admin).")
    assert "401" not in operations[("GET", "/health")]["responses"]
    assert "403" not in operations[("GET", "/api/v1/scoring/me")]["responses"]
    assert document == create_app().openapi() == create_app().openapi()  # building it again changes nothing


# A router with a route the table does not know, as a helper adding a route might write it.
forgotten = APIRouter(prefix="/api/v1/scoring")


@forgotten.get("/forgotten")
async def forgotten_route() -> Response:
    return Response("served to anyone")


def test_a_route_added_without_a_role_fails_the_walk_and_is_refused_at_run_time() -> None:
    app = FastAPI()
    lazy = LazyRouter(app, __name__, dependencies=[Depends(deps.authorized)])
    app.router.routes.append(lazy)
    policy = AccessPolicy(enforced=True, trust_proxy=True, role_claim="groups", role_map={})
    app.dependency_overrides[deps.container] = lambda: SimpleNamespace(access_policy=policy)

    assert undeclared(iter([(lazy, route) for route in forgotten.routes if isinstance(route, APIRoute)])) == [
        f"GET /api/v1/scoring/forgotten ({__name__}.forgotten_route)"
    ]
    install_error_handlers(app)
    with TestClient(app) as client:
        answer = client.get(
            "/api/v1/scoring/forgotten", headers={"X-Forwarded-User": "a", "X-Forwarded-Groups": "admin"}
        )

    assert answer.status_code == 500
    assert answer.json()["code"] == "configuration_error"
    assert "route_roles.py" in answer.json()["detail"]


router = forgotten
"""What ``LazyRouter`` imports from this module."""
