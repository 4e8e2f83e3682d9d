"""The sample events in events/, and what tests need around them: a job's score id, a CloudFormation listener."""

from __future__ import annotations

import copy
import json
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from tests.support.loopback import LoopbackHttpServer, QuietHandler

EVENTS = Path(__file__).resolve().parents[2] / "events"


def load_event(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return event


def with_score_id(event: dict[str, Any], score_id: str) -> dict[str, Any]:
    """The SQS event with each well-formed job pointed at ``score_id`` (malformed bodies are left as they are)."""
    changed = copy.deepcopy(event)
    for record in changed["Records"]:
        try:
            job = json.loads(record["body"])
        except ValueError:
            continue
        job["score_id"] = score_id
        record["body"] = json.dumps(job)
    return changed


def with_response_url(event: dict[str, Any], url: str, request_type: str | None = None) -> dict[str, Any]:
    changed = copy.deepcopy(event)
    changed["ResponseURL"] = url
    if request_type is not None:
        changed["RequestType"] = request_type
        if request_type != "Create":
            changed["PhysicalResourceId"] = "session-scoring-database-schema"
    return changed


def http_body(response: dict[str, Any]) -> Any:
    return json.loads(response["body"])


class CloudFormationListener(LoopbackHttpServer):
    """Stands in for CloudFormation's pre-signed response URL: records every PUT body it receives."""

    def __init__(self) -> None:
        super().__init__()
        self.responses: list[dict[str, Any]] = []

    @property
    def url(self) -> str:
        return f"{self.base_url}/cfn-response?X-Amz-Signature=local"

    def reset(self) -> None:
        self.responses.clear()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        listener = self

        class Handler(QuietHandler):
            def do_PUT(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                listener.responses.append(json.loads(self.rfile.read(length)))
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

        return Handler
