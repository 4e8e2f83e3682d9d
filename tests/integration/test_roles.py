"""Roles on every route, as deployed and as run locally.

Every route of the role table (``functions/api/route_roles.py``, so a new route is covered as soon as it has a role)
is called by every kind of caller, with SCORING_REQUIRE_AUTH: through the Lambda handler with API Gateway v2 events
carrying the JWT authorizer's claims (Cognito groups as API Gateway renders a list claim, ``"[viewer]"``), and
through the app with a trusted proxy's ``X-Forwarded-User``/``X-Forwarded-Groups``. No identity: 401. An identity
without the role: 403 whose JSON names it. With the role (or a higher one): the route answers (its own 2xx, or the
4xx its empty input earns), never 401, 403 or 5xx. Then `make run`'s acceptance through the real uvicorn server, and
who did what is recorded whoever did it.
"""

from __future__ import annotations

import copy
import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from devstack.queue_poller import LocalLambdaContext
from devstack.server import HOST, local_api, server_options
from functions.api.route_roles import ROUTE_ROLES, RouteAccess
from session_scoring.models.access import ROLE_ORDER, Role
from tests.conftest import SAMPLES, SHALLOW_ID, THOROUGH_ID, Stack
from tests.support.events import load_event

ENFORCED = {"SCORING_REQUIRE_AUTH": "true", "SCORING_TRUST_FORWARDED_USER": "true"}
SAMPLE_PARAMETERS = {
    "session_id": THOROUGH_ID,
    "run_id": "00000000-0000-4000-8000-000000000001",
    "export_id": "00000000-0000-4000-8000-000000000002",
    "tool_name": "kubernetes-server.resources_get",
    "tag": "wrong_conclusion",
    "criteria_hash": "c" * 64,
}
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("PUT", "/api/v1/scoring/sessions/{session_id}/labels"): {"total_score": 70},
    ("POST", "/api/v1/scoring/runs"): {"max_sessions": 1, "dry_run": True},
}
"""Bodies that make an allowed call succeed; other routes are called without one."""
ROUTES = sorted(ROUTE_ROLES.items())
CALLERS: list[Role | None] = [None, *ROLE_ORDER]
"""A caller with each role; None: an identity whose groups map to no role."""
API = "/api/v1/scoring"


def _may(role: Role | None, access: RouteAccess) -> bool:
    if access in ("public", "authenticated"):
        return True
    return role is not None and ROLE_ORDER.index(role) >= ROLE_ORDER.index(Role(access))


def _path(template: str) -> str:
    return template.format(**SAMPLE_PARAMETERS)


def _event(method: str, template: str, claims: dict[str, str] | None) -> dict[str, Any]:
    """An HTTP API (payload 2.0) event for the route, through the ``ANY /api/{proxy+}`` route with the JWT authorizer's
    claims, or without any (as the public ``$default`` route delivers)."""
    event = copy.deepcopy(load_event("api-post-score.json"))
    path = _path(template)
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["requestContext"]["http"]["method"] = method
    body = BODIES.get((method, template))
    event["body"] = json.dumps(body) if body is not None else ""
    if body is not None:
        event["headers"]["content-type"] = "application/json"
    if claims is None:
        del event["requestContext"]["authorizer"]
        event["routeKey"] = event["requestContext"]["routeKey"] = "$default"
    else:
        event["requestContext"]["authorizer"]["jwt"]["claims"] = claims
    return event


