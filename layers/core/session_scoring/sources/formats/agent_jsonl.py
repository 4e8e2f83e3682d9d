"""Agent CLI session logs in JSON Lines (one event per line), recognised by their event shapes: Codex CLI's
``{"timestamp", "type", "payload"}`` lines (``response_item`` payloads are Responses items) and Claude Code's
``{"type": "user"|"assistant", "message"}`` lines (the message is an Anthropic message). The mapping is in
``docs/trace-formats.md``.

A line of a type the parser does not read is skipped and counted, never a reason to refuse the log: both CLIs add
line types from one release to the next. Codex's ``event_msg`` lines are the terminal UI's copy of the items: read
only for a kind of item the log holds no ``response_item`` of (some versions write narration and reasoning only
there), and for the outcome of a call when the log keeps its end event (``exec_command_end`` with a non-zero
``exit_code`` or a ``failed``/``declined`` status, ``patch_apply_end`` that did not apply, ``mcp_tool_call_end`` with
an error): that call failed, as its framework recorded, whatever its output says.
"""

from __future__ import annotations

from typing import Any

from session_scoring.models.session import AvailableTool, Session
from session_scoring.sources.formats import anthropic_messages, openai_responses
from session_scoring.sources.formats.common import NOT_READ, TraceBuilder, TraceDocument, build_session
from session_scoring.sources.formats.openai_chat import text_of

CODEX = "codex-jsonl"
CLAUDE_CODE = "claude-code-jsonl"
_CODEX_ITEMS = {"session_meta", "response_item"}
_CODEX_CONTEXT = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions")
_UI_COPY = "the terminal UI's copy of an item the log already holds"
_CODEX_OUTPUTS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
_STILL_RUNNING = "Process running with session ID"
"""A unified-exec call whose process outlived it: its end event's exit code belongs to the later poll's output."""
_HEAD_CHARS = 300
_CLAUDE_REASONS = {
    "summary": "a title Claude Code writes for its session list",
    "ai-title": "a title Claude Code writes for its session list",
    "last-prompt": "Claude Code's record of the last prompt, repeated from the conversation",
    "queue-operation": "Claude Code's input queue, repeated from the conversation",
    "file-history-snapshot": "file backups Claude Code keeps for undo, not the conversation",
    "system": "Claude Code's own notices, not the agent's conversation",
}


def _events(content: Any) -> list[dict[str, Any]] | None:
    if isinstance(content, list) and content and all(isinstance(e, dict) for e in content):
        return content
    return None


def _claude_message(event: dict[str, Any]) -> bool:
    return event.get("type") in ("user", "assistant") and isinstance(event.get("message"), dict)


def detect_codex(content: Any) -> bool:
    """Object lines, at least one a ``session_meta`` or ``response_item`` with a ``payload`` object (and none a
    Claude Code message)."""
    events = _events(content)
    if events is None:
        return False
    return any(e.get("type") in _CODEX_ITEMS and isinstance(e.get("payload"), dict) for e in events) and not any(
        _claude_message(e) for e in events
    )


def detect_claude_code(content: Any) -> bool:
    """Object lines, at least one a ``user`` or ``assistant`` line carrying a ``message`` object with a role."""
    events = _events(content)
    return events is not None and any(_claude_message(e) and isinstance(e["message"].get("role"), str) for e in events)


def _codex_items(events: list[dict[str, Any]]) -> set[str]:
    """Which kinds of item the log's ``response_item`` lines hold readable text for (``assistant``, ``reasoning``,
    ``user``): the UI's events of those kinds are copies; events of a kind no item holds are the only record."""
    kinds: set[str] = set()
    for event in events:
        payload = event.get("payload")
        if event.get("type") != "response_item" or not isinstance(payload, dict):
            continue
        if payload.get("type", "message") == "message" and not _is_codex_context(payload):
            kinds.add("user" if payload.get("role") == "user" else "assistant")
        elif payload.get("type") == "reasoning" and any(
            isinstance(part, dict) and str(part.get("text", "")).strip()
            for key in ("summary", "content")
            for part in payload.get(key) or []
        ):
            kinds.add("reasoning")
    return kinds


def _recorded_failures(events: list[dict[str, Any]]) -> dict[str, str]:
    """The calls (by ``call_id``) whose end event records a failure, with what it says."""
    failed: dict[str, str] = {}
    for event in events:
        payload = event.get("payload")
        if event.get("type") != "event_msg" or not isinstance(payload, dict) or not payload.get("call_id"):
            continue
        kind, call_id = payload.get("type"), str(payload["call_id"])
        if kind == "exec_command_end":
            code, status = payload.get("exit_code"), payload.get("status")
            if isinstance(code, int) and not isinstance(code, bool) and code != 0:
                failed[call_id] = f"exit code {code}"
            elif status in ("failed", "declined"):
                failed[call_id] = f"the command {status}"
        elif kind == "patch_apply_end" and payload.get("success") is False:
            failed[call_id] = "the patch did not apply"
        elif kind == "mcp_tool_call_end":
            result = payload.get("result")
            ok = result.get("Ok") if isinstance(result, dict) else None
            if isinstance(result, dict) and ("Err" in result or (isinstance(ok, dict) and ok.get("isError"))):
                failed[call_id] = "the MCP tool returned an error"
    return failed


