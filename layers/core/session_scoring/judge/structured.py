"""What the judges of other SDKs share with the Claude judge: the one output schema, validation, the one repair turn.

The schema sent and the model validated against are the Claude judge's (``sent_output_schema`` and its parser), so
every provider asks for and accepts the same verdict. A judge here implements :meth:`StructuredJudge._call` (one
request: the text, its usage, whether it stopped at the token limit) over its SDK; the conversation is a neutral
list of ``(role, text)`` turns after the system text.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from session_scoring.errors import JudgeOutputError, JudgePermanentError, JudgeTransientError
from session_scoring.judge.base import JudgePrompt, JudgeRequest
from session_scoring.judge.claude import parse_verdict_text, sent_output_schema
from session_scoring.log import logger, truncate
from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict, TokenUsage
from session_scoring.models.rubric import Rubric

Turn = tuple[str, str]
"""(``user`` | ``assistant``, text)."""


def is_strict_compatible(schema: Any) -> bool:
    """Whether ``schema`` fits OpenAI's strict structured outputs: every object closed with all properties
    required."""
    if isinstance(schema, list):
        return all(is_strict_compatible(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    if schema.get("type") == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        if schema.get("additionalProperties") is not False or set(schema.get("required", [])) != set(properties):
            return False
    return all(is_strict_compatible(value) for value in schema.values())


class StructuredJudge:
    """A judge over an SDK other than Anthropic's; subclasses set ``provider`` and implement ``_call``."""

    provider: str

    def __init__(self, model: str, max_tokens: int, rubric: Rubric) -> None:
        self.model = model
        self._max_tokens = max_tokens
        self._rubric = rubric
        self._schema = sent_output_schema(rubric)

    def _call(self, system: str, turns: list[Turn], timeout_seconds: float) -> tuple[str, TokenUsage, bool]:
        raise NotImplementedError

    def evaluate(self, request: JudgeRequest) -> JudgeVerdict:
        started = time.monotonic()
        if request.prompt is None:
            raise JudgePermanentError(f"the {self.provider} judge needs a rendered prompt and the request carries none")
        system = request.prompt.system
        turns: list[Turn] = [("user", request.prompt.user)]
        text, usage, truncated = self._call(system, turns, request.timeout_seconds)

        def repair_timeout() -> float:
            # The repair turn gets only what is left of this evaluation's time budget.
            timeout = request.timeout_seconds
            if request.budget_seconds is not None:
                timeout = min(timeout, request.budget_seconds - (time.monotonic() - started))
            return timeout

        output, usage = self._accept(
            lambda: (system, turns), text, usage, truncated, repair_timeout, request.reference is not None
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
        """A verdict from a batch answer, validated as an online one; an invalid one gets its repair turn online
        (``prompt`` renders the request again, only then). ``latency_ms`` is the repair turn's time."""
        started = time.monotonic()

        def conversation() -> tuple[str, list[Turn]]:
            rendered = prompt()
            return rendered.system, [("user", rendered.user)]

        output, usage = self._accept(conversation, text, usage, truncated, lambda: timeout_seconds, reference_given)
        return self._verdict(output, usage, started)

    def _verdict(self, output: JudgeOutputSchema, usage: TokenUsage, started: float) -> JudgeVerdict:
        return JudgeVerdict(
            output=output,
            provider=self.provider,
            model=self.model,
            usage=usage,
            latency_ms=int((time.monotonic() - started) * 1000),
        )

    def _accept(
        self,
        conversation: Callable[[], tuple[str, list[Turn]]],
        text: str,
        usage: TokenUsage,
        truncated: bool,
        repair_timeout: Callable[[], float],
        reference_given: bool,
    ) -> tuple[JudgeOutputSchema, TokenUsage]:
        """The answer validated; an invalid one gets one repair turn (the conversation built only then) with the
        validation errors sent back with the answer."""
        try:
            return parse_verdict_text(self._rubric, text, truncated, reference_given), usage
        except JudgeOutputError as first:
            problem = first
        logger.warning(
            "judge output invalid, sending one repair turn",
            extra={"provider": self.provider, "problem": problem.message, "raw": truncate(text)},
        )
        timeout = repair_timeout()
        if timeout < 1.0:
            raise JudgeTransientError("no time left for the repair turn of an invalid answer") from problem
        system, turns = conversation()
        turns = [
            *turns,
            ("assistant", text or "(empty response)"),
            (
                "user",
                f"Your answer was not a valid evaluation: {problem.message}. Respond again with only the corrected "
                "JSON object, matching the schema exactly; keep the reasoning concise enough to fit.",
            ),
        ]
        repaired, more, truncated = self._call(system, turns, timeout)
        usage = usage + more
        try:
            return parse_verdict_text(self._rubric, repaired, truncated, reference_given), usage
        except JudgeOutputError as second:
            logger.error(
                "judge output invalid after repair",
                extra={"provider": self.provider, "problem": second.message, "raw": truncate(repaired)},
            )
            raise JudgeOutputError(
                f"the judge's answer was invalid after one repair turn: {second.message}"
            ) from second
