"""The Claude judge through the official ``anthropic`` SDK (Anthropic API or Amazon Bedrock).

Output is schema-constrained (``output_config``, the schema generated from the rubric) and validated again here
against every rule of the rubric (:meth:`Rubric.parse_verdict`) and the request's reference (:func:`checked_outcome`);
invalid output gets one repair turn with the broken rule named, then fails the attempt with the reason (never a score
of 0). The SDK's own retries are off: ours are bounded by the
Lambda's remaining time. The system text is marked ``cache_control`` so every score after the first reads the rubric
from the prompt cache (docs/judge-input.md).
"""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, cast

import anthropic
import httpx2
from anthropic import transform_schema
from anthropic.types import MessageParam, OutputConfigParam, TextBlockParam

from session_scoring.errors import (
    JudgeOutputError,
    JudgePermanentError,
    JudgeTransientError,
)
from session_scoring.judge.base import JudgePrompt, JudgeRequest
from session_scoring.judge.sdk_errors import status_error, timed_out, unreachable
from session_scoring.log import logger, truncate
from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict, TokenUsage, checked_outcome
from session_scoring.models.rubric import Rubric

CONNECT_TIMEOUT_SECONDS = 5.0


def classify_sdk_error(exc: anthropic.AnthropicError) -> Exception:
    """Map an SDK error onto our hierarchy: transient (retry, counts for the breaker) or permanent."""
    if isinstance(exc, anthropic.APITimeoutError):
        return timed_out(exc)
    if isinstance(exc, anthropic.APIConnectionError):
        return unreachable(exc)
    if isinstance(exc, anthropic.APIStatusError):
        return status_error(
            exc.status_code,
            _error_message(exc),
            exc.response.headers,
            "ANTHROPIC_API_KEY, ANTHROPIC_API_KEY_SECRET_ARN or the Bedrock role permissions",
        )
    return JudgePermanentError(f"judge client error: {exc}")


