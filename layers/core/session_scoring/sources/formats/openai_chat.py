"""OpenAI Chat Completions messages (also what LiteLLM-based agents and LangChain save).

Accepted: a bare list of messages, or ``{"messages": [...], "tools": [...]}`` with optional session fields
(``session_id``, ``status``, ``alert``, ``alert_type``, ``agent_type``, ``final_analysis``).

- ``assistant``: ``content`` (text or parts), ``reasoning_content`` and ``thinking_blocks`` (reasoning),
  ``tool_calls`` (``function.arguments`` that are not valid JSON are kept whole under ``raw``), legacy
  ``function_call``. LangChain's ``{"type": "ai", "tool_calls": [{"name", "args", "id"}]}`` too.
- ``tool`` / ``function``: the result, matched by ``tool_call_id``, else by ``name``, else in call order;
  ``status: "error"`` or ``is_error: true`` marks the call failed. MCP content parts and ``{"output": ...}`` are
  unwrapped.
- ``system`` / ``developer``: not shown (said so in the transcript); images and audio parts likewise.
"""

from __future__ import annotations

from typing import Any

from session_scoring.models.session import AvailableTool, Session
from session_scoring.sources.formats.common import (
    TraceBuilder,
    TraceDocument,
    build_session,
    nested,
    tool_from_definition,
    unwrap_output,
)

NAME = "openai-chat"
_ROLES = {"system", "developer", "user", "assistant", "tool", "function"}
_LANGCHAIN_TYPES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "function"}


def _messages(content: Any) -> Any:
    return content.get("messages") if isinstance(content, dict) else content


def _role(message: dict[str, Any]) -> str | None:
    role = message.get("role")
    if isinstance(role, str):
        return role.lower()
    kind = message.get("type")
    return _LANGCHAIN_TYPES.get(kind.lower()) if isinstance(kind, str) else None


def detect(content: Any) -> bool:
    messages = _messages(content)
    if not isinstance(messages, list) or not messages:
        return False
    if isinstance(content, dict) and ("stages" in content or "format" in content):
        return False
    return all(isinstance(m, dict) and _role(m) in _ROLES for m in messages)


def text_of(content: Any, builder: TraceBuilder) -> str:
    """Text of a message's content (a string or a list of parts); other parts are counted as dropped."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts: list[str] = []
    for part in content:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type") in ("text", "input_text", "output_text", None):
            texts.append(str(part.get("text", "")))
        elif isinstance(part, dict) and part.get("type") == "refusal":
            texts.append(f"(refusal) {part.get('refusal', '')}")
        elif isinstance(part, dict):
            builder.drop(f"{part.get('type')} part(s)")
    return "\n".join(t for t in texts if t)


def _tools(definitions: Any) -> list[AvailableTool]:
    tools: list[AvailableTool] = []
    for definition in definitions if isinstance(definitions, list) else []:
        if not isinstance(definition, dict):
            continue
        function = nested(definition, "function")
        if isinstance(function.get("name"), str):
            tools.append(tool_from_definition(function["name"], function.get("description")))
    return tools


def _assistant(message: dict[str, Any], builder: TraceBuilder, document: TraceDocument, where: str) -> None:
    builder.text(
        "reasoning", message.get("reasoning_content") if isinstance(message.get("reasoning_content"), str) else None
    )
    for block in message.get("thinking_blocks") or []:
        if isinstance(block, dict):
            builder.text("reasoning", str(block.get("thinking") or ""))
    calls = list(message.get("tool_calls") or [])
    if isinstance(message.get("function_call"), dict):
        calls.append({"function": message["function_call"]})
    text = text_of(message.get("content"), builder)
    if not calls:
        builder.text("message", text)
        return
    builder.text("reasoning", text)
    for position, raw in enumerate(calls):
        if not isinstance(raw, dict):
            raise document.error(f"{where}.tool_calls[{position}]", "an object with 'function': {name, arguments}")
        function = nested(raw, "function")
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise document.error(f"{where}.tool_calls[{position}]", "a tool call with a 'name'")
        arguments = function.get("arguments", function.get("args"))
        builder.call(name, arguments, call_id=str(raw["id"]) if raw.get("id") else None)


def fill(messages: list[dict[str, Any]], builder: TraceBuilder, document: TraceDocument) -> None:
    """Add the steps of ``messages`` to ``builder`` (shared with the JSON Lines parser)."""
    for index, message in enumerate(messages):
        where = document.where(index, "messages")
        role = _role(message)
        builder.seen_at(message.get("timestamp") or message.get("created_at"))
        if role in ("system", "developer"):
            builder.drop(f"{role} message(s)")
        elif role == "user":
            builder.user(text_of(message.get("content"), builder))
        elif role == "assistant":
            _assistant(message, builder, document, where)
        elif role in ("tool", "function"):
            failed = message.get("status") == "error" or message.get("is_error") is True
            name = message.get("name") if isinstance(message.get("name"), str) else None
            call_id = message.get("tool_call_id")
            builder.result(
                unwrap_output(message.get("content"), failed=failed), str(call_id) if call_id else None, name
            )
        else:
            raise document.error(where, f"a message whose 'role' is one of {', '.join(sorted(_ROLES))}")


def parse(document: TraceDocument) -> Session:
    messages = _messages(document.content)
    if not isinstance(messages, list):
        raise document.error("messages", "a list of chat messages")
    builder = TraceBuilder()
    fill(messages, builder, document)
    tools = _tools(document.content.get("tools")) if isinstance(document.content, dict) else []
    return build_session(document, builder, tools=tools)
