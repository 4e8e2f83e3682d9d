"""Requests delivered as API Gateway delivers them in AWS: HTTP API (2.0) events handed to the API's Lambda handler,
in a process of its own on the stack's database. Over loopback HTTP, uvicorn's parser answers malformed framing (a
``Content-Length`` that is not a number) before the application sees it; behind API Gateway the header reaches the
application, so those cases are delivered this way too.

``python -m tests.fuzz.lambda_delivery`` reads a JSON list of requests (method, path, query, headers, body) on stdin
and writes one JSON answer (status, headers, body) per line. :func:`deliver` runs it.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from typing import Any

from tests.conftest import ROOT
from tests.fuzz.wire import Answer

TIMEOUT_SECONDS = 120
ANSWER = "fuzz_answer"
"""The key of an answer line on stdout (the handler's own log and metric lines are JSON too)."""


def event_for(request: dict[str, Any]) -> dict[str, Any]:
    body: bytes = base64.b64decode(request.get("body") or "")
    path, query = request["path"], request.get("query", "")
    return {
        "version": "2.0",
        "routeKey": "ANY /api/{proxy+}",
        "rawPath": path,
        "rawQueryString": query,
        "headers": {"host": "fuzz.execute-api.local", **{k.lower(): v for k, v in request["headers"].items()}},
        "requestContext": {
            "domainName": "fuzz.execute-api.local",
            "http": {
                "method": request["method"],
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": "fuzz",
            },
            "requestId": "fuzz",
            "routeKey": "ANY /api/{proxy+}",
            "stage": "$default",
        },
        "body": base64.b64encode(body).decode(),
        "isBase64Encoded": True,
    }


def as_event_request(method: str, target: str, body: bytes | None, headers: dict[str, str]) -> dict[str, Any]:
    path, _, query = target.partition("?")
    body_text = base64.b64encode(body or b"").decode()
    return {"method": method, "path": path, "query": query, "headers": headers, "body": body_text}


def deliver(database_url: str, requests: list[dict[str, Any]]) -> list[Answer]:
    """Each request through the Lambda handler; an answer with status None if the process gave none for it."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SCORING_", "ANTHROPIC_"))}
    env |= {
        "SCORING_DATABASE_URL": database_url,
        "SCORING_LLM_PROVIDER": "heuristic",
        "POWERTOOLS_LOG_LEVEL": "ERROR",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_NAMESPACE": "SessionScoringFuzz",
        "PYTHONPATH": str(ROOT),
    }
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tests.fuzz.lambda_delivery"],
            cwd=ROOT,
            env=env,
            input=json.dumps(requests).encode(),
            capture_output=True,
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
        lines = [json.loads(line)[ANSWER] for line in done.stdout.decode().splitlines() if ANSWER in line]
    except (subprocess.TimeoutExpired, ValueError) as exc:
        return [Answer(None, error=f"the Lambda delivery failed: {exc}"[:200]) for _ in requests]
    answers = [
        Answer(
            int(line["status"]),
            {k.lower(): v for k, v in line["headers"].items()},
            base64.b64decode(line["body"]),
        )
        for line in lines
    ]
    missing = len(requests) - len(answers)
    return answers + [Answer(None, error=f"no answer ({done.stderr.decode()[-160:]})")] * missing


def main() -> int:
    from devstack.queue_poller import LocalLambdaContext
    from functions.api.app import handler

    for request in json.loads(sys.stdin.read()):
        response = handler(event_for(request), LocalLambdaContext(budget_seconds=60))
        body = response.get("body") or ""
        raw = base64.b64decode(body) if response.get("isBase64Encoded") else body.encode()
        answer = {"status": response["statusCode"], "headers": response.get("headers") or {}}
        print(json.dumps({ANSWER: {**answer, "body": base64.b64encode(raw).decode()}}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
