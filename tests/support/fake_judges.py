"""Local HTTP servers that speak OpenAI's Chat Completions API and Gemini's ``generateContent``, for tests.

The real ``openai`` and ``google-genai`` SDKs are pointed at them through ``base_url``; nothing in an SDK is
patched (as with ``fake_claude.py``). Tests script the next replies (a verdict with its usage, an error status with
headers such as ``retry-after``, a slow answer, a dropped connection, raw text) and read back the requests, their
paths and headers. Unscripted requests get the default verdict (``SAMPLE_VERDICT``; its outcome ``found`` when the
request carries a fenced reference root cause), with fixed usage: 1,500 prompt tokens of which 500 cached, 450
output tokens (Gemini: 400 answer and 50 thinking tokens).
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections import deque
from email.parser import BytesParser
from email.policy import default
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.fake_claude import (
    DEFAULT_FOUND_REASON,
    REFERENCE_FENCE,
    SAMPLE_VERDICT,
    FakeReply,
)
from tests.support.loopback import LoopbackHttpServer, QuietHandler, send_json

PROMPT_TOKENS = 1500
CACHED_TOKENS = 500
OUTPUT_TOKENS = 450


def _verdict_for(payload: dict[str, Any]) -> dict[str, Any]:
    if REFERENCE_FENCE not in json.dumps(payload):
        return SAMPLE_VERDICT
    return {**SAMPLE_VERDICT, "outcome": "found", "outcome_reason": DEFAULT_FOUND_REASON}


class _ScriptedServer(LoopbackHttpServer):
    """Scripted replies in order, then the default verdict; every request recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.replies: deque[FakeReply] = deque()
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.request_headers: list[dict[str, str]] = []
        self.default: FakeReply | None = None
        """The reply to unscripted requests (e.g. an outage: always 503); None: the default verdict."""
        self._lock = threading.Lock()

    def script(self, *replies: FakeReply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def reset(self) -> None:
        with self._lock:
            self.replies.clear()
            self.requests.clear()
            self.paths.clear()
            self.request_headers.clear()
            self.default = None

    def verdict(self, verdict: dict[str, Any] | str, **usage: int) -> FakeReply:
        """A reply carrying ``verdict`` (a dict, or raw answer text such as invalid JSON) in this API's shape."""
        return FakeReply(body=self.answer_body(verdict if isinstance(verdict, str) else json.dumps(verdict), **usage))

    def error(self, status: int, message: str, headers: dict[str, str] | None = None) -> FakeReply:
        return FakeReply(status=status, body=self.error_body(status, message), headers=headers or {})

    def slow(self, seconds: float) -> FakeReply:
        """The default verdict, answered only after ``seconds`` (past a short judge timeout)."""
        return FakeReply(body=self.answer_body(json.dumps(SAMPLE_VERDICT)), delay_seconds=seconds)

    def answer_body(self, text: str, **usage: int) -> dict[str, Any]:
        raise NotImplementedError

    def route_post(self, path: str, content_type: str, raw: bytes) -> tuple[int, bytes] | None:
        """An answer for a POST other than a model call (batch endpoints); None: a model call."""
        return None

    def route_get(self, path: str) -> tuple[int, bytes] | None:
        return None

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        raise NotImplementedError

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(QuietHandler):
            def do_GET(self) -> None:
                answer = fake.route_get(self.path.split("?")[0])
                status, data = answer if answer is not None else (404, b'{"error": {"message": "not found"}}')
                send_json(self, status, data)

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length)
                routed = fake.route_post(self.path.split("?")[0], self.headers.get("content-type", ""), raw)
                if routed is not None:
                    send_json(self, *routed)
                    return
                payload = json.loads(raw or b"{}")
                with fake._lock:
                    fake.requests.append(payload)
                    fake.paths.append(self.path)
                    fake.request_headers.append({k.lower(): v for k, v in self.headers.items()})
                    reply = fake.replies.popleft() if fake.replies else fake.default
                if reply is None:
                    reply = FakeReply(body=fake.answer_body(json.dumps(_verdict_for(payload))))
                if reply.delay_seconds:
                    time.sleep(reply.delay_seconds)
                if reply.drop_connection:
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.connection.close()
                    return
                data = (reply.raw if reply.raw is not None else json.dumps(reply.body)).encode()
                send_json(self, reply.status, data, reply.headers)

        return Handler


