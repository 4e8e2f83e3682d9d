"""Every status a route can answer is in the OpenAPI document, so clients (and the schemathesis checks of `make fuzz`)
can rely on it: a route with a path parameter can answer 404 (a parameter holding an encoded ``/`` matches no route),
a route that takes a body can answer 413 (``limits.py``), and every API route can answer 422 (a NUL character in its
query string or headers, ``middleware.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from functions.api.app import create_app


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    document = create_app().openapi()
    return [
        (method.upper(), path, operation)
        for path, operations in document["paths"].items()
        if path.startswith("/api/")
        for method, operation in operations.items()
    ]


@pytest.mark.parametrize(("method", "path", "operation"), _operations(), ids=lambda value: str(value)[:60])
def test_every_status_a_route_can_answer_is_documented(method: str, path: str, operation: dict[str, Any]) -> None:
    documented = set(operation.get("responses", {}))
    expected = {"422"}
    if "{" in path:
        expected.add("404")
    if "requestBody" in operation:
        expected.add("413")

    assert expected <= documented, f"{method} {path} does not document {sorted(expected - documented)}"
