"""The API behind the local stack's server (uvicorn configured as `make run` configures it, on a free port): what
real HTTP clients read when a request is refused before or by the application."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn

from devstack.server import HOST, local_api, server_options
from tests.conftest import SAMPLES, THOROUGH_ID, Stack

IMPORT = "/api/v1/scoring/sessions:import"
STARTUP_SECONDS = 30


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served(stack: Stack) -> Iterator[str]:
    """The stack's app served by uvicorn as the local stack serves it (behind its guard), in a thread; its base URL."""
    with _serving() as base_url:
        yield base_url


@contextlib.contextmanager
def _serving() -> Iterator[str]:
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(local_api(), log_level="warning", lifespan="off", **server_options(port)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + STARTUP_SECONDS
    while not server.started:  # readiness polling of the server thread, not test synchronisation
        assert thread.is_alive(), "the local server stopped while starting"
        assert time.monotonic() < deadline, "the local server did not start"
        time.sleep(0.05)
    try:
        yield f"http://{HOST}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _raw(base_url: str, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as bytes; the status, headers and body of the answer (the server closes the connection)."""
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def _urllib_post(url: str, body: bytes, content_type: str = "application/json") -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


@pytest.mark.parametrize("size", [5 * 1024 * 1024 + 1, 12 * 1024 * 1024])
def test_urllib_reads_the_413_of_an_oversized_upload(served: str, stack: Stack, size: int) -> None:
    status, body = _urllib_post(f"{served}{IMPORT}?file_name=big.jsonl", b"x" * size, "application/x-ndjson")

    assert status == 413
    assert body["code"] == "body_too_large"
    assert "5242880 bytes (5 MiB)" in body["detail"]
    assert stack.client.get("/api/v1/scoring/sessions", params={"page_size": 100}).json()["total_items"] == 4


def test_urllib_reads_the_413_of_an_oversized_score_request(served: str) -> None:
    status, body = _urllib_post(f"{served}/api/v1/scoring/sessions/{THOROUGH_ID}/score", b" " * 200_000)

    assert status == 413
    assert "4096 bytes" in body["detail"]


def test_the_connection_stays_usable_after_a_413(served: str) -> None:
    with httpx.Client(base_url=served, timeout=30) as client:
        refused = client.post(
            f"/api/v1/scoring/sessions/{THOROUGH_ID}/score",
            content=b" " * 100_000,
            headers={"content-type": "application/json"},
        )
        after = client.get("/health")

    assert refused.status_code == 413
    assert after.status_code == 200


def test_a_malformed_content_length_is_a_json_400_from_the_server(served: str) -> None:
    path = f"/api/v1/scoring/sessions/{THOROUGH_ID}/score"
    request = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n{{}}"
    status, headers, body = _raw(served, request.encode())

    assert status == 400
    assert headers["content-type"] == "application/json"
    assert json.loads(body)["code"] == "malformed_request"
    assert "Content-Length" in json.loads(body)["detail"]


def test_a_405_from_the_server_carries_allow(served: str) -> None:
    response = httpx.delete(f"{served}/api/v1/scoring/runs", timeout=10)

    assert response.status_code == 405
    assert set(response.headers["allow"].split(", ")) == {"GET", "POST"}
    assert response.json()["code"] == "method_not_allowed"


# ---- the local server's guard: Host allow-list, cross-origin writes, JSON bodies


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.nip.io", "attacker"])
def test_a_foreign_host_is_refused_before_any_data_is_read(served: str, host: str) -> None:
    answer = httpx.get(f"{served}/api/v1/scoring/sessions", headers={"Host": host}, timeout=10)

    assert answer.status_code == 421
    assert answer.json()["code"] == "host_not_allowed"
    assert "items" not in answer.text
    assert host not in answer.text


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "LOCALHOST:8000", "[::1]:8000"])
def test_loopback_names_are_answered(served: str, host: str) -> None:
    assert httpx.get(f"{served}/api/v1/scoring/sessions", headers={"Host": host}, timeout=10).status_code == 200


def test_the_allowed_hosts_are_a_setting(make_stack: Any) -> None:
    make_stack(SCORING_LOCAL_ALLOWED_HOSTS="scoring.internal")
    with _serving() as base_url:
        named = httpx.get(f"{base_url}/health", headers={"Host": "scoring.internal:443"}, timeout=10)
        loopback = httpx.get(f"{base_url}/health", timeout=10)

    assert named.status_code == 200
    assert loopback.status_code == 421


def test_a_write_from_a_foreign_origin_is_refused_and_nothing_is_stored(served: str, stack: Stack) -> None:
    upload = (SAMPLES / f"{THOROUGH_ID}.json").read_bytes()
    before = stack.client.get("/api/v1/scoring/sessions").json()["total_items"]

    cross = httpx.post(f"{served}{IMPORT}", content=upload, headers={"Origin": "https://evil.example"}, timeout=30)
    sandboxed = httpx.post(f"{served}{IMPORT}", content=upload, headers={"Origin": "null"}, timeout=30)
    fetched = httpx.post(f"{served}{IMPORT}", content=upload, headers={"Sec-Fetch-Site": "cross-site"}, timeout=30)
    own = httpx.post(f"{served}{IMPORT}", content=upload, headers={"Origin": served}, timeout=30)

    assert [cross.status_code, sandboxed.status_code, fetched.status_code] == [403, 403, 403]
    assert cross.json()["code"] == "cross_origin_refused"
    assert own.status_code == 201, own.text
    assert stack.client.get("/api/v1/scoring/sessions").json()["total_items"] == before + 1


def test_a_read_from_a_foreign_origin_gets_no_cors_permission(served: str) -> None:
    answer = httpx.get(f"{served}/api/v1/scoring/sessions", headers={"Origin": "https://evil.example"}, timeout=10)

    assert "access-control-allow-origin" not in answer.headers


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_body_that_is_not_json_is_refused_on_json_routes_and_uploads(
    served: str, stack: Stack, content_type: str
) -> None:
    upload = (SAMPLES / f"{THOROUGH_ID}.json").read_bytes()
    before = stack.client.get("/api/v1/scoring/sessions").json()["total_items"]

    imported = httpx.post(f"{served}{IMPORT}", content=upload, headers={"Content-Type": content_type}, timeout=30)
    run = httpx.post(
        f"{served}/api/v1/scoring/runs",
        content=json.dumps({"max_sessions": 1, "dry_run": True}),
        headers={"Content-Type": content_type},
        timeout=30,
    )

    assert (imported.status_code, imported.json()["code"]) == (415, "unsupported_media_type")
    assert (run.status_code, run.json()["code"]) == (415, "unsupported_media_type")
    assert stack.client.get("/api/v1/scoring/sessions").json()["total_items"] == before


def test_json_and_json_lines_bodies_and_bodiless_posts_pass(served: str) -> None:
    upload = (SAMPLES / f"{THOROUGH_ID}.json").read_bytes()
    with httpx.Client(base_url=served, timeout=30) as client:
        as_json = client.post(IMPORT, content=upload, headers={"Content-Type": "application/json; charset=utf-8"})
        run = client.post("/api/v1/scoring/runs", json={"max_sessions": 1, "dry_run": True})
        score = client.post(f"/api/v1/scoring/sessions/{THOROUGH_ID}/score")

    assert as_json.status_code == 201, as_json.text
    assert run.status_code == 200, run.text
    assert score.status_code == 202, score.text
