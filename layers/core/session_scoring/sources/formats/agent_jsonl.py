"""Agent CLI session logs in JSON Lines (one event per line), recognised by their event shapes.

- **Codex CLI** (``~/.codex/sessions/.../rollout-*.jsonl``): ``{"timestamp", "type", "payload"}`` lines.
  ``session_meta`` gives the session id, start and working directory; ``response_item`` payloads are Responses
  items (see :mod:`openai_responses`: messages, ``function_call`` with ``function_call_output``, ``reasoning``);
  ``event_msg`` lines repeat those items for the terminal UI and ``turn_context`` lines hold settings: both are
  dropped and counted in the transcript.
- **Claude Code** (``~/.claude/projects/<project>/<session>.jsonl``): ``{"type": "user"|"assistant", "message":
  {...}, "sessionId", "timestamp"}`` lines whose ``message`` is an Anthropic message (see
  :mod:`anthropic_messages`: text, thinking, ``tool_use``, ``tool_result`` with ``is_error``); ``summary``,
  ``system`` and other lines are dropped and counted.

Other JSON Lines files whose lines are OpenAI chat messages or OTLP trace exports are read by those formats.
"""

from __future__ import annotations

from typing import Any

from session_scoring.models.session import AvailableTool, Session
from session_scoring.sources.formats import anthropic_messages, openai_responses
from session_scoring.sources.formats.common import TraceBuilder, TraceDocument, build_session

CODEX = "codex-jsonl"
CLAUDE_CODE = "claude-code-jsonl"
_CODEX_TYPES = {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
_CLAUDE_TYPES = {"user", "assistant", "summary", "system", "file-history-snapshot"}


def _events(content: Any) -> list[dict[str, Any]] | None:
    if isinstance(content, list) and content and all(isinstance(e, dict) for e in content):
        return content
    return None


def detect_codex(content: Any) -> bool:
    events = _events(content)
    return events is not None and all(e.get("type") in _CODEX_TYPES and "payload" in e for e in events)


def detect_claude_code(content: Any) -> bool:
    events = _events(content)
    return (
        events is not None
        and all(e.get("type") in _CLAUDE_TYPES for e in events)
        and any(isinstance(e.get("message"), dict) and e.get("type") in ("user", "assistant") for e in events)
    )


def parse_codex(document: TraceDocument) -> Session:
    events = _events(document.content) or []
    builder = TraceBuilder()
    tools: list[AvailableTool] = []
    session_id: str | None = None
    for index, event in enumerate(events):
        payload = event.get("payload")
        if not isinstance(payload, dict):
            raise document.error(document.where(index, "events"), "a 'payload' object")
        builder.seen_at(event.get("timestamp"))
        kind = event.get("type")
        if kind == "session_meta":
            session_id = str(payload.get("id") or "") or session_id
            builder.seen_at(payload.get("timestamp"))
        elif kind == "response_item":
            located = TraceDocument(payload, document.origin, (_line(document, index),))
            openai_responses.fill([payload], builder, located, tools)
        else:
            builder.drop(f"Codex '{kind}' line(s)")
    return build_session(document, builder, agent="codex", tools=tools, session_id=session_id)


def parse_claude_code(document: TraceDocument) -> Session:
    events = _events(document.content) or []
    builder = TraceBuilder()
    session_id: str | None = None
    for index, event in enumerate(events):
        message = event.get("message")
        session_id = session_id or (str(event["sessionId"]) if event.get("sessionId") else None)
        builder.seen_at(event.get("timestamp"))
        if event.get("type") not in ("user", "assistant") or not isinstance(message, dict):
            builder.drop(f"Claude Code '{event.get('type')}' line(s)")
            continue
        if event.get("isMeta"):
            builder.drop("Claude Code meta message(s)")
            continue
        anthropic_messages.fill_message(message, builder, document, document.where(index, "events") + ".message")
    return build_session(document, builder, agent="claude-code", session_id=session_id)


def _line(document: TraceDocument, index: int) -> int:
    return document.line_numbers[index] if document.line_numbers and index < len(document.line_numbers) else index + 1
