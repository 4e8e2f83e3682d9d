"""Gemini batch mode (``client.batches`` of the Google Gen AI SDK) for batch-mode runs of the ``google`` judge on the
Gemini API, with the interface of :class:`judge.batches.MessageBatches`: submit, poll, read results, cancel.

Each request is the ``generateContent`` request an online call sends (the same contents, system instruction and
JSON schema: :meth:`GoogleJudge.request_config`), inlined in the batch (``batches.create(src=[...])``, the
``models/MODEL:batchGenerateContent`` method) with the attempt's ``score_id`` as its ``metadata.key``; the answers
come back inlined in the ended batch (``batches.get``), each with its metadata. Inline requests are the Gemini API's
only source without a file upload; Vertex AI's batch prediction reads Cloud Storage or BigQuery instead, so a
Gemini-on-Vertex judge has no batch mode here. An answer's error is a ``google.rpc.Status``: deadline, exhaustion,
abort, internal and unavailable codes go into the next batch, the others fail their attempt. A batch that expired
or was cancelled outside this service reports the requests it answered; the others fail (the poller says the batch
ended without their result). SDK errors are mapped onto our hierarchy like the online judge's.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from google import genai
from google.genai import errors, types

from session_scoring.errors import JudgePermanentError
from session_scoring.judge.base import JudgePrompt
from session_scoring.judge.batches import BatchRequest, BatchResult
from session_scoring.judge.google_judge import GoogleJudge, google_errors, no_retries, read_response
from session_scoring.models.judge import JudgeVerdict

MAX_INLINE_BYTES: Final = 20 * 1024 * 1024
"""The Gemini API's limit on a batch request with inlined requests; chunks are kept under 90 % of it."""

_ENDED = frozenset(
    {
        types.JobState.JOB_STATE_SUCCEEDED,
        types.JobState.JOB_STATE_FAILED,
        types.JobState.JOB_STATE_CANCELLED,
        types.JobState.JOB_STATE_EXPIRED,
        types.JobState.JOB_STATE_PARTIALLY_SUCCEEDED,
    }
)
_TRANSIENT_CODES: Final = {
    4: "timeout_error",  # DEADLINE_EXCEEDED
    8: "rate_limit_error",  # RESOURCE_EXHAUSTED
    10: "api_error",  # ABORTED
    13: "api_error",  # INTERNAL
    14: "overloaded_error",  # UNAVAILABLE
}
"""google.rpc codes another submission may well get through, as the Message Batches error types the poller retries."""


class GoogleBatches:
    """Gemini batch mode for the configured Gemini judge (Gemini API only)."""

    max_batch_bytes = int(MAX_INLINE_BYTES * 0.9)
    """Kept under the Gemini API's limit on a request with inlined requests (the envelope adds bytes)."""

    def __init__(self, client: genai.Client, judge: GoogleJudge, timeout_seconds: float) -> None:
        self._client = client
        self._judge = judge
        self._timeout_seconds = timeout_seconds
        self._http = types.HttpOptions(timeout=max(1, int(timeout_seconds * 1000)), retry_options=no_retries())

    def request(self, score_id: uuid.UUID, prompt: JudgePrompt) -> BatchRequest:
        """The inlined request of one attempt: the online call's contents and config, keyed by its score id."""
        request = types.InlinedRequest(
            model=self._judge.model,
            contents=GoogleJudge.contents([("user", prompt.user)]),
            metadata={"key": str(score_id)},
            config=self._judge.request_config(prompt.system, None),
        )
        size = len(json.dumps(request.model_dump(mode="json", exclude_none=True)))
        return BatchRequest(str(score_id), {"request": request}, size)

    def submit(self, requests: Sequence[BatchRequest]) -> str:
        """Create one batch of the inlined requests; its name (``batches/...``)."""
        with google_errors():
            batch = self._client.batches.create(
                model=self._judge.model,
                src=[r.params["request"] for r in requests],
                config=types.CreateBatchJobConfig(display_name="session-scoring", http_options=self._http),
            )
        if not batch.name:
            raise JudgePermanentError("the Gemini API created a batch without a name")
        return batch.name

    def ended(self, batch_id: str) -> bool:
        return self._get(batch_id).state in _ENDED

    def results(self, batch_id: str) -> Iterator[BatchResult]:
        """The answers of an ended batch, each by the score id in its metadata."""
        batch = self._get(batch_id)
        if batch.state == types.JobState.JOB_STATE_FAILED and (batch.dest is None or not batch.dest.inlined_responses):
            problem = batch.error.message if batch.error is not None and batch.error.message else "no reason given"
            raise JudgePermanentError(f"the Gemini batch failed: {problem}")
        responses = batch.dest.inlined_responses if batch.dest is not None else None
        for answer in responses or ():
            result = _result(answer)
            if result is not None:
                yield result

    def cancel(self, batch_id: str) -> None:
        try:
            with google_errors():
                self._client.batches.cancel(name=batch_id, config=types.CancelBatchJobConfig(http_options=self._http))
        except JudgePermanentError as exc:
            if isinstance(exc.__cause__, errors.ClientError) and exc.__cause__.code == 404:
                return  # already gone: nothing left to cancel
            raise

    def verdict(self, prompt: Callable[[], JudgePrompt], result: BatchResult, reference_given: bool) -> JudgeVerdict:
        """The verdict of an answered request, validated like an online answer (an invalid one repaired online)."""
        return self._judge.batch_verdict(
            prompt, result.text, result.usage, result.truncated, self._timeout_seconds, reference_given
        )

    def _get(self, batch_id: str) -> types.BatchJob:
        with google_errors():
            return self._client.batches.get(name=batch_id, config=types.GetBatchJobConfig(http_options=self._http))


def _result(answer: Any) -> BatchResult | None:
    """One inlined answer as a result; None when it carries no key (not a request this service sent)."""
    key = (answer.metadata or {}).get("key")
    if not key:
        return None
    if answer.error is not None:
        code = int(answer.error.code or 0)
        message = answer.error.message or f"code {code}"
        return BatchResult(
            key, "errored", error_type=_TRANSIENT_CODES.get(code, "invalid_request_error"), error_message=message
        )
    if answer.response is None:
        return BatchResult(key, "errored", error_type="api_error", error_message="the batch gave no response")
    text, usage, truncated = read_response(answer.response)
    return BatchResult(key, "succeeded", text=text, usage=usage, truncated=truncated)
