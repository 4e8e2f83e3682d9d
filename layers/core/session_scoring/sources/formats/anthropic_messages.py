"""Anthropic Messages API transcripts (also the ``message`` of each Claude Code session-log line): a bare list of
``{"role", "content"}`` messages whose content blocks carry Anthropic types, or ``{"messages": [...], "tools": [...],
"system": ...}`` with optional session fields. The mapping is in ``docs/trace-formats.md``.
"""

from __future__ import annotations

import re
from typing import Any

from session_scoring.models.session import AvailableTool, Session
from session_scoring.sources.formats.common import (
    TraceBuilder,
    TraceDocument,
    build_session,
    messages_of,
    tools_of,
    unwrap_output,
)

NAME = "anthropic-messages"
_TEXT_RESULT = re.compile(r"^\[(?P<name>[\w.\-]+)(?: for '.*?')?\] Result:\n?(?P<body>.*)\Z", re.DOTALL)
"""A tool's result written as a user turn's text, as Cline sends it (``[read_file for 'app.py'] Result:``)."""
_COMMAND_PREAMBLE = re.compile(r"^Command executed\.\s*\nOutput:\s*\n?")
"""What Cline writes above a command's output: read past it, as the output begins below."""
_MARKERS = {"tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use", "mcp_tool_use"}
_CALLS = {"tool_use", "server_tool_use", "mcp_tool_use"}


def detect(content: Any) -> bool:
    messages = messages_of(content)
    if not isinstance(messages, list) or not messages:
        return False
    if not all(isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in messages):
        return False
    return any(
        isinstance(block, dict) and block.get("type") in _MARKERS
        for m in messages
        if isinstance(m.get("content"), list)
        for block in m["content"]
    )


def fill_message(message: dict[str, Any], builder: TraceBuilder, document: TraceDocument, where: str) -> None:
    """Add one message's blocks to ``builder`` (shared with the Claude Code session-log parser)."""
    role = message.get("role")
    content = message.get("content")
    if role not in ("user", "assistant"):
        raise document.error(f"{where}.role", "'user' or 'assistant'")
    if isinstance(content, str):
        if role == "user":
            builder.user(content)
        else:
            builder.text("message", content)
        return
    if not isinstance(content, list):
        raise document.error(f"{where}.content", "text or a list of content blocks")
    blocks = [b for b in content if isinstance(b, dict)]
    has_call = any(b.get("type") in _CALLS for b in blocks)
    for position, block in enumerate(blocks):
        kind = str(block.get("type"))
        block_where = f"{where}.content[{position}]"
        if kind == "text":
            text = str(block.get("text", ""))
            written = _TEXT_RESULT.match(text) if role == "user" and builder.waiting else None
            if written is not None:
                output = _COMMAND_PREAMBLE.sub("", written["body"], count=1)
                builder.result(unwrap_output(output), name=written["name"])
            elif role == "user":
                builder.user(text)
            else:
                builder.text("reasoning" if has_call else "message", text)
        elif kind == "thinking":
            builder.text("reasoning", str(block.get("thinking", "")))
        elif kind in _CALLS:
            name = block.get("name")
            if not isinstance(name, str) or not name:
                raise document.error(block_where, f"a '{kind}' block with a 'name'")
            server = block.get("server_name") if isinstance(block.get("server_name"), str) else None
            builder.call(name, block.get("input"), str(block["id"]) if block.get("id") else None, server=server)
        elif kind == "tool_result" or kind.endswith("_tool_result"):
            call_id = block.get("tool_use_id")
            if not call_id:
                raise document.error(block_where, f"a '{kind}' block with the 'tool_use_id' of its call")
            builder.result(unwrap_output(block.get("content"), failed=block.get("is_error") is True), str(call_id))
        elif kind == "redacted_thinking":
            builder.drop("redacted_thinking block(s)", reason="encrypted reasoning cannot be read")
        else:
            builder.drop(f"{kind} block(s)", reason="content blocks other than text, thinking and tools are not shown")


def parse(document: TraceDocument) -> Session:
    messages = messages_of(document.content)
    if not isinstance(messages, list):
        raise document.error("messages", "a list of Anthropic messages")
    builder = TraceBuilder()
    tools: list[AvailableTool] = []
    if isinstance(document.content, dict):
        if document.content.get("system"):
            builder.drop("system prompt(s)", reason="system prompts are instructions, not the investigation")
        tools = tools_of(document.content.get("tools"))
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise document.error(document.where(index, "messages"), "a message object with 'role' and 'content'")
        fill_message(message, builder, document, document.where(index, "messages"))
    return build_session(document, builder, tools=tools)
