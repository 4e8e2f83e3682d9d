"""Every answer carries the security headers: the dashboard, the API, the refusals of the middleware, an unexpected
error's 500; HSTS over HTTPS only; the documentation pages a policy of their own that allows their inline script by
hash, never by 'unsafe-inline'."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx import Response

from functions.api import deps
from functions.api.app import create_app
from functions.api.middleware import CONTENT_SECURITY_POLICY
from session_scoring.services.access import AccessPolicy

BASELINE = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "content-security-policy": CONTENT_SECURITY_POLICY,
}


def _app() -> FastAPI:
    app = create_app()
    policy = AccessPolicy(enforced=False, trust_proxy=False, role_claim="groups", role_map={})
    app.dependency_overrides[deps.container] = lambda: SimpleNamespace(access_policy=policy)
    return app


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(_app(), raise_server_exceptions=False) as test_client:
        yield test_client


def _secured(answer: Response) -> dict[str, str]:
    return {name: answer.headers.get(name, "") for name in BASELINE}


def test_the_policy_allows_no_inline_script_nor_framing() -> None:
    directives = dict(d.split(" ", 1) for d in CONTENT_SECURITY_POLICY.split("; "))

    assert directives["script-src"] == "'self'"
    assert directives["frame-ancestors"] == "'none'"
    assert directives["object-src"] == "'none'"
    assert "unsafe" not in directives["default-src"] + directives["script-src"] + directives["connect-src"]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),  # the dashboard (or its 404 asking for a build)
        ("GET", "/api/v1/scoring/me", 200),
        ("GET", "/api/v1/scoring/nope", 404),
        ("DELETE", "/api/v1/scoring/me", 405),
        ("GET", "/health?q=%00", 422),  # refused by the NUL check before any route
        ("POST", "/api/v1/scoring/sessions/s-1/score", 413),  # refused by the body limit
    ],
)
def test_every_answer_carries_the_headers(client: TestClient, method: str, path: str, status: int) -> None:
    body = b"x" * 100_000 if status == 413 else None
    answer = client.request(method, path, content=body)

    assert answer.status_code in ((200, 404) if path == "/" else (status,)), answer.text
    assert _secured(answer) == BASELINE
    assert "strict-transport-security" not in answer.headers


def test_hsts_is_sent_over_https_only() -> None:
    with TestClient(_app(), base_url="https://scoring.example.com") as secure:
        answer = secure.get("/api/v1/scoring/me")

    assert answer.headers["strict-transport-security"] == "max-age=31536000; includeSubDomains"


def test_an_unexpected_errors_500_carries_them_too() -> None:
    app = _app()

    def broken() -> None:
        raise RuntimeError("a bug")

    app.dependency_overrides[deps.container] = broken
    with TestClient(app, raise_server_exceptions=False) as test_client:
        answer = test_client.get("/api/v1/scoring/me")

    assert answer.status_code == 500
    assert answer.json()["code"] == "internal_error"
    assert _secured(answer) == BASELINE


@pytest.mark.parametrize("path", ["/docs", "/docs/oauth2-redirect"])
def test_a_docs_page_allows_its_cdn_and_its_inline_scripts_by_hash(client: TestClient, path: str) -> None:
    answer = client.get(path)
    scripts = re.findall(r"<script>(.*?)</script>", answer.text, re.DOTALL)
    policy = dict(d.split(" ", 1) for d in answer.headers["content-security-policy"].split("; "))

    assert answer.status_code == 200
    assert scripts, "the page starts Swagger UI with an inline script"
    hashes = [f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'" for s in scripts]
    assert policy["script-src"].split() == ["https://cdn.jsdelivr.net", *hashes]
    assert "unsafe-inline" not in policy["script-src"]
    assert policy["frame-ancestors"] == "'none'"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert int(answer.headers["content-length"]) == len(answer.content)
