"""A local HTTP server answering the few Phoenix REST calls the source and the write-back sink make.

``GET /v1/projects/{project}/spans`` answers the spans of ``spans`` (by default the recorded genai trace of
``tests/fixtures/trace_stores``, verbatim): the root spans for a listing (``parent_id=null``), every span of a trace
for ``trace_id``. ``POST /v1/span_annotations`` is recorded in ``annotations`` (the bodies as sent) and answered with
one id per annotation, as Phoenix does.
"""

from __future__ import annotations

import copy
import json
import threading
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.loopback import LoopbackHttpServer, QuietHandler, send_json

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "trace_stores" / "phoenix_spans_genai.json"


def recorded_spans() -> list[dict[str, Any]]:
    spans: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))["data"]
    return spans


class FakePhoenix(LoopbackHttpServer):
    def __init__(self) -> None:
        super().__init__()
        self.spans: list[dict[str, Any]] = recorded_spans()
        self.annotations: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self.spans = recorded_spans()
            self.annotations.clear()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                url = urlsplit(self.path)
                query = parse_qs(url.query)
                if not (url.path.startswith("/v1/projects/") and url.path.endswith("/spans")):
                    send_json(self, 404, b'{"detail": "not found"}')
                    return
                with fake._lock:
                    spans = copy.deepcopy(fake.spans)
                if "trace_id" in query:
                    spans = [s for s in spans if s["context"]["trace_id"] == query["trace_id"][0]]
                if query.get("parent_id") == ["null"]:
                    spans = [s for s in spans if s["parent_id"] is None]
                send_json(self, 200, json.dumps({"data": spans, "next_cursor": None}).encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if urlsplit(self.path).path != "/v1/span_annotations":
                    send_json(self, 404, b'{"detail": "not found"}')
                    return
                with fake._lock:
                    fake.annotations.append(body)
                send_json(
                    self,
                    200,
                    json.dumps({"data": [{"id": f"a{i}"} for i, _ in enumerate(body.get("data", []))]}).encode(),
                )

        return Handler
