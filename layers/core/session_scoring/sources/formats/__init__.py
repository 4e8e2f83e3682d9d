"""Trace formats of other agents, each in its own module, chosen by the shape of the document.

:data:`FORMATS` is the registry, in detection order (the first whose ``detect`` accepts the document parses it).
:func:`load_text` turns a file's or upload's text (JSON or JSON Lines) into a :class:`TraceDocument`, naming the
line that does not parse. ``docs/trace-formats.md`` documents every format and its mapping.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from session_scoring.errors import SessionDataError
from session_scoring.models.session import Session
from session_scoring.models.text import NUL, json_path, unstorable_locations
from session_scoring.sources.formats import (
    agent_jsonl,
    aiopslab,
    anthropic_messages,
    inspect_ai,
    litellm_log,
    openai_chat,
    openai_responses,
    openhands,
    otel_genai,
    swe_agent,
)
from session_scoring.sources.formats.common import DEFAULT_SUBMIT_TOOLS, TraceDocument

__all__ = ["FORMATS", "MAX_DEPTH", "TraceDocument", "TraceFormat", "detect_format", "load_text"]

MAX_DEPTH = 100
"""How deeply arrays and objects may nest in a document (or one JSON Lines line). Checked on the text before it is
parsed: deeper documents would exhaust the parser's recursion, or the serialisation of the session later."""
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKETS_ONLY = bytes(range(256)).translate(None, b"[]{}")
_DELTA = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}


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
        swe_agent.SWE_AGENT,
        "a SWE-agent trajectory (trajectory, history, info)",
        swe_agent.detect_swe_agent,
        swe_agent.parse_swe_agent,
    ),
    TraceFormat(
        swe_agent.MINI_SWE_AGENT,
        "a mini-swe-agent trajectory (messages with bash blocks or tool calls, info.submission)",
        swe_agent.detect_mini_swe_agent,
        swe_agent.parse_mini_swe_agent,
    ),
    TraceFormat(
        openhands.V0, "an OpenHands event list (action/observation events)", openhands.detect_v0, openhands.parse_v0
    ),
    TraceFormat(
        openhands.V1, "OpenHands SDK events (JSON Lines with a 'kind')", openhands.detect_v1, openhands.parse_v1
    ),
    TraceFormat(inspect_ai.NAME, "an Inspect AI eval log sample", inspect_ai.detect, inspect_ai.parse),
    TraceFormat(litellm_log.NAME, "a LiteLLM proxy log (messages and response)", litellm_log.detect, litellm_log.parse),
    TraceFormat(aiopslab.NAME, "an AIOpsLab result (trace and results)", aiopslab.detect, aiopslab.parse),
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


def nesting_depth(text: str) -> int:
    """How deeply the arrays and objects of JSON ``text`` nest, counted on the text (brackets outside strings), in
    linear time and without recursion."""
    structure = _STRING.sub("", text).encode("utf-8", "replace").translate(None, _BRACKETS_ONLY)
    return max(accumulate(map(_DELTA.__getitem__, structure)), default=0)


def _check_depth(text: str, origin: str, lines: bool) -> None:
    """Refuse ``text`` nesting deeper than :data:`MAX_DEPTH`; ``lines``: JSON Lines, each line counted on its own
    (the refusal names the first line too deep)."""
    depth = nesting_depth(text)
    if depth <= MAX_DEPTH:
        return
    where = ""
    if lines:
        deep = ((n, nesting_depth(line)) for n, line in enumerate(text.splitlines(), 1))
        found = next(((n, d) for n, d in deep if d > MAX_DEPTH), None)
        if found is None:
            return  # brackets left open across lines: parsing each line says what is wrong with it
        number, depth = found
        where = f" (line {number})"
    raise SessionDataError(
        f"{origin}: the document nests arrays and objects {depth} levels deep{where}; the limit is {MAX_DEPTH} "
        "levels. Send the session as its agent saved it; no trace format nests that deeply"
    )


_MAYBE_UNSTORABLE = re.compile(r"\x00|\\u0000|\\u[dD][89a-fA-F]")
"""What a document's text must contain for a decoded string to hold a NUL or a lone surrogate (UTF-8 text has no
surrogates; only JSON's escapes make them): a document without it is not walked."""


def _check_storable(document: TraceDocument, text: str) -> None:
    """PostgreSQL's text and JSONB cannot hold U+0000 or a lone surrogate: refuse a document with one, naming its
    line and JSON path (``models/text.py``)."""
    if _MAYBE_UNSTORABLE.search(text) is None:
        return
    items = document.content if document.line_numbers is not None else [document.content]
    for index, item in enumerate(items):
        found = next(unstorable_locations(item), None)
        if found is None:
            continue
        loc, text, _ = found
        where = json_path(loc)
        if loc and text == loc[-1]:
            shown = "".join(f"<U+{ord(c):04X}>" if c == NUL or "\ud800" <= c <= "\udfff" else c for c in text)
            where = f"{json_path(loc[:-1])} (the key '{shown.replace('<U+0000>', '<NUL>')}')"
        if document.line_numbers is not None:
            where = f"line {document.line_numbers[index]}: {where}"
        what = "a NUL character (\\u0000)" if NUL in text else "a lone surrogate (an unpaired \\ud800-\\udfff escape)"
        raise SessionDataError(
            f"{document.origin}: {where}: a string holds {what}, which cannot be stored; remove it (or replace it, "
            "e.g. with U+FFFD) and send the document again"
        )


def load_text(text: str, origin: str, submit_tools: frozenset[str] = DEFAULT_SUBMIT_TOOLS) -> TraceDocument:
    """A JSON document, or JSON Lines (one object per line; the origin ends with ``.jsonl``, or the text is not
    one JSON value but several lines). Errors name the origin and the line. Nesting deeper than :data:`MAX_DEPTH` is
    refused before parsing, and a NUL character or a lone surrogate in any string after (naming its line and JSON path).

    ``submit_tools``: the tools whose arguments are the agent's final answer (see ``TraceDocument``)."""
    document = _load(text, origin, submit_tools)
    _check_storable(document, text)
    return document


def _load(text: str, origin: str, submit_tools: frozenset[str]) -> TraceDocument:
    stripped = text.strip()
    if not stripped:
        raise SessionDataError(f"{origin}: the file is empty; expected a JSON document or JSON Lines")
    _check_depth(stripped, origin, lines=origin.endswith(".jsonl"))
    if not origin.endswith(".jsonl"):
        try:
            return TraceDocument(json.loads(stripped), origin, submit_tools=submit_tools)
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
    return TraceDocument(items, origin, tuple(lines), submit_tools)
