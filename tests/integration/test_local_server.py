"""The API behind the local stack's server (uvicorn configured as `make run` configures it, on a free port): what
real HTTP clients read when a request is refused before or by the application."""

from __future__ import annotations

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

from devstack.server import HOST, server_options
from tests.conftest import THOROUGH_ID, Stack

IMPORT = "/api/v1/scoring/sessions:import"
STARTUP_SECONDS = 30


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served(stack: Stack) -> Iterator[str]:
    """The stack's app served by uvicorn with the local stack's settings, in a thread; its base URL."""
    from functions.api.app import app

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", **server_options(port)))
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
        refused = client.post(f"/api/v1/scoring/sessions/{THOROUGH_ID}/score", content=b" " * 100_000)
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
