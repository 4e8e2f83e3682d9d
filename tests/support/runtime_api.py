"""A stand-in for Lambda's runtime API, in a process of its own, and the client a Lambda runtime is.

In Lambda every invocation reaches the handler through the runtime API: the runtime posts the last response and asks
for the next event over HTTP, served by another process of the execution environment. So no deployed request runs
straight after the previous one; each follows a round trip to another process, which leaves the handler's caches
less warm than calling it again at once. The paths bench delivers a fresh process's requests this way when it sets
the first request against warm ones.

``runtime_api(event_path)`` starts the server (``python -m tests.support.runtime_api EVENT``), which answers every
``GET .../invocation/next`` with that event and accepts every response, and yields its address; :class:`RuntimeClient`
is the runtime's side.
"""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.support.loopback import LoopbackHttpServer, QuietHandler, send_json

API_VERSION = "2018-06-01"
ROOT = Path(__file__).resolve().parents[2]


class RuntimeApi(LoopbackHttpServer):
    """Serves one event as every next invocation (with a new request id) and accepts every response."""

    def __init__(self, event: bytes) -> None:
        super().__init__()
        self.event = event

    def reset(self) -> None:
        return None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        event = self.event

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                send_json(self, 200, event, {"Lambda-Runtime-Aws-Request-Id": str(uuid.uuid4())})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                send_json(self, 202, b"")

        return Handler


class RuntimeClient:
    """The runtime's side: ask for the next event, post the handler's response."""

    def __init__(self, address: str) -> None:
        host, port = address.rsplit(":", 1)
        self._connection = http.client.HTTPConnection(host, int(port), timeout=10)

    def next_invocation(self) -> tuple[dict[str, Any], str]:
        """The next event and its request id."""
        self._connection.request("GET", f"/{API_VERSION}/runtime/invocation/next")
        answer = self._connection.getresponse()
        event = json.loads(answer.read())
        return event, answer.headers["Lambda-Runtime-Aws-Request-Id"]

    def respond(self, request_id: str, response: Any) -> None:
        body = json.dumps(response).encode()
        self._connection.request(
            "POST",
            f"/{API_VERSION}/runtime/invocation/{request_id}/response",
            body=body,
            headers={"Content-Type": "application/json"},
        )
        self._connection.getresponse().read()


@contextmanager
def runtime_api(event_path: str) -> Iterator[str]:
    """Run the runtime API in a process of its own, serving the event at ``event_path``; yields ``host:port``.
    The server exits when its standard input closes."""
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.runtime_api", event_path],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        address = server.stdout.readline().strip()
        assert address, "the runtime API did not start"
        yield address
    finally:
        assert server.stdin is not None
        server.stdin.close()
        server.wait(timeout=10)


def main(event_path: str) -> None:
    with RuntimeApi(Path(event_path).read_bytes()) as api:
        print(api.base_url.removeprefix("http://"), flush=True)
        sys.stdin.read()  # until the parent closes it


if __name__ == "__main__":
    main(sys.argv[1])
