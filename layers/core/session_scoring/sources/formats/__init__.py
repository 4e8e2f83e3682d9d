"""Trace formats of other agents, each in its own module, chosen by the shape of the document.

:data:`FORMATS` is the registry, in detection order (the first whose ``detect`` accepts the document parses it).
:func:`load_text` turns a file's or upload's text (JSON or JSON Lines) into a :class:`TraceDocument`, naming the
line that does not parse. ``docs/trace-formats.md`` documents every format and its mapping.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from session_scoring.errors import SessionDataError
from session_scoring.models.session import Session
from session_scoring.sources.formats import (
    agent_jsonl,
    anthropic_messages,
    openai_chat,
    openai_responses,
    otel_genai,
)
from session_scoring.sources.formats.common import TraceDocument

__all__ = ["FORMATS", "TraceDocument", "TraceFormat", "detect_format", "load_text"]


@dataclass(frozen=True)
class TraceFormat:
    name: str
    description: str
    detect: Callable[[Any], bool]
    parse: Callable[[TraceDocument], Session]


FORMATS: tuple[TraceFormat, ...] = (
    TraceFormat(otel_genai.NAME, "an OTLP JSON trace with gen_ai.* spans", otel_genai.detect, otel_genai.parse),
    TraceFormat(agent_jsonl.CODEX, "a Codex CLI session log", agent_jsonl.detect_codex, agent_jsonl.parse_codex),
    TraceFormat(
        agent_jsonl.CLAUDE_CODE,
        "a Claude Code session log",
        agent_jsonl.detect_claude_code,
        agent_jsonl.parse_claude_code,
    ),
    TraceFormat(
        openai_responses.NAME,
        "OpenAI Responses items (function_call, function_call_output, reasoning)",
        openai_responses.detect,
        openai_responses.parse,
    ),
    TraceFormat(
        anthropic_messages.NAME,
        "Anthropic messages with content blocks (tool_use, tool_result, thinking)",
        anthropic_messages.detect,
        anthropic_messages.parse,
    ),
    TraceFormat(
        openai_chat.NAME,
        "OpenAI chat messages (a list, or {'messages': [...]})",
        openai_chat.detect,
        openai_chat.parse,
    ),
)


def detect_format(content: Any) -> TraceFormat | None:
    return next((f for f in FORMATS if f.detect(content)), None)


def expected_formats() -> str:
    return "; ".join(f.description for f in FORMATS)


def load_text(text: str, origin: str) -> TraceDocument:
    """A JSON document, or JSON Lines (one object per line; the origin ends with ``.jsonl``, or the text is not
    one JSON value but several lines). Errors name the origin and the line."""
    stripped = text.strip()
    if not stripped:
        raise SessionDataError(f"{origin}: the file is empty; expected a JSON document or JSON Lines")
    if not origin.endswith(".jsonl"):
        try:
            return TraceDocument(json.loads(stripped), origin)
        except ValueError as exc:
            if "\n" not in stripped:
                raise SessionDataError(f"{origin}: not valid JSON ({exc})") from exc
            try:
                json.loads(stripped.splitlines()[0])
            except ValueError:
                raise SessionDataError(f"{origin}: not valid JSON ({exc})") from exc
    items: list[Any] = []
    lines: list[int] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except ValueError as exc:
            raise SessionDataError(
                f"{origin}: line {number}: expected one JSON object per line (JSON Lines), got invalid JSON ({exc})"
            ) from exc
        lines.append(number)
    return TraceDocument(items, origin, tuple(lines))