class FakeOpenAI(_ScriptedServer):
    """``POST /v1/chat/completions`` (give the SDK ``base_url=fake.base_url + "/v1"``), and the Batch API: files
    uploaded (``POST /v1/files``, multipart) and read back (``GET /v1/files/ID/content``), batches created, retrieved
    and cancelled. A batch ends on its first retrieve (unless ``hold_batches``); each of its lines is answered by the
    next ``batch_script`` entry (a Batch API output line's ``response``, or ``{"error": {...}}`` for the error file)
    or the default verdict. Batch lines are recorded in ``batch_requests``, not in ``requests``."""

    def __init__(self) -> None:
        super().__init__()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_requests: list[dict[str, Any]] = []
        self.batch_script: deque[dict[str, Any]] = deque()
        self.hold_batches = False

    def reset(self) -> None:
        super().reset()
        with self._lock:
            self.files.clear()
            self.batches.clear()
            self.batch_requests.clear()
            self.batch_script.clear()
            self.hold_batches = False

    def route_post(self, path: str, content_type: str, raw: bytes) -> tuple[int, bytes] | None:
        with self._lock:
            if path == "/v1/files":
                file_id = f"file-{uuid.uuid4().hex}"
                self.files[file_id] = _multipart_file(content_type, raw)
                return 200, json.dumps(_file_json(file_id, len(self.files[file_id]))).encode()
            if path == "/v1/batches":
                request = json.loads(raw)
                lines = [json.loads(line) for line in self.files[request["input_file_id"]].decode().splitlines()]
                self.batch_requests.extend(lines)
                batch_id = f"batch_{uuid.uuid4().hex}"
                self.batches[batch_id] = {"id": batch_id, "status": "in_progress", "lines": lines, **request}
                return 200, json.dumps(_batch_json(self.batches[batch_id])).encode()
            if path.startswith("/v1/batches/") and path.endswith("/cancel"):
                batch = self.batches.get(path.split("/")[3])
                if batch is None:
                    return 404, json.dumps(self.error_body(404, "no such batch")).encode()
                if batch["status"] == "in_progress":
                    self._end(batch, cancelled=True)
                return 200, json.dumps(_batch_json(batch)).encode()
        return None

    def route_get(self, path: str) -> tuple[int, bytes] | None:
        with self._lock:
            if path.startswith("/v1/files/") and path.endswith("/content"):
                data = self.files.get(path.split("/")[3])
                return (200, data) if data is not None else (404, b'{"error": {"message": "no such file"}}')
            if path.startswith("/v1/batches/"):
                batch = self.batches.get(path.split("/")[3])
                if batch is None:
                    return 404, json.dumps(self.error_body(404, "no such batch")).encode()
                if batch["status"] == "in_progress" and not self.hold_batches:
                    self._end(batch)
                return 200, json.dumps(_batch_json(batch)).encode()
        return None

    def end_batches(self) -> None:
        with self._lock:
            for batch in self.batches.values():
                if batch["status"] == "in_progress":
                    self._end(batch)

    def _end(self, batch: dict[str, Any], cancelled: bool = False) -> None:
        """Called with the lock held: write the batch's output and error files."""
        output, errors = [], []
        for line in batch["lines"]:
            if cancelled:
                scripted: dict[str, Any] = {"error": {"code": "batch_cancelled", "message": "cancelled"}}
            elif self.batch_script:
                scripted = self.batch_script.popleft()
            else:
                text = json.dumps(_verdict_for(line["body"]))
                scripted = {"status_code": 200, "body": self.answer_body(text)}
            if "error" in scripted:
                errors.append({"custom_id": line["custom_id"], "response": None, **scripted})
            else:
                output.append({"custom_id": line["custom_id"], "response": scripted, "error": None})
        for key, lines in (("output_file_id", output), ("error_file_id", errors)):
            if lines:
                file_id = f"file-{uuid.uuid4().hex}"
                self.files[file_id] = "".join(json.dumps(line) + "\n" for line in lines).encode()
                batch[key] = file_id
        batch["status"] = "cancelled" if cancelled else "completed"

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/v1"

    def answer_body(
        self,
        text: str,
        prompt_tokens: int = PROMPT_TOKENS,
        cached_tokens: int = CACHED_TOKENS,
        completion_tokens: int = OUTPUT_TOKENS,
        finish_reason: str = "stop",
    ) -> dict[str, Any]:
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": "gpt-5",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text, "refusal": None},
                    "finish_reason": finish_reason,
                    "logprobs": None,
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
                "prompt_tokens_details": {"cached_tokens": cached_tokens},
            },
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        kind = {429: "rate_limit_exceeded", 401: "invalid_api_key"}.get(status, "server_error")
        return {"error": {"message": message, "type": kind, "param": None, "code": kind}}


