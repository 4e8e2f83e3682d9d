"""Inspect AI eval logs (``*.json`` written by ``inspect eval --log-format json``): an object with ``eval``, ``plan``,
``results`` and ``samples``; each sample is one session (``sources.documents`` splits the log): its ``messages``
(assistant turns with ``tool_calls`` of ``function`` and ``arguments``, tool turns with an ``error`` object when
the call failed), its ``output`` (``choices[0].message``, the answer) and its ``scores``.
"""

from __future__ import annotations

from typing import Any

from session_scoring.models.session import Session
from session_scoring.sources.formats.common import TraceBuilder, TraceDocument, build_session, unwrap_output
from session_scoring.sources.formats.openai_chat import text_of

NAME = "inspect-ai-sample"
_OUTPUT = "output.choices"


def detect(content: Any) -> bool:
    """One sample: ``messages``, an ``epoch`` and the sample's ``input``."""
    return (
        isinstance(content, dict)
        and isinstance(content.get("messages"), list)
        and "epoch" in content
        and "input" in content
    )


def _text(content: Any, builder: TraceBuilder) -> tuple[str, str]:
    """(text, reasoning) of Inspect content: a string or parts (``text``, ``reasoning``)."""
    if not isinstance(content, list):
        return text_of(content, builder), ""
    reasoning = "\n".join(
        str(p.get("reasoning", "")) for p in content if isinstance(p, dict) and p.get("type") == "reasoning"
    )
    parts = [p for p in content if not (isinstance(p, dict) and p.get("type") == "reasoning")]
    return text_of(parts, builder), reasoning


def _answer(output: Any, builder: TraceBuilder) -> str | None:
    choices = output.get("choices") if isinstance(output, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    if not isinstance(message, dict) or message.get("tool_calls"):
        return None
    return _text(message.get("content"), builder)[0] or None


def parse(document: TraceDocument) -> Session:
    sample = document.content
    builder = TraceBuilder()
    for message in sample.get("messages") or []:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        text, reasoning = _text(message.get("content"), builder)
        if role == "system":
            builder.drop("system message(s)", reason="system prompts are instructions, not the investigation")
        elif role == "user":
            builder.user(text)
        elif role == "assistant":
            builder.text("reasoning", reasoning)
            calls = [c for c in message.get("tool_calls") or [] if isinstance(c, dict)]
            builder.text("reasoning" if calls else "message", text)
            for call in calls:
                builder.call(
                    str(call.get("function") or "unknown_tool"),
                    call.get("arguments"),
                    call_id=str(call.get("id") or "") or None,
                )
        elif role == "tool":
            error = message.get("error")
            failed = isinstance(error, dict) or bool(error)
            shown = text or (str(error.get("message", "")) if isinstance(error, dict) else str(error or ""))
            if failed and isinstance(error, dict):
                shown = f"{error.get('type', 'error')}: {error.get('message', '')}".strip()
            call_id = message.get("tool_call_id")
            builder.result(
                unwrap_output(shown, failed=failed),
                call_id=str(call_id) if call_id else None,
                name=message.get("function"),
            )
        else:
            builder.drop(f"'{role}' message(s)")
    answer = _answer(sample.get("output"), builder)
    scores = sample.get("scores")
    if isinstance(scores, dict) and scores:
        builder.drop("Inspect score(s)", len(scores), "the eval's own grading of the sample, not the agent's work")
    return build_session(document, builder, agent="inspect-ai", beside=(answer, _OUTPUT) if answer else None)
