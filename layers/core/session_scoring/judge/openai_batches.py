"""The OpenAI Batch API (``client.files`` + ``client.batches``) for batch-mode runs of the ``openai`` judge, with
the interface of :class:`judge.batches.MessageBatches`: submit, poll, read results, cancel.

Each request line is the Chat Completions body an online call sends (:meth:`OpenAIJudge.request_body`), its
``custom_id`` the attempt's ``score_id``; the lines are uploaded as one JSONL file (``purpose="batch"``) and the batch
created on ``/v1/chat/completions`` with a 24 h window. Results come from the batch's output file and error file;
a request the batch did not reach (``batch_expired``, ``batch_cancelled``) is reported as expired or cancelled, so
the poller puts it into the next batch or fails it as for Message Batches. SDK errors are mapped onto our hierarchy
like the online judge's.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from typing import Any, Final

import httpx2
import openai
from openai.types.chat import ChatCompletion

from session_scoring.judge.base import JudgePrompt
from session_scoring.judge.batches import BatchRequest, BatchResult
from session_scoring.judge.openai_judge import CONNECT_TIMEOUT_SECONDS, OpenAIJudge, openai_errors, read_completion
from session_scoring.models.judge import JudgeVerdict

ENDPOINT: Final = "/v1/chat/completions"
MAX_INPUT_FILE_BYTES: Final = 200 * 1024 * 1024
"""The Batch API's limit on a batch's input file."""
_ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
_NOT_REACHED = {"batch_expired": "expired", "batch_cancelled": "canceled"}


def _error_type(status: int) -> str:
    """The Message Batches error type a failed line's status stands for (the poller retries the transient ones)."""
    if status == 429:
        return "rate_limit_error"
    if status >= 500:
        return "api_error"
    return "invalid_request_error"


class OpenAIBatches:
    """Batch API calls for the configured OpenAI judge."""

    max_batch_bytes = int(MAX_INPUT_FILE_BYTES * 0.9)
    """A batch's input file at most: under the Batch API's limit (the JSONL lines' envelopes add bytes)."""

    def __init__(self, client: openai.OpenAI, judge: OpenAIJudge, timeout_seconds: float) -> None:
        self._client = client
        self._judge = judge
        self._timeout_seconds = timeout_seconds
        self._timeout = httpx2.Timeout(timeout_seconds, connect=min(CONNECT_TIMEOUT_SECONDS, timeout_seconds))

    def request(self, score_id: uuid.UUID, prompt: JudgePrompt) -> BatchRequest:
        body = self._judge.request_body(prompt.system, [("user", prompt.user)])
        line = {"custom_id": str(score_id), "method": "POST", "url": ENDPOINT, "body": body}
        return BatchRequest(str(score_id), line, len(json.dumps(line)))

    def submit(self, requests: Sequence[BatchRequest]) -> str:
        """Upload the requests as one JSONL file and create a batch of it; its id."""
        data = "".join(json.dumps(r.params) + "\n" for r in requests).encode()
        with openai_errors():
            uploaded = self._client.files.create(
                file=("judge-batch.jsonl", data, "application/jsonl"), purpose="batch", timeout=self._timeout
            )
            batch = self._client.batches.create(
                input_file_id=uploaded.id, endpoint=ENDPOINT, completion_window="24h", timeout=self._timeout
            )
        return batch.id

    def ended(self, batch_id: str) -> bool:
        with openai_errors():
            batch = self._client.batches.retrieve(batch_id, timeout=self._timeout)
        return batch.status in _ENDED

    def results(self, batch_id: str) -> Iterator[BatchResult]:
        """The results of an ended batch: its output file's lines, then its error file's."""
        with openai_errors():
            batch = self._client.batches.retrieve(batch_id, timeout=self._timeout)
            for file_id in (batch.output_file_id, batch.error_file_id):
                if not file_id:
                    continue
                content = self._client.files.content(file_id, timeout=self._timeout).text
                for text in content.splitlines():
                    if text.strip():
                        yield _result(json.loads(text))

    def cancel(self, batch_id: str) -> None:
        with openai_errors(), suppress(openai.NotFoundError):  # already gone: nothing left to cancel
            self._client.batches.cancel(batch_id, timeout=self._timeout)

    def verdict(self, prompt: Callable[[], JudgePrompt], result: BatchResult, reference_given: bool) -> JudgeVerdict:
        """The verdict of a succeeded line, validated like an online answer (an invalid one repaired online)."""
        return self._judge.batch_verdict(
            prompt, result.text, result.usage, result.truncated, self._timeout_seconds, reference_given
        )


def _result(line: dict[str, Any]) -> BatchResult:
    custom_id = str(line.get("custom_id"))
    error = line.get("error")
    if isinstance(error, dict):
        code = str(error.get("code") or "error")
        if code in _NOT_REACHED:
            return BatchResult(custom_id, "expired" if code == "batch_expired" else "canceled")
        return BatchResult(custom_id, "errored", error_type=code, error_message=str(error.get("message") or code))
    response = line.get("response") or {}
    status = int(response.get("status_code") or 0)
    body = response.get("body") or {}
    if status != 200:
        problem = body.get("error") if isinstance(body, dict) else None
        message = problem.get("message") if isinstance(problem, dict) else None
        return BatchResult(custom_id, "errored", error_type=_error_type(status), error_message=str(message or status))
    text, usage, truncated = read_completion(ChatCompletion.model_validate(body))
    return BatchResult(custom_id, "succeeded", text=text, usage=usage, truncated=truncated)