_GOOGLE_STATUS = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 400: "INVALID_ARGUMENT"}


class FakeGemini(_ScriptedServer):
    """``POST /v1beta/models/MODEL:generateContent`` (Gemini API) and the Vertex AI path of the same method; and
    Gemini batch mode with inlined requests, at any API version the SDK sends (v1 or v1beta):
    ``POST /VERSION/models/MODEL:batchGenerateContent`` creates a batch (answered as the API does, a long-running
    operation whose ``metadata`` is the batch), ``GET /VERSION/batches/ID`` reads it,
    ``POST /VERSION/batches/ID:cancel`` cancels it. A batch ends on its first read (unless ``hold_batches``); each
    of its requests is answered by the next ``batch_script`` entry (an inlined response's ``response``, or
    ``{"error": {"code": ..., "message": ...}}``) or the default verdict, with the request's ``metadata`` echoed.
    Batch requests are recorded in ``batch_requests``, not in ``requests``."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_requests: list[dict[str, Any]] = []
        self.batch_paths: list[str] = []
        self.batch_script: deque[dict[str, Any]] = deque()
        self.hold_batches = False

    def reset(self) -> None:
        super().reset()
        with self._lock:
            self.batches.clear()
            self.batch_requests.clear()
            self.batch_paths.clear()
            self.batch_script.clear()
            self.hold_batches = False

    def route_post(self, path: str, content_type: str, raw: bytes) -> tuple[int, bytes] | None:
        with self._lock:
            resource = _without_version(path)
            if resource.startswith("models/") and resource.endswith(":batchGenerateContent"):
                self.batch_paths.append(path)
                body = json.loads(raw)["batch"]
                requests = body["inputConfig"]["requests"]["requests"]
                self.batch_requests.extend(requests)
                name = f"batches/{uuid.uuid4().hex}"
                model = resource.removesuffix(":batchGenerateContent")
                self.batches[name] = {
                    "name": name,
                    "model": model,
                    "displayName": body.get("displayName"),
                    "state": "BATCH_STATE_PENDING",
                    "requests": requests,
                }
                return 200, json.dumps(_operation_json(self.batches[name])).encode()
            if resource.startswith("batches/") and resource.endswith(":cancel"):
                self.batch_paths.append(path)
                batch = self.batches.get(resource.removesuffix(":cancel"))
                if batch is None:
                    return 404, json.dumps(self.error_body(404, "no such batch")).encode()
                if batch["state"] == "BATCH_STATE_PENDING":
                    batch["state"] = "BATCH_STATE_CANCELLED"
                return 200, b"{}"
        return None

    def route_get(self, path: str) -> tuple[int, bytes] | None:
        with self._lock:
            resource = _without_version(path)
            if resource.startswith("batches/"):
                self.batch_paths.append(path)
                batch = self.batches.get(resource)
                if batch is None:
                    return 404, json.dumps(self.error_body(404, "no such batch")).encode()
                if batch["state"] == "BATCH_STATE_PENDING" and not self.hold_batches:
                    self._end(batch)
                return 200, json.dumps(_operation_json(batch)).encode()
        return None

    def _end(self, batch: dict[str, Any]) -> None:
        """Called with the lock held: answer each inlined request, in order, with its metadata."""
        answers = []
        for request in batch["requests"]:
            if self.batch_script:
                scripted = self.batch_script.popleft()
            else:
                scripted = {"response": self.answer_body(json.dumps(_verdict_for(request["request"])))}
            answers.append({**scripted, "metadata": request.get("metadata", {})})
        batch["output"] = {"inlinedResponses": {"inlinedResponses": answers}}
        batch["state"] = "BATCH_STATE_SUCCEEDED"

    def answer_body(
        self,
        text: str,
        prompt_tokens: int = PROMPT_TOKENS,
        cached_tokens: int = CACHED_TOKENS,
        candidates_tokens: int = OUTPUT_TOKENS - 50,
        thoughts_tokens: int = 50,
        finish_reason: str = "STOP",
    ) -> dict[str, Any]:
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": finish_reason, "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": prompt_tokens,
                "cachedContentTokenCount": cached_tokens,
                "candidatesTokenCount": candidates_tokens,
                "thoughtsTokenCount": thoughts_tokens,
                "totalTokenCount": prompt_tokens + candidates_tokens + thoughts_tokens,
            },
            "modelVersion": "gemini-2.5-pro",
        }

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"code": status, "message": message, "status": _GOOGLE_STATUS.get(status, "UNKNOWN")}}


def _without_version(path: str) -> str:
    """A Gemini API path without its API version: ``/v1beta/batches/x`` -> ``batches/x``."""
    _, version, rest = [*path.split("/", 2), "", ""][:3]
    return rest if version.startswith("v1") else path.lstrip("/")


def _operation_json(batch: dict[str, Any]) -> dict[str, Any]:
    """A batch as the Gemini API answers for it: an operation named after it, the batch in its metadata."""
    metadata = {
        "@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.GenerateContentBatch",
        "name": batch["name"],
        "model": batch["model"],
        "displayName": batch["displayName"],
        "state": batch["state"],
        "createTime": "2026-12-02T00:00:00Z",
    }
    if "output" in batch:
        metadata["output"] = batch["output"]
    done = batch["state"] != "BATCH_STATE_PENDING"
    return {"name": batch["name"], "metadata": metadata, "done": done}


def gemini_batch_error(code: int, message: str) -> dict[str, Any]:
    """An inlined answer that is an error (a ``google.rpc.Status``: 3 invalid argument, 8 exhausted, 13 internal)."""
    return {"error": {"code": code, "message": message}}


def _multipart_file(content_type: str, raw: bytes) -> bytes:
    """The ``file`` part of a multipart/form-data upload."""
    message = BytesParser(policy=default).parsebytes(b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw)
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            payload = part.get_payload(decode=True)
            return payload if isinstance(payload, bytes) else b""
    return b""


def _file_json(file_id: str, size: int) -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": size,
        "created_at": 0,
        "filename": "judge-batch.jsonl",
        "purpose": "batch",
        "status": "processed",
    }


def _batch_json(batch: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": batch["id"],
        "object": "batch",
        "endpoint": batch["endpoint"],
        "input_file_id": batch["input_file_id"],
        "completion_window": batch["completion_window"],
        "status": batch["status"],
        "output_file_id": batch.get("output_file_id"),
        "error_file_id": batch.get("error_file_id"),
        "created_at": 0,
    }


def batch_line_error(status: int, message: str) -> dict[str, Any]:
    """A batch line answered with an error status (in the output file)."""
    return {"status_code": status, "body": {"error": {"message": message, "type": "error"}}}
