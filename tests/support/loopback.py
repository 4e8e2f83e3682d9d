"""The plumbing every fake server shares: an HTTP server on 127.0.0.1 (a free port) in a daemon thread.

A fake subclasses :class:`LoopbackHttpServer` with its request handler and ``reset()``. Tests get a running,
reset fake from the one ``loopback`` fixture (tests/conftest.py), which starts each kind once per run; code outside
pytest uses it as a context manager (``with CloudFormationListener() as cfn: ...``).
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self


class LoopbackHttpServer(ABC):
    """Base of the fakes: ``start()``, ``base_url`` (where clients point), ``reset()`` between tests, ``stop()``."""

    def __init__(self) -> None:
        self._server: ThreadingHTTPServer | None = None

    @abstractmethod
    def _handler(self) -> type[BaseHTTPRequestHandler]:
        """The request handler class; it reaches the fake's state through a closure."""

    @abstractmethod
    def reset(self) -> None:
        """Forget what earlier tests scripted and what the fake recorded."""

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the fake server first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> Self:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, _traceback: TracebackType | None
    ) -> None:
        self.stop()


class QuietHandler(BaseHTTPRequestHandler):
    """A handler that keeps the request log out of the test output, speaking HTTP/1.1 (keep-alive) like the APIs."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        return


def send_json(handler: BaseHTTPRequestHandler, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
    """Write one JSON response; a client that already hung up (a timeout test) is not an error."""
    try:
        handler.send_response(status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        return
