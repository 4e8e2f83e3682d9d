"""OpenAI Chat Completions messages (also what LiteLLM-based agents and LangChain save): a bare list of messages, or
``{"messages": [...], "tools": [...]}`` with optional session fields. LangChain's message types and serialisations
are read as their roles. The mapping is in ``docs/trace-formats.md``.
"""

from __future__ import annotations

import re
from typing import Any

from session_scoring.models.session import Session
from session_scoring.sources.formats.common import (
    TraceBuilder,
    TraceDocument,
    build_session,
    messages_of,
    nested,
    tools_of,
    unwrap_output,
)

NAME = "openai-chat"
_CONVERSATION_ROLES = {"user", "assistant"}
_LANGCHAIN_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "function"}
"""The role of each LangChain message type: ``ai``, ``AIMessage`` and ``AIMessageChunk`` alike."""
_MESSAGE_CLASS = re.compile(r"message(chunk)?$")


def _flattened(message: Any) -> Any:
    """A LangChain serialisation unwrapped to the message's own fields: ``messages_to_dict``'s ``{"type", "data"}``
    and ``dumpd``'s ``{"lc", "type": "constructor", "id": [..., "AIMessage"], "kwargs"}``."""
    if not isinstance(message, dict):
        return message
    kwargs = message.get("kwargs")
    ids = message.get("id")
    if message.get("lc") is not None and isinstance(kwargs, dict) and isinstance(ids, list) and ids:
        return {"type": str(ids[-1]), **kwargs}
    data = message.get("data")
    if isinstance(data, dict) and isinstance(message.get("type"), str) and "role" not in message:
        return {**data, "type": data.get("type") or message["type"]}
    return message


def _role(message: dict[str, Any]) -> str | None:
    role = message.get("role")
    if isinstance(role, str):
        return role.lower()
    kind = message.get("type")
    return _LANGCHAIN_ROLES.get(_MESSAGE_CLASS.sub("", kind.lower())) if isinstance(kind, str) else None


def detect(content: Any) -> bool:
    """A list of message objects, at least one a user or assistant turn (by its role or LangChain type)."""
    messages = messages_of(content)
    if not isinstance(messages, list) or not messages:
        return False
    if isinstance(content, dict) and ("stages" in content or "format" in content):
        return False
    flat = [_flattened(m) for m in messages]
    return all(isinstance(m, dict) for m in flat) and any(_role(m) in _CONVERSATION_ROLES for m in flat)


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
        elif isinstance(part, dict) and part.get("type") not in ("tool_use", "tool_call"):
            # A tool_use part repeats a call the message's tool_calls hold.
            builder.drop(
                f"{part.get('type')} part(s)",
                reason="content parts other than text (images, audio, files) are not shown",
            )
    return "\n".join(t for t in texts if t)


def _assistant(message: dict[str, Any], builder: TraceBuilder, document: TraceDocument, where: str) -> None:
    reasoning = [message.get("reasoning_content")] + [
        block.get("thinking") for block in message.get("thinking_blocks") or [] if isinstance(block, dict)
    ]
    shown: set[str] = set()
    for text in reasoning:
        # LiteLLM (HolmesGPT's saved conversations) writes the same thinking in both fields: show it once.
        if isinstance(text, str) and text.strip() and text.strip() not in shown:
            shown.add(text.strip())
            builder.text("reasoning", text)
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
    for index, raw in enumerate(messages):
        where = document.where(index, "messages")
        message = _flattened(raw)
        if not isinstance(message, dict):
            raise document.error(where, "a message object with a 'role'")
        role = _role(message)
        builder.seen_at(message.get("timestamp") or message.get("created_at"))
        if role in ("system", "developer"):
            builder.drop(f"{role} message(s)", reason="system prompts are instructions, not the investigation")
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
        elif role is None and message.get("type") is None:
            builder.drop("item(s) with neither a role nor a type")
        else:
            builder.drop(f"'{role or message.get('type')}' message(s)")


def parse(document: TraceDocument) -> Session:
    messages = messages_of(document.content)
    if not isinstance(messages, list):
        raise document.error("messages", "a list of chat messages")
    builder = TraceBuilder()
    fill(messages, builder, document)
    tools = tools_of(document.content.get("tools")) if isinstance(document.content, dict) else []
    model = document.content.get("model") if isinstance(document.content, dict) else None
    return build_session(document, builder, tools=tools, agent_models=[model] if isinstance(model, str) else [])