def _invoke(event: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    from functions.api.app import handler

    response = handler(event, LocalLambdaContext(budget_seconds=30, function_name="session-scoring-api"))
    body = response.get("body") or "{}"
    try:
        parsed = json.loads(body)
    except ValueError:
        parsed = {"streamed": body[:200]}
    return int(response["statusCode"]), parsed if isinstance(parsed, dict) else {"items": parsed}


def _claims(role: Role | None) -> dict[str, str]:
    group = role.value if role is not None else "contractors"
    return {"sub": f"sub-{group}", "email": f"{group}@example.com", "cognito:groups": f"[{group}]"}


def _check(status: int, body: dict[str, Any], role: Role | None, access: RouteAccess, where: str) -> None:
    if _may(role, access):
        assert status not in (401, 403), f"{where}: {status} {body}"
        assert status < 500, f"{where}: {status} {body}"
    else:
        assert status == 403, f"{where}: {status} {body}"
        assert body["code"] == "role_required"
        assert f"needs the {access} role" in body["detail"], body["detail"]


@pytest.mark.parametrize(("route", "access"), ROUTES, ids=[f"{m} {p}" for (m, p), _ in ROUTES])
def test_every_caller_against_the_route(make_stack: Any, route: tuple[str, str], access: RouteAccess) -> None:
    stack: Stack = make_stack(**ENFORCED)
    method, template = route

    status, body = _invoke(_event(method, template, claims=None))
    if access == "public":
        assert status == 200, body
    else:
        assert (status, body["code"]) == (401, "authentication_required"), body
    for role in CALLERS:
        status, body = _invoke(_event(method, template, _claims(role)))
        _check(status, body, role, access, f"token of {role}")

        group = role.value if role is not None else "contractors"
        answer = stack.client.request(
            method,
            _path(template),
            headers={"X-Forwarded-User": f"{group}-user", "X-Forwarded-Groups": f"staff, {group}"},
            json=BODIES.get(route),
        )
        _check(answer.status_code, _json(answer), role, access, f"X-Forwarded-Groups of {role}")


def _json(answer: httpx.Response) -> dict[str, Any]:
    try:
        parsed = answer.json()
    except ValueError:
        return {"streamed": answer.text[:200]}
    return parsed if isinstance(parsed, dict) else {"items": parsed}


def test_oauth_scopes_map_to_roles_without_code(make_stack: Any) -> None:
    make_stack(
        SCORING_REQUIRE_AUTH="true",
        SCORING_ROLE_CLAIM="scope",
        SCORING_ROLE_MAP="scoring/read=viewer,scoring/write=operator",
    )
    reader = {"sub": "client-1", "scope": "openid scoring/read"}
    writer = {"sub": "client-2", "scope": "scoring/read scoring/write"}
    score = f"{API}/sessions/{{session_id}}/score"

    assert _invoke(_event("GET", f"{API}/sessions", reader))[0] == 200
    assert _invoke(_event("POST", score, reader))[0] == 403
    assert _invoke(_event("POST", score, writer))[0] == 202


def test_without_require_auth_an_anonymous_caller_acts_as_admin_and_is_told_so(stack: Stack) -> None:
    me = stack.client.get(f"{API}/me").json()

    assert (me["identity"], me["role"], me["enforced"]) == (None, "admin", False)
    assert "SCORING_REQUIRE_AUTH is off" in me["detail"]
    assert stack.client.post(f"{API}/runs", json={"max_sessions": 1, "dry_run": True}).status_code == 200


# ---- `make run` with SCORING_TRUST_FORWARDED_USER=true SCORING_REQUIRE_AUTH=true, through the real server


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served(make_stack: Any) -> Iterator[httpx.Client]:
    """The app behind uvicorn as `make run` serves it, with roles enforced and a trusted proxy; a client of it."""
    make_stack(**ENFORCED)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(local_api(), log_level="warning", lifespan="off", **server_options(port)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:  # readiness polling of the server thread, not test synchronisation
        assert thread.is_alive(), "the local server stopped while starting"
        assert time.monotonic() < deadline, "the local server did not start"
        time.sleep(0.05)
    try:
        with httpx.Client(base_url=f"http://{HOST}:{port}", timeout=30) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _as(name: str, groups: str) -> dict[str, str]:
    return {"X-Forwarded-User": name, "X-Forwarded-Groups": groups}


def test_make_run_with_roles_enforced(served: httpx.Client) -> None:
    viewer = _as("vic", "viewer")
    score = f"{API}/sessions/{THOROUGH_ID}/score"
    labels = f"{API}/sessions/{THOROUGH_ID}/labels"
    upload = (SAMPLES / f"{SHALLOW_ID}.json").read_bytes()

    assert served.get(f"{API}/sessions", headers=viewer).status_code == 200
    assert served.get(f"{API}/runs", headers=viewer).status_code == 200
    refused = {
        "score": served.post(score, headers=viewer),
        "runs": served.post(f"{API}/runs", headers=viewer, json={"max_sessions": 1}),
        "import": served.post(f"{API}/sessions:import", headers=viewer, content=upload),
        "labels": served.put(labels, headers=viewer, json={"total_score": 70}),
    }
    assert {name: answer.status_code for name, answer in refused.items()} == dict.fromkeys(refused, 403)
    assert refused["score"].json() == {
        "code": "role_required",
        "detail": f"POST {API}/sessions/{{session_id}}/score needs the operator role (admin also may); vic has the "
        "viewer role. Roles come from the X-Forwarded-Groups header (viewer), whose values viewer, labeller, "
        "operator and admin grant those roles (no SCORING_ROLE_MAP).",
    }
    assert "needs the labeller role" in refused["labels"].json()["detail"]

    labelled = served.put(labels, headers=_as("lab", "labeller"), json={"total_score": 70})
    assert labelled.status_code == 200, labelled.text
    assert labelled.json()["labeller"] == "lab"
    assert served.post(score, headers=_as("lab", "labeller")).status_code == 403

    scored = served.post(score, headers=_as("ops", "operator"))
    assert scored.status_code == 202, scored.text
    assert served.get(score, headers=viewer).json()["scored_triggered_by"] == "ops"

    nobody = served.post(score)
    assert (nobody.status_code, nobody.json()["code"]) == (401, "authentication_required")
    assert served.get(f"{API}/sessions", headers={"X-Forwarded-Groups": "admin"}).status_code == 401  # nobody named


def test_me_answers_who_the_caller_is(served: httpx.Client) -> None:
    me = served.get(f"{API}/me", headers=_as("lab", "staff,labeller"))

    assert me.json() == {
        "identity": "lab",
        "source": "proxy",
        "role": "labeller",
        "roles": ["viewer", "labeller"],
        "enforced": True,
        "detail": "lab has the labeller role. Roles come from the X-Forwarded-Groups header (staff, labeller), whose "
        "values viewer, labeller, operator and admin grant those roles (no SCORING_ROLE_MAP).",
    }
    assert served.get(f"{API}/me", headers=_as("newcomer", "")).json()["roles"] == []
    assert served.get(f"{API}/me").status_code == 401


def test_health_tells_strangers_the_status_alone(served: httpx.Client) -> None:
    public = served.get("/health")
    details = served.get(f"{API}/health/details", headers=_as("vic", "viewer"))

    assert public.json() == {"status": "ok"}
    assert served.get(f"{API}/health/details").status_code == 401
    assert details.status_code == 200
    assert {"version", "criteria_hash", "llm_model", "judge_circuit", "queued_jobs", "problems"} <= set(details.json())


def test_a_404_or_405_for_a_stranger_does_not_echo_the_path(served: httpx.Client) -> None:
    answer = served.get("/api/v1/scoring/<script>alert(1)</script>")

    assert answer.status_code == 404
    assert "script" not in answer.text
    assert answer.json() == {"code": "not_found", "detail": "no such route"}
    refused = served.delete("/api/v1/scoring/runs/<img src=x onerror=alert(1)>")  # GET serves /runs/{run_id}
    assert refused.status_code == 405
    assert "onerror" not in refused.text


def test_every_action_records_who_did_it(served: httpx.Client, json_logs: io.StringIO) -> None:
    ops = _as("olga", "operator")
    run = served.post(f"{API}/runs", headers=ops, json={"max_sessions": 1, "name": "who"}).json()
    cancelled = served.post(f"{API}/runs/{run['run_id']}/cancel", headers=_as("otto", "operator"))
    forced = served.post(f"{API}/sessions/{SHALLOW_ID}/score", headers=ops, json={"force_rescore": True})
    imported = served.post(
        f"{API}/sessions:import?file_name=s.json", headers=ops, content=(SAMPLES / f"{SHALLOW_ID}.json").read_bytes()
    )
    labelled = served.put(
        f"{API}/sessions/{SHALLOW_ID}/labels", headers=_as("lena", "labeller"), json={"total_score": 5}
    )

    assert run["started_by"] == "olga"
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["stop_reason"] == "cancelled by otto"
    assert forced.status_code == 202
    assert served.get(f"{API}/sessions/{SHALLOW_ID}/score", headers=ops).json()["scored_triggered_by"] == "olga"
    assert imported.status_code == 201, imported.text
    listed = served.get(f"{API}/sessions", headers=ops, params={"page_size": 100}).json()["items"]
    assert [s["author"] for s in listed if s["session_id"] == imported.json()["session_id"]] == ["olga"]
    assert labelled.json()["labeller"] == "lena"

    from session_scoring.log import logger

    level = logger.log_level
    logger.setLevel("INFO")  # the tests' stacks log warnings only; the record is an info line
    try:
        exported = served.get(f"{API}/exports/training", headers=_as("ada", "admin"), params={"min_score": 0})
    finally:
        logger.setLevel(level)
    assert exported.status_code == 200
    lines = [json.loads(line) for line in json_logs.getvalue().splitlines() if "training export streamed" in line]
    assert [(line["requested_by"], line["min_score"]) for line in lines] == [("ada", 0)]


@pytest.mark.parametrize("hidden", [b"\xa0", b"\x85", b"\xe3\x80\x80", b"\x1f"])
def test_a_group_or_name_with_hidden_whitespace_is_a_401_never_another_name(
    served: httpx.Client, hidden: bytes
) -> None:
    me = f"{API}/me"
    admin = served.get(me, headers=[(b"X-Forwarded-User", b"mallory"), (b"X-Forwarded-Groups", b"admin" + hidden)])
    alice = served.put(
        f"{API}/sessions/{THOROUGH_ID}/labels",
        headers=[(b"X-Forwarded-User", b"alice" + hidden), (b"X-Forwarded-Groups", b"labeller")],
        json={"total_score": 1},
    )

    assert (admin.status_code, admin.json()["code"]) == (401, "authentication_required")
    assert "X-Forwarded-Groups header holds U+" in admin.json()["detail"]
    assert (alice.status_code, alice.json()["code"]) == (401, "authentication_required")
    assert "X-Forwarded-User header holds U+" in alice.json()["detail"]


def test_two_identity_headers_are_refused_not_first_wins(served: httpx.Client) -> None:
    twice = served.get(
        f"{API}/me",
        headers=[(b"X-Forwarded-User", b"alice"), (b"X-Forwarded-User", b"mallory"), (b"X-Forwarded-Groups", b"admin")],
    )

    assert twice.status_code == 401
    assert "X-Forwarded-User more than once" in twice.json()["detail"]


def test_submitted_by_is_the_uploader_whatever_the_document_says(served: httpx.Client) -> None:
    document = json.loads((SAMPLES / f"{SHALLOW_ID}.json").read_text())
    document["author"] = "ceo@example.com"
    ops = _as("olga", "operator")

    imported = served.post(f"{API}/sessions:import?file_name=s.json", headers=ops, content=json.dumps(document))
    session_id = imported.json()["session_id"]
    shown = served.get(f"{API}/sessions/{session_id}", headers=ops).json()
    listed = served.get(f"{API}/sessions", headers=ops, params={"page_size": 100}).json()["items"]

    assert imported.status_code == 201, imported.text
    assert (shown["author"], shown["recording_author"]) == ("olga", "ceo@example.com")
    assert [s["author"] for s in listed if s["session_id"] == session_id] == ["olga"]
