"""Requests exactly as written: method, request target (already percent-encoded), headers and body bytes, sent to
127.0.0.1 over a fresh connection each (``Connection: close``), so one answer never depends on how the server left
the previous connection.

A request with no answer (the server dropped the connection, or did not answer within the timeout) comes back as
an :class:`Answer` with ``status`` None: the campaign counts it with the 5xx.
"""

from __future__ import annotations

import http.client
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

TIMEOUT_SECONDS = 60.0
"""Longer than any answer the stack should take (its database timeout is 10 s); past it the request has no answer."""


@dataclass(frozen=True)
class Answer:
    status: int | None
    headers: dict[str, str] = field(default_factory=dict)
    """Lower-case names."""
    body: bytes = b""
    error: str | None = None
    """Why there is no answer (status None)."""

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "")

    def json(self) -> Any:
        """The body as JSON, or None when it is not JSON."""
        if not self.content_type.startswith("application/json"):
            return None
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    def is_error_body(self) -> bool:
        """The service's error shape: a JSON object with ``code`` and ``detail``."""
        body = self.json()
        return isinstance(body, dict) and isinstance(body.get("code"), str) and "detail" in body

    def describe(self) -> str:
        if self.status is None:
            return f"no answer ({self.error})"
        return f"{self.status} {self.body[:160].decode('utf-8', 'replace')}"


class Wire:
    def __init__(self, base_url: str, timeout: float = TIMEOUT_SECONDS) -> None:
        parts = urlsplit(base_url)
        if parts.hostname != "127.0.0.1":
            raise ValueError(f"the campaign only talks to 127.0.0.1, not {base_url}")
        self._port = parts.port or 80
        self._timeout = timeout

    def send(
        self, method: str, target: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> Answer:
        connection = http.client.HTTPConnection("127.0.0.1", self._port, timeout=self._timeout)
        try:
            sent = {name.lower() for name in headers or {}}
            connection.putrequest(method, target, skip_host="host" in sent, skip_accept_encoding=True)
            for name, value in (headers or {}).items():
                connection.putheader(name, value)
            if "connection" not in sent:
                connection.putheader("Connection", "close")
            if body is not None and "content-length" not in sent:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            data = response.read()
            return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)
        except (TimeoutError, OSError, http.client.HTTPException) as exc:
            return Answer(None, error=f"{type(exc).__name__}: {exc}"[:200])
        finally:
            connection.close()

    def get(self, target: str) -> Answer:
        return self.send("GET", target)

    def send_json(self, method: str, target: str, document: Any) -> Answer:
        return self.send(method, target, json.dumps(document).encode(), {"Content-Type": "application/json"})
