"""A local HTTP server that speaks the Anthropic Messages API, for tests and the smoke test.

The real ``anthropic`` SDK is pointed at it through ``base_url``; nothing in the SDK is patched. Tests script the
next responses (a verdict, an error status with headers, a hang, a dropped connection, raw text) and read back the
requests the SDK sent.

Prompt caching is imitated for unscripted (default) replies: the prefix up to the last ``cache_control`` breakpoint
(system blocks, then message content blocks) is remembered; a prefix of at least ``min_cache_tokens`` is reported as
``cache_creation_input_tokens`` the first time and ``cache_read_input_tokens`` when repeated, and ``input_tokens`` is
the rest, as the Messages API reports them. Tokens are counted as characters / 4.

The Message Batches endpoints (create, retrieve, cancel, results as JSONL) are served too: a batch's requests are
recorded in ``batch_requests``; it ends on its first retrieve (unless ``hold_batches``; ``end_batches()`` then ends
them), each request answered by the next scripted batch result (``script_batch``: ``batch_succeeded``,
``batch_errored``, ``batch_expired``) or the default verdict. A cancelled batch ends with its requests ``canceled``.
Batch requests are not added to ``requests`` (the online calls).

Every verdict carries ``outcome`` and ``outcome_reason``. The default verdict's outcome is ``no_reference``; answering
a request that carries a fenced reference root cause (``REFERENCE_ROOT_CAUSE``), the default answer says ``found``
instead (the fake does not compare anything: a test that cares about the outcome scripts it).
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import LoopbackHttpServer, QuietHandler, send_json


@dataclass
class FakeReply:
    status: int = 200
    body: Any = None
    raw: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0
    drop_connection: bool = False
    on_request: Callable[[], None] | None = None
    """Runs when the request arrives, before answering (e.g. restart the database while the judge "thinks")."""
    cache_accounting: bool = False
    """Replace the body's token counts by the imitated prompt-cache accounting (see the module docstring)."""


def verdict_body(
    verdict: dict[str, Any] | str,
    *,
    stop_reason: str = "end_turn",
    input_tokens: int = 1200,
    output_tokens: int = 450,
    cache_read: int = 0,
    cache_write: int = 0,
    model: str = "claude-sonnet-4-6",
) -> dict[str, Any]:
    text = verdict if isinstance(verdict, str) else json.dumps(verdict)
    return {
        "id": "msg_fake",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}] if text else [],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": cache_write,
            "cache_read_input_tokens": cache_read,
        },
    }


def error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def reply_verdict(verdict: dict[str, Any] | str, **kwargs: Any) -> FakeReply:
    return FakeReply(body=verdict_body(verdict, **kwargs))


def scripted_verdict(
    total_by_dimension: tuple[int, int, int, int],
    missing: tuple[str, ...] = (),
    outcome: str = "no_reference",
    outcome_reason: str = "scripted outcome",
) -> dict[str, Any]:
    """A valid verdict with these four dimension scores (the total is their sum), these missing tools and this
    outcome."""
    names = ("logical_flow", "consistency", "tool_relevance", "synthesis_quality")
    return {
        "total_score": sum(total_by_dimension),
        "score_breakdown": dict(zip(names, total_by_dimension, strict=True)),
        "score_reasoning": f"scripted verdict {total_by_dimension}",
        "missing_tools": [{"tool_name": name, "rationale": "scripted"} for name in missing],
        "alternative_approaches": [],
        "outcome": outcome,
        "outcome_reason": outcome_reason,
    }


def reply_verdicts(*verdicts: dict[str, Any]) -> list[FakeReply]:
    """A scripted sequence of verdicts, one per request, with the imitated prompt-cache accounting (so a repeated
    prompt reports its prefix as cache reads)."""
    return [FakeReply(body=verdict_body(v), cache_accounting=True) for v in verdicts]