def _error_message(exc: anthropic.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(exc.message)


@contextmanager
def sdk_errors() -> Iterator[None]:
    """Raise an SDK error inside the block as :func:`classify_sdk_error` maps it."""
    try:
        yield
    except anthropic.AnthropicError as exc:
        raise classify_sdk_error(exc) from exc


def read_message(message: Any) -> tuple[str, TokenUsage, bool]:
    """A Messages API answer's text, its usage, and whether it stopped at max_tokens."""
    usage = TokenUsage(
        input_tokens=message.usage.input_tokens,
        output_tokens=message.usage.output_tokens,
        cache_read_tokens=message.usage.cache_read_input_tokens or 0,
        cache_write_tokens=message.usage.cache_creation_input_tokens or 0,
    )
    text = "".join(block.text for block in message.content if block.type == "text")
    return text, usage, message.stop_reason == "max_tokens"


_CONSTRAINT_NOTE = re.compile(r"\n\n\{[^{}]*\}$")


def _lean_schema(schema: Any) -> Any:
    """The schema as sent, without what costs input tokens on every request and says nothing new: pydantic's
    ``title`` keys and the constraint notes ``transform_schema`` appends to descriptions (every answer is validated
    against the full model anyway)."""
    if isinstance(schema, dict):
        lean: dict[str, Any] = {}
        for key, value in schema.items():
            if key == "title" and isinstance(value, str):
                continue
            if key == "description" and isinstance(value, str):
                value = _CONSTRAINT_NOTE.sub("", value)
            lean[key] = _lean_schema(value)
        return lean
    if isinstance(schema, list):
        return [_lean_schema(item) for item in schema]
    return schema


_DEFS_PREFIX = "#/$defs/"


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every ``$ref`` to its ``$defs`` replaced by the definition (each is used once), and each text
    kept once: a definition's description is dropped where the referring node, or the array whose items it
    describes, has its own, and so is the root's (the model's docstring). A recursive definition is refused."""
    definitions: dict[str, Any] = schema.get("$defs", {})

    def expand(node: Any, described: bool, expanding: tuple[str, ...]) -> Any:
        """``node`` (a schema) inlined; ``described``: its parent already says what it is."""
        if isinstance(node, list):
            return [expand(item, False, expanding) for item in node]
        if not isinstance(node, dict):
            return node
        reference = node.get("$ref")
        if isinstance(reference, str) and reference.startswith(_DEFS_PREFIX):
            name = reference.removeprefix(_DEFS_PREFIX)
            if name in expanding:
                raise ValueError(f"the output schema's definition {name!r} is recursive and cannot be inlined")
            target = expand(definitions[name], False, (*expanding, name))
            siblings = keywords({key: value for key, value in node.items() if key != "$ref"}, expanding)
            if described or "description" in siblings:
                target.pop("description", None)
            return {**target, **siblings}
        return keywords(node, expanding)

    def keywords(node: dict[str, Any], expanding: tuple[str, ...]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$defs":
                continue
            if key == "properties" and isinstance(value, dict):
                # Field names here, not keywords: a field may well be called "description" or "items".
                out[key] = {field: expand(sub, False, expanding) for field, sub in value.items()}
            else:
                out[key] = expand(value, key == "items" and "description" in node, expanding)
        return out

    inlined: dict[str, Any] = expand(schema, False, ())
    inlined.pop("description", None)
    return inlined


def sent_output_schema(rubric: Rubric) -> dict[str, Any]:
    """The JSON schema sent as ``output_config``: the rubric's output schema as the API accepts it, lean and
    inlined."""
    return _inlined(_lean_schema(transform_schema(copy.deepcopy(rubric.output_json_schema()))))


class ClaudeJudge:
    """A judge backed by a Claude model."""

    def __init__(
        self,
        client: anthropic.Anthropic | anthropic.AnthropicBedrock,
        provider: str,
        model: str,
        max_tokens: int,
        rubric: Rubric,
    ) -> None:
        self._client = client
        self.provider = provider
        self.model = model
        self._max_tokens = max_tokens
        self._rubric = rubric
        schema = sent_output_schema(rubric)
        self._output_config = cast(OutputConfigParam, {"format": {"type": "json_schema", "schema": schema}})

    def request_params(self, prompt: JudgePrompt) -> dict[str, Any]:
        """The Messages API request for ``prompt``: what ``messages.create`` sends, and the ``params`` of a Message
        Batches request (one request building for both modes)."""
        return self._params(*self._conversation(prompt))

    def _params(self, system: list[TextBlockParam], messages: list[MessageParam]) -> dict[str, Any]:
        return {
            "model": self.model,
            "max_tokens": self._max_tokens,
            "system": system,
            "messages": messages,
            "output_config": self._output_config,
        }

    def _verdict(self, output: JudgeOutputSchema, usage: TokenUsage, started: float) -> JudgeVerdict:
        return JudgeVerdict(
            output=output,
            provider=self.provider,
            model=self.model,
            usage=usage,
            latency_ms=int((time.monotonic() - started) * 1000),
        )

    @staticmethod
    def _conversation(prompt: JudgePrompt) -> tuple[list[TextBlockParam], list[MessageParam]]:
        system: list[TextBlockParam] = [{"type": "text", "text": prompt.system, "cache_control": {"type": "ephemeral"}}]
        return system, [{"role": "user", "content": prompt.user}]

    def evaluate(self, request: JudgeRequest) -> JudgeVerdict:
        started = time.monotonic()
        if request.prompt is None:
            raise JudgePermanentError("the Claude judge needs a rendered prompt and the request carries none")
        system, messages = self._conversation(request.prompt)
        text, usage, truncated = self._call(system, messages, request.timeout_seconds)
        reference_given = request.reference is not None

        def repair_timeout() -> float:
            # The repair turn gets only what is left of this evaluation's time budget, so the two calls together
            # never run past the deadline the caller computed from the Lambda's remaining time.
            timeout = request.timeout_seconds
            if request.budget_seconds is not None:
                timeout = min(timeout, request.budget_seconds - (time.monotonic() - started))
            return timeout

        output, usage = self._accept(
            lambda: (system, messages), text, usage, truncated, repair_timeout, reference_given
        )
        return self._verdict(output, usage, started)

    def batch_verdict(
        self,
        prompt: Callable[[], JudgePrompt],
        text: str,
        usage: TokenUsage,
        truncated: bool,
        timeout_seconds: float,
        reference_given: bool = False,
    ) -> JudgeVerdict:
        """A verdict from a Message Batches answer, validated exactly as an online answer (``reference_given``: the
        submitted request carried a reference); an invalid answer gets its repair turn online (``prompt`` renders the
        original request again, only then). ``latency_ms`` is the repair turn's time (0 without one): the batch's own
        wait is not judge latency."""
        started = time.monotonic()
        output, usage = self._accept(  # the request is rendered again only for a repair turn
            lambda: self._conversation(prompt()), text, usage, truncated, lambda: timeout_seconds, reference_given
        )
        return self._verdict(output, usage, started)

    def _accept(
        self,
        conversation: Callable[[], tuple[list[TextBlockParam], list[MessageParam]]],
        text: str,
        usage: TokenUsage,
        truncated: bool,
        repair_timeout: Callable[[], float],
        reference_given: bool,
    ) -> tuple[JudgeOutputSchema, TokenUsage]:
        """The answer validated; an invalid one gets one repair turn in ``conversation`` (built only then), the
        validation errors sent back with the answer."""
        try:
            return self._parse(text, truncated, reference_given), usage
        except JudgeOutputError as first:
            problem = first
        logger.warning(
            "judge output invalid, sending one repair turn", extra={"problem": problem.message, "raw": truncate(text)}
        )
        system, messages = conversation()
        messages = [
            *messages,
            {"role": "assistant", "content": text or "(empty response)"},
            {
                "role": "user",
                "content": "Your answer was not a valid evaluation: "
                f"{problem.message}. Respond again with only the corrected JSON object, matching the schema "
                "exactly; keep the reasoning concise enough to fit.",
            },
        ]
        timeout = repair_timeout()
        if timeout < 1.0:
            raise JudgeTransientError("no time left for the repair turn of an invalid answer") from problem
        repaired, more, truncated = self._call(system, messages, timeout)
        usage = usage + more
        try:
            return self._parse(repaired, truncated, reference_given), usage
        except JudgeOutputError as second:
            logger.error(
                "judge output invalid after repair", extra={"problem": second.message, "raw": truncate(repaired)}
            )
            raise JudgeOutputError(
                f"the judge's answer was invalid after one repair turn: {second.message}"
            ) from second

    def _call(
        self, system: list[TextBlockParam], messages: list[MessageParam], timeout_seconds: float
    ) -> tuple[str, TokenUsage, bool]:
        """One Messages API call: the text, its usage, and whether it stopped at max_tokens."""
        with sdk_errors():
            response = self._client.messages.create(
                **self._params(system, messages),
                timeout=httpx2.Timeout(timeout_seconds, connect=min(CONNECT_TIMEOUT_SECONDS, timeout_seconds)),
            )
        return read_message(response)

    def _parse(self, text: str, truncated: bool, reference_given: bool) -> JudgeOutputSchema:
        return parse_verdict_text(self._rubric, text, truncated, reference_given)


def parse_verdict_text(rubric: Rubric, text: str, truncated: bool, reference_given: bool) -> JudgeOutputSchema:
    """A judge's answer text validated against every rule of ``rubric`` and the request's reference (every provider
    validates its answers with this)."""
    if truncated:
        raise JudgeOutputError("the response was cut off at max_tokens (the JSON is incomplete)")
    if not text.strip():
        raise JudgeOutputError("the response was empty")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JudgeOutputError(f"the response is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from exc
    return checked_outcome(rubric.parse_verdict(data), reference_given)
