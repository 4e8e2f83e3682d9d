"""Who asked (``requester``): the JWT claims, a trusted proxy's header, else ``api-client``.

The dependency is exercised on a one-route app whose access policy comes from ``app.dependency_overrides``: no
database, queue or environment needed to say which identity a request resolves to.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from mangum import Mangum

from devstack.queue_poller import LocalLambdaContext
from functions.api import deps
from session_scoring.services.access import AccessPolicy
from tests.support.events import load_event


def _identity_app(trust_forwarded_user: bool) -> FastAPI:
    app = FastAPI()

    @app.api_route("/{path:path}", methods=["GET", "POST"])
    def whoami(requester: deps.Requester) -> dict[str, str]:
        return {"requester": requester}

    policy = AccessPolicy(enforced=False, trust_proxy=trust_forwarded_user, role_claim="cognito:groups", role_map={})
    app.dependency_overrides[deps.container] = lambda: SimpleNamespace(access_policy=policy)
    return app


@pytest.fixture
def untrusted() -> Iterator[TestClient]:
    with TestClient(_identity_app(trust_forwarded_user=False)) as client:
        yield client


@pytest.fixture
def trusted() -> Iterator[TestClient]:
    with TestClient(_identity_app(trust_forwarded_user=True)) as client:
        yield client


def test_without_a_trusted_proxy_forwarded_headers_are_ignored(untrusted: TestClient) -> None:
    answer = untrusted.get("/", headers={"X-Forwarded-User": "admin", "X-Forwarded-Email": "ceo@corp"})

    assert answer.json() == {"requester": "api-client"}


def test_a_trusted_proxy_names_the_user(trusted: TestClient) -> None:
    assert trusted.get("/", headers={"X-Forwarded-User": "alice"}).json() == {"requester": "alice"}
    assert trusted.get("/", headers={"X-Forwarded-Email": "bob@example.com"}).json() == {"requester": "bob@example.com"}
    assert trusted.get("/", headers={"X-Forwarded-User": "   "}).json() == {"requester": "api-client"}


def test_a_forwarded_identity_is_cut_to_the_column_width(trusted: TestClient) -> None:
    assert trusted.get("/", headers={"X-Forwarded-User": "a" * 300}).json() == {"requester": "a" * 255}


@pytest.mark.parametrize("trust_forwarded_user", [False, True])
def test_jwt_claims_win_over_a_forwarded_header(trust_forwarded_user: bool) -> None:
    handler = Mangum(_identity_app(trust_forwarded_user), lifespan="off")
    event = load_event("api-post-score.json")
    event["headers"]["x-forwarded-user"] = "mallory"

    response = handler(event, LocalLambdaContext())  # type: ignore[arg-type]

    assert json.loads(response["body"]) == {"requester": "oncall-sre@example.com"}


def test_the_subject_is_used_when_the_token_has_no_email() -> None:
    handler = Mangum(_identity_app(trust_forwarded_user=False), lifespan="off")
    event = load_event("api-post-score.json")
    claims = event["requestContext"]["authorizer"]["jwt"]["claims"]
    del claims["email"]

    response = handler(event, LocalLambdaContext())  # type: ignore[arg-type]

    assert json.loads(response["body"]) == {"requester": claims["sub"]}