def reply_error(status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> FakeReply:
    return FakeReply(status=status, body=error_body(kind, message), headers=headers or {})


SAMPLE_VERDICT: dict[str, Any] = {
    "total_score": 67,
    "score_breakdown": {"logical_flow": 15, "consistency": 18, "tool_relevance": 14, "synthesis_quality": 20},
    "score_reasoning": "The investigation demonstrates adequate methodology with notable gaps. However, the agent "
    "never read the previous container's logs before concluding.",
    "missing_tools": [
        {"tool_name": "list-processes-in-pod", "rationale": "Would have confirmed whether the binary was running."}
    ],
    "alternative_approaches": [
        {
            "name": "File-First Forensic Approach",
            "description": "Enumerate suspicious files before attempting execution verification.",
            "steps": [
                "Use list-files to discover all files in the suspicious directory",
                "Read each file to separate malware from false positives",
                "Correlate file timestamps with the alert time window",
            ],
        }
    ],
    "outcome": "no_reference",
    "outcome_reason": "no reference root cause was given for this session",
}

OUTCOME_FIRST_VERDICT: dict[str, Any] = {
    "total_score": 71,
    "score_breakdown": {
        "investigation_outcome": 16,
        "evidence_gathering": 13,
        "tool_utilization": 12,
        "analytical_reasoning": 15,
        "investigation_completeness": 10,
    },
    "score_reasoning": "The conclusion names the cause the events show, but the logs were never read.",
    "conclusion": "correct",
    "failure_tags": ["missed_available_tool", "incomplete_evidence"],
    "claims": [{"claim": "the pod was OOMKilled", "event": "1.2"}],
    "missing_tools": [{"tool_name": "pods_log", "rationale": "the logs would show the allocation"}],
    "alternative_approaches": [],
    "outcome": "no_reference",
    "outcome_reason": "no reference root cause was given",
}
"""A valid verdict of the outcome-first rubric (config/rubrics/outcome-first.yaml): five dimensions of 20, a holistic
total inside the range its ``conclusion`` allows (correct: 60-100), two tags from its vocabulary, a claim citing an
event."""

REFERENCE_FENCE = "<<<REFERENCE_ROOT_CAUSE "
DEFAULT_FOUND_REASON = "the fake judge's default answer to a request with a reference (it compares nothing)"


def carries_reference(payload: dict[str, Any]) -> bool:
    """Whether the request's messages carry a fenced reference root cause."""
    return any(
        REFERENCE_FENCE in str(block.get("text", ""))
        for message in payload.get("messages", [])
        for block in _blocks(message.get("content"))
    )


def default_verdict(payload: dict[str, Any]) -> dict[str, Any]:
    """The default verdict for ``payload``: ``SAMPLE_VERDICT``, its outcome ``found`` when the request carries a
    reference."""
    if not carries_reference(payload):
        return SAMPLE_VERDICT
    return {**SAMPLE_VERDICT, "outcome": "found", "outcome_reason": DEFAULT_FOUND_REASON}


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _tokens(text: str) -> int:
    return len(text) // 4


def _blocks(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    return [block for block in value or [] if isinstance(block, dict)]


def cache_usage(payload: dict[str, Any], seen: set[str], min_cache_tokens: int) -> dict[str, int]:
    """Usage as the Messages API reports it for ``payload``: the cached prefix (up to the last ``cache_control``
    block) read when ``seen`` holds it, written otherwise; input_tokens is everything after it."""
    blocks = _blocks(payload.get("system")) + [
        block for message in payload.get("messages", []) for block in _blocks(message.get("content"))
    ]
    last = max((i for i, block in enumerate(blocks) if block.get("cache_control")), default=-1)
    prefix = "".join(str(block.get("text", "")) for block in blocks[: last + 1])
    rest = "".join(str(block.get("text", "")) for block in blocks[last + 1 :])
    prefix_tokens = _tokens(prefix)
    usage = {"input_tokens": _tokens(rest), "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    if last < 0 or prefix_tokens < min_cache_tokens:
        usage["input_tokens"] += prefix_tokens
        return usage
    key = hashlib.sha256(f"{payload.get('model')}\0{prefix}".encode()).hexdigest()
    usage["cache_read_input_tokens" if key in seen else "cache_creation_input_tokens"] = prefix_tokens
    seen.add(key)
    return usage


def batch_succeeded(verdict: dict[str, Any] | str, **kwargs: Any) -> dict[str, Any]:
    return {"type": "succeeded", "message": verdict_body(verdict, **kwargs)}


def batch_errored(kind: str, message: str) -> dict[str, Any]:
    return {"type": "errored", "error": error_body(kind, message)}


def batch_expired() -> dict[str, Any]:
    return {"type": "expired"}


_BATCHES = "/v1/messages/batches"


@dataclass
class FakeBatch:
    id: str
    requests: list[dict[str, Any]]
    created_at: str
    status: str = "in_progress"
    cancel_initiated_at: str | None = None
    ended_at: str | None = None
    results: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self, base_url: str) -> dict[str, Any]:
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if self.status == "ended":
            for line in self.results:
                counts[line["result"]["type"]] += 1
        else:
            counts["processing"] = len(self.requests)
        return {
            "id": self.id,
            "type": "message_batch",
            "processing_status": self.status,
            "request_counts": counts,
            "created_at": self.created_at,
            "expires_at": self.created_at,
            "ended_at": self.ended_at,
            "cancel_initiated_at": self.cancel_initiated_at,
            "archived_at": None,
            "results_url": f"{base_url}{_BATCHES}/{self.id}/results" if self.status == "ended" else None,
        }


class HeldReply:
    """The fake's next answer (a verdict), held from the moment the request arrives until :meth:`answer` (or
    ``limit_seconds``, a hang guard): the judge "thinks" while a test kills, stops or outlives the scorer."""

    def __init__(self, fake: FakeClaude, limit_seconds: float = 120.0) -> None:
        self.arrived = threading.Event()
        self._answer = threading.Event()
        self._limit_seconds = limit_seconds
        fake.script(FakeReply(body=verdict_body(SAMPLE_VERDICT), on_request=self._hold))

    def _hold(self) -> None:
        self.arrived.set()
        self._answer.wait(self._limit_seconds)

    def answer(self) -> None:
        self._answer.set()


class FakeClaude(LoopbackHttpServer):
    """``base_url`` is what the SDK gets. Unscripted requests get ``default`` (a verdict)."""

    def __init__(self) -> None:
        super().__init__()
        self.replies: deque[FakeReply] = deque()
        self.default: FakeReply | None = self._default_reply()
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        """The path of each online request (the Vertex AI client's differ from the Messages API's)."""
        self.cached_prefixes: set[str] = set()
        self.min_cache_tokens = 1024
        self.batches: dict[str, FakeBatch] = {}
        self.batch_requests: list[dict[str, Any]] = []
        self.batch_script: deque[dict[str, Any]] = deque()
        self.hold_batches = False
        self._lock = threading.Lock()

    @staticmethod
    def _default_reply() -> FakeReply:
        return FakeReply(body=verdict_body(SAMPLE_VERDICT), cache_accounting=True)

    def script(self, *replies: FakeReply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.replies.clear()
            self.requests.clear()
            self.request_headers.clear()
            self.paths.clear()
            self.cached_prefixes.clear()
            self.default = self._default_reply()
            self.batches.clear()
            self.batch_requests.clear()
            self.batch_script.clear()
            self.hold_batches = False

    def script_batch(self, *results: dict[str, Any]) -> None:
        """Results for the next batch requests, in submission order (then the default verdict)."""
        with self._lock:
            self.batch_script.extend(results)

    def end_batches(self) -> None:
        """End every held batch (``hold_batches``): its requests get their results."""
        with self._lock:
            for batch in self.batches.values():
                self._end(batch)

    def _end(self, batch: FakeBatch) -> None:
        """Called with the lock held."""
        if batch.status == "ended":
            return
        for request in batch.requests:
            if batch.cancel_initiated_at is not None:
                result: dict[str, Any] = {"type": "canceled"}
            elif self.batch_script:
                result = self.batch_script.popleft()
            else:
                body = verdict_body(default_verdict(request["params"]))
                body["usage"] = {
                    **body["usage"],
                    **cache_usage(request["params"], self.cached_prefixes, self.min_cache_tokens),
                }
                result = {"type": "succeeded", "message": body}
            batch.results.append({"custom_id": request["custom_id"], "result": result})
        batch.status = "ended"
        batch.ended_at = _now()

    def _batch_post(self, path: str, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            if path == _BATCHES:
                batch = FakeBatch(f"msgbatch_{uuid.uuid4().hex}", list(payload.get("requests", [])), _now())
                self.batches[batch.id] = batch
                self.batch_requests.extend(batch.requests)
                return 200, batch.as_json(self.base_url)
            batch_id = path.removeprefix(_BATCHES + "/").removesuffix("/cancel")
            found = self.batches.get(batch_id)
            if found is None or not path.endswith("/cancel"):
                return 404, error_body("not_found_error", f"no batch {batch_id}")
            if found.status == "in_progress":
                found.status = "canceling"
                found.cancel_initiated_at = _now()
            return 200, found.as_json(self.base_url)

    def _batch_get(self, path: str) -> tuple[int, bytes]:
        with self._lock:
            rest = path.removeprefix(_BATCHES + "/")
            batch_id, _, tail = rest.partition("/")
            batch = self.batches.get(batch_id)
            if batch is None:
                return 404, json.dumps(error_body("not_found_error", f"no batch {batch_id}")).encode()
            if tail == "results":
                if batch.status != "ended":
                    return 400, json.dumps(error_body("invalid_request_error", "the batch has not ended")).encode()
                return 200, "".join(json.dumps(line) + "\n" for line in batch.results).encode()
            if batch.status == "canceling" or (batch.status == "in_progress" and not self.hold_batches):
                self._end(batch)
            return 200, json.dumps(batch.as_json(self.base_url)).encode()

    def _next(self) -> FakeReply | None:
        with self._lock:
            return self.replies.popleft() if self.replies else self.default

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                if not self.path.startswith(_BATCHES + "/"):
                    send_json(self, 404, json.dumps(error_body("not_found_error", self.path)).encode())
                    return
                status, data = fake._batch_get(self.path.split("?")[0])
                send_json(self, status, data)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                payload = json.loads(self.rfile.read(length) or b"{}")
                if self.path.split("?")[0].startswith(_BATCHES):
                    status, body = fake._batch_post(self.path.split("?")[0], payload)
                    send_json(self, status, json.dumps(body).encode())
                    return
                with fake._lock:
                    fake.requests.append(payload)
                    fake.request_headers.append({k.lower(): v for k, v in self.headers.items()})
                    fake.paths.append(self.path)
                reply = fake._next()
                if reply is None:
                    reply = FakeReply(status=500, body=error_body("api_error", "no scripted reply"))
                elif reply is fake.default and reply.body == verdict_body(SAMPLE_VERDICT):
                    reply = FakeReply(body=verdict_body(default_verdict(payload)), cache_accounting=True)
                if reply.on_request is not None:
                    reply.on_request()
                if reply.delay_seconds:
                    time.sleep(reply.delay_seconds)
                if reply.drop_connection:
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.connection.close()
                    return
                body = reply.body
                if reply.cache_accounting and isinstance(body, dict) and "usage" in body:
                    with fake._lock:
                        usage = cache_usage(payload, fake.cached_prefixes, fake.min_cache_tokens)
                    body = {**body, "usage": {**body["usage"], **usage}}
                data = (reply.raw if reply.raw is not None else json.dumps(body)).encode()
                send_json(self, reply.status, data, reply.headers)

        return Handler
