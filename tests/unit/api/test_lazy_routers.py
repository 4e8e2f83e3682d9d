"""Routers included on first use answer exactly as routers included at once (``functions/api/lazy_routers.py``).

Two routers whose paths overlap are served by a lazily built app and by the same routers included eagerly: same
answers (the first router in order wins), same 405 for a method only another route has, same dependencies, same
OpenAPI document; and a request loads only the routers it is matched against.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from types import ModuleType

import pytest
from fastapi import APIRouter, Depends, FastAPI, Header, HTTPException
from fastapi.testclient import TestClient
from pydantic import BaseModel

from functions.api.lazy_routers import LazilyRoutedAPI, LazyRouter, include_lazily, load_all

FIRST, SECOND = "tests_lazy_router_first", "tests_lazy_router_second"


class Item(BaseModel):
    item_id: str
    served_by: str


def _routers() -> tuple[APIRouter, APIRouter]:
    first, second = APIRouter(prefix="/items"), APIRouter(prefix="/items")

    @first.get("/{item_id}", response_model=Item, summary="One item")
    def item(item_id: str) -> Item:
        return Item(item_id=item_id, served_by="first")

    @second.get("/special/list", response_model=list[Item])
    def special() -> list[Item]:
        return [Item(item_id="special", served_by="second")]

    @second.get("/special", response_model=Item)  # shadowed by the first router's /{item_id}, as when eager
    def shadowed() -> Item:
        return Item(item_id="special", served_by="second")

    @second.post("/{item_id}", response_model=Item, status_code=201)
    def create(item_id: str) -> Item:
        return Item(item_id=item_id, served_by="second")

    return first, second


async def _key(x_key: str = Header("")) -> None:
    if x_key != "open":
        raise HTTPException(status_code=401, detail="no key")


@pytest.fixture
def modules() -> Iterator[None]:
    """The two routers as importable modules (a LazyRouter imports its router by module name)."""
    for name, router in zip((FIRST, SECOND), _routers(), strict=True):
        module = ModuleType(name)
        module.router = router  # type: ignore[attr-defined]
        sys.modules[name] = module
    yield
    for name in (FIRST, SECOND):
        sys.modules.pop(name, None)


def _lazy_app() -> FastAPI:
    app = LazilyRoutedAPI(title="items")
    include_lazily(app, (FIRST, SECOND), dependencies=[Depends(_key)])
    return app


def _eager_app() -> FastAPI:
    app = FastAPI(title="items")
    for name in (FIRST, SECOND):
        app.include_router(sys.modules[name].router, dependencies=[Depends(_key)])
    return app


def _lazy_routes(app: FastAPI) -> dict[str, bool]:
    return {r.module: r.loaded for r in app.router.routes if isinstance(r, LazyRouter)}


@pytest.mark.usefixtures("modules")
def test_lazy_routers_answer_as_the_same_routers_included_at_once() -> None:
    lazy, eager = TestClient(_lazy_app()), TestClient(_eager_app())
    key = {"X-Key": "open"}
    requests = [
        ("GET", "/items/a", key),
        ("GET", "/items/special", key),  # the first router's /{item_id} comes first
        ("GET", "/items/special/list", key),
        ("POST", "/items/b", key),
        ("DELETE", "/items/b", key),  # 405: both routers have the path, neither the method
        ("GET", "/items/a", {}),  # the include's dependency still applies
        ("GET", "/nothing", key),
    ]
    for method, path, headers in requests:
        ours, theirs = lazy.request(method, path, headers=headers), eager.request(method, path, headers=headers)
        assert (ours.status_code, ours.json()) == (theirs.status_code, theirs.json()), (method, path)
    assert Item.model_validate(lazy.get("/items/special", headers=key).json()).served_by == "first"


@pytest.mark.usefixtures("modules")
def test_a_request_loads_only_the_routers_it_is_matched_against() -> None:
    app = _lazy_app()
    assert _lazy_routes(app) == {FIRST: False, SECOND: False}

    assert TestClient(app).get("/items/a", headers={"X-Key": "open"}).status_code == 200

    # The first router answered: it is now FastAPI's own included router, in the same place; the second still waits.
    assert _lazy_routes(app) == {SECOND: False}
    assert [type(r).__name__ for r in app.router.routes[-2:]] == ["_IncludedRouter", "LazyRouter"]


@pytest.mark.usefixtures("modules")
def test_the_openapi_document_and_urls_are_those_of_eager_inclusion() -> None:
    lazy, eager = _lazy_app(), _eager_app()

    assert lazy.openapi() == eager.openapi()
    assert _lazy_routes(lazy) == {}
    assert str(_lazy_app().url_path_for("special")) == "/items/special/list"


@pytest.mark.usefixtures("modules")
def test_load_all_keeps_the_order_of_inclusion() -> None:
    app = _lazy_app()
    TestClient(app).get("/items/special/list", headers={"X-Key": "open"})  # loads both, the first one first

    load_all(app)

    originals = [getattr(r, "original_router", None) for r in app.router.routes[-2:]]
    assert originals == [sys.modules[FIRST].router, sys.modules[SECOND].router]
