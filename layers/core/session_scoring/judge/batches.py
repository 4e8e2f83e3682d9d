"""The Anthropic Message Batches API (``client.messages.batches``): submit, poll, read results, cancel.

Each request is built by :meth:`ClaudeJudge.request_params`, the same rendered prompt and output schema an online
call sends; its ``custom_id`` is the attempt's ``score_id``. SDK objects stay here: callers get
:class:`BatchResult`. SDK errors are mapped onto our hierarchy like the online judge's.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import anthropic
import httpx2

from session_scoring.errors import JudgePermanentError
from session_scoring.judge.base import JudgePrompt
from session_scoring.judge.claude import CONNECT_TIMEOUT_SECONDS, ClaudeJudge, read_message, sdk_errors
from session_scoring.models.judge import JudgeVerdict, TokenUsage

MAX_BATCH_REQUESTS = 100_000
"""The Message Batches API's limit of requests per batch."""
MAX_BATCH_BYTES = 256 * 1024 * 1024
"""The API's limit on a batch's size; chunks are kept under 90 % of it (the envelope adds bytes)."""

TRANSIENT_ERROR_TYPES = frozenset({"api_error", "overloaded_error", "rate_limit_error", "timeout_error"})
"""Errored results that another submission may well get through: they go back into the next batch."""

ResultKind = Literal["succeeded", "errored", "expired", "canceled"]


@dataclass(frozen=True)
class BatchRequest:
    custom_id: str
    params: dict[str, Any]
    size_bytes: int


@dataclass(frozen=True)
class BatchResult:
    """One line of a batch's results, mapped from the SDK's."""

    custom_id: str
    kind: ResultKind
    text: str = ""
    usage: TokenUsage = field(default_factory=TokenUsage)
    truncated: bool = False
    error_type: str | None = None
    error_message: str | None = None


def chunk_requests(
    requests: Sequence[BatchRequest], max_requests: int, max_bytes: int = int(MAX_BATCH_BYTES * 0.9)
) -> list[list[BatchRequest]]:
    """Split requests into batches within the API's limits: at most ``max_requests`` each and ``max_bytes`` of
    request bodies. A single request above ``max_bytes`` goes alone (the API rejects it, failing only it)."""
    max_requests = min(max_requests, MAX_BATCH_REQUESTS)
    chunks: list[list[BatchRequest]] = []
    current: list[BatchRequest] = []
    size = 0
    for request in requests:
        if current and (len(current) >= max_requests or size + request.size_bytes > max_bytes):
            chunks.append(current)
            current, size = [], 0
        current.append(request)
        size += request.size_bytes
    if current:
        chunks.append(current)
    return chunks


class MessageBatches:
    """Message Batches for the configured Claude judge (Anthropic API only: Bedrock has no such API here)."""

    max_batch_bytes = int(MAX_BATCH_BYTES * 0.9)
    """A batch's request bodies at most: under the API's limit (the envelope adds bytes)."""

    def __init__(self, client: anthropic.Anthropic, judge: ClaudeJudge, timeout_seconds: float) -> None:
        self._client = client
        self._judge = judge
        self._timeout_seconds = timeout_seconds
        self._timeout = httpx2.Timeout(timeout_seconds, connect=min(CONNECT_TIMEOUT_SECONDS, timeout_seconds))

    def request(self, score_id: uuid.UUID, prompt: JudgePrompt) -> BatchRequest:
        params = self._judge.request_params(prompt)
        return BatchRequest(str(score_id), params, len(json.dumps(params)))

    def submit(self, requests: Sequence[BatchRequest]) -> str:
        """Create one batch; its id."""
        with sdk_errors():
            batch = self._client.messages.batches.create(
                requests=cast(Any, [{"custom_id": r.custom_id, "params": r.params} for r in requests]),
                timeout=self._timeout,
            )
        return batch.id

    def ended(self, batch_id: str) -> bool:
        with sdk_errors():
            batch = self._client.messages.batches.retrieve(batch_id, timeout=self._timeout)
        return batch.processing_status == "ended"

    def results(self, batch_id: str) -> Iterator[BatchResult]:
        """The results of an ended batch, streamed line by line."""
        with sdk_errors():
            for line in self._client.messages.batches.results(batch_id, timeout=self._timeout):
                yield _result(line)

    def cancel(self, batch_id: str) -> None:
        with sdk_errors(), suppress(anthropic.NotFoundError):  # already gone: nothing left to cancel
            self._client.messages.batches.cancel(batch_id, timeout=self._timeout)

    def verdict(self, prompt: Callable[[], JudgePrompt], result: BatchResult, reference_given: bool) -> JudgeVerdict:
        """The verdict of a succeeded result: validated like an online answer (``reference_given``: the submitted
        request carried a reference), an invalid one repaired online within the judge's timeout."""
        return self._judge.batch_verdict(
            prompt, result.text, result.usage, result.truncated, self._timeout_seconds, reference_given
        )


def _result(line: Any) -> BatchResult:
    result = line.result
    kind = cast(ResultKind, result.type)
    if kind == "succeeded":
        return BatchResult(line.custom_id, kind, *read_message(result.message))
    if kind == "errored":
        error = getattr(result.error, "error", None)
        return BatchResult(
            line.custom_id,
            kind,
            error_type=getattr(error, "type", None),
            error_message=getattr(error, "message", None) or "no message",
        )
    if kind in ("expired", "canceled"):
        return BatchResult(line.custom_id, kind)
    raise JudgePermanentError(f"unknown Message Batches result type '{kind}' for request {line.custom_id}")