def _with_recorded_failure(payload: dict[str, Any], failures: dict[str, str]) -> dict[str, Any]:
    """A call's output marked failed when its end event recorded a failure (unless the process outlived the call)."""
    reason = failures.get(str(payload.get("call_id") or ""))
    output = payload.get("output")
    if reason is None or payload.get("type") not in _CODEX_OUTPUTS:
        return payload
    if isinstance(output, str) and _STILL_RUNNING in output[:_HEAD_CHARS]:
        return payload
    if isinstance(output, str) and not output.lstrip().startswith(("{", "[")):
        output = f"{reason}\n{output}".strip()
    return {**payload, "output": {"output": output, "success": False}}


def parse_codex(document: TraceDocument) -> Session:
    events = _events(document.content) or []
    builder = TraceBuilder()
    tools: list[AvailableTool] = []
    session_id: str | None = None
    items = _codex_items(events)
    failures = _recorded_failures(events)
    models: list[str] = []
    for index, event in enumerate(events):
        builder.seen_at(event.get("timestamp"))
        kind = event.get("type")
        payload = event.get("payload")
        if isinstance(payload, dict) and isinstance(payload.get("model"), str):
            models.append(payload["model"])  # turn_context (and session_meta) name the model
        if kind == "response_item":
            if not isinstance(payload, dict):
                raise document.error(document.where(index, "events"), "a 'payload' object")
            if _is_codex_context(payload):
                builder.drop("Codex context message(s)", reason="context Codex adds to the conversation, not the task")
                continue
            payload = _with_recorded_failure(payload, failures)
            located = TraceDocument(payload, document.origin, (_line(document, index),), document.submit_tools)
            openai_responses.fill([payload], builder, located, tools)
        elif kind == "session_meta" and isinstance(payload, dict):
            session_id = str(payload.get("id") or "") or session_id
        elif kind == "event_msg" and isinstance(payload, dict):
            _codex_event(payload, builder, items)
        elif kind == "turn_context":
            builder.drop("Codex 'turn_context' line(s)", reason="the model's settings, not the investigation")
        else:
            builder.drop(f"Codex '{kind}' line(s)")
    return build_session(document, builder, agent="codex", tools=tools, session_id=session_id, agent_models=models)


def _is_codex_context(payload: dict[str, Any]) -> bool:
    if payload.get("type") not in ("message", None) or payload.get("role") != "user":
        return False
    return text_of(payload.get("content"), TraceBuilder()).lstrip().startswith(_CODEX_CONTEXT)


def _codex_event(payload: dict[str, Any], builder: TraceBuilder, items: set[str]) -> None:
    kind = payload.get("type")
    text = payload.get("message") if kind in ("agent_message", "user_message") else payload.get("text")
    text = text.strip() if isinstance(text, str) else ""
    if kind == "agent_message" and text and "assistant" not in items:
        builder.text("message", text)
    elif kind == "agent_reasoning" and text and "reasoning" not in items:
        builder.text("reasoning", text)
    elif kind == "user_message" and text and "user" not in items:
        builder.user(text)
    else:
        builder.drop(f"Codex 'event_msg' line(s) ({kind})", reason=_UI_COPY)


def parse_claude_code(document: TraceDocument) -> Session:
    events = _events(document.content) or []
    builder = TraceBuilder()
    session_id: str | None = None
    models: list[str] = []
    for index, event in enumerate(events):
        message = event.get("message")
        if isinstance(message, dict) and isinstance(message.get("model"), str):
            models.append(message["model"])
        session_id = session_id or (str(event["sessionId"]) if event.get("sessionId") else None)
        builder.seen_at(event.get("timestamp"))
        kind = str(event.get("type"))
        if not _claude_message(event) or not isinstance(message, dict):
            builder.drop(f"Claude Code '{kind}' line(s)", reason=_CLAUDE_REASONS.get(kind, NOT_READ))
            continue
        if event.get("isMeta"):
            builder.drop("Claude Code meta message(s)", reason="messages Claude Code adds itself (command output)")
            continue
        anthropic_messages.fill_message(message, builder, document, document.where(index, "events") + ".message")
    return build_session(document, builder, agent="claude-code", session_id=session_id, agent_models=models)


def _line(document: TraceDocument, index: int) -> int:
    return document.line_numbers[index] if document.line_numbers and index < len(document.line_numbers) else index + 1
