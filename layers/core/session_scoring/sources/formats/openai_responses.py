"""OpenAI Responses API items (also the ``response_item`` payloads of Codex CLI session logs): a bare list of items,
``{"input": [...], "output": [...]}`` (input first), ``{"items": [...]}`` or a response object, with optional session
fields around them. The mapping is in ``docs/trace-formats.md``.
"""

from __future__ import annotations

from typing import Any

from session_scoring.models.session import AvailableTool, Session
from session_scoring.sources.formats.common import (
    TraceBuilder,
    TraceDocument,
    build_session,
    tool_from_definition,
    tools_of,
    unwrap_output,
)
from session_scoring.sources.formats.openai_chat import text_of

NAME = "openai-responses"
_CALLS = {"function_call", "custom_tool_call", "local_shell_call", "mcp_call"}
_OUTPUTS = {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
_BUILTIN = {"web_search_call", "file_search_call", "computer_call", "code_interpreter_call", "image_generation_call"}
_MARKERS = _CALLS | _OUTPUTS | {"reasoning"}


def items_of(content: Any) -> list[Any] | None:
    if isinstance(content, list):
        return content
    if not isinstance(content, dict):
        return None
    if isinstance(content.get("items"), list):
        return list(content["items"])
    parts = [content.get(key) for key in ("input", "output")]
    if any(isinstance(part, list) for part in parts):
        return [item for part in parts if isinstance(part, list) for item in part]
    return None


def detect(content: Any) -> bool:
    items = items_of(content)
    if not items or not all(isinstance(item, dict) for item in items):
        return False
    return any(item.get("type") in _MARKERS for item in items) and all(
        isinstance(item.get("type"), str) or "role" in item for item in items
    )


def fill(items: list[Any], builder: TraceBuilder, document: TraceDocument, tools: list[AvailableTool]) -> None:
    """Add the steps of ``items`` to ``builder`` (shared with the Codex session-log parser)."""
    for index, item in enumerate(items):
        where = document.where(index, "items")
        if not isinstance(item, dict):
            raise document.error(where, "a Responses item object with a 'type'")
        kind = item.get("type") or ("message" if "role" in item else None)
        if kind == "message":
            role = str(item.get("role") or "assistant")
            text = text_of(item.get("content"), builder)
            if role == "user":
                builder.user(text)
            elif role in ("system", "developer"):
                builder.drop(f"{role} message(s)", reason="system prompts are instructions, not the investigation")
            else:
                builder.text("message", text)
        elif kind == "reasoning":
            texts = [
                str(part.get("text", ""))
                for key in ("summary", "content")
                for part in item.get(key) or []
                if isinstance(part, dict)
            ]
            if any(t.strip() for t in texts):
                builder.text("reasoning", "\n".join(texts))
            else:
                builder.drop("encrypted reasoning item(s)", reason="encrypted reasoning cannot be read")
        elif kind in _CALLS:
            _call(item, kind, builder, document, where)
        elif kind in _OUTPUTS:
            call_id = item.get("call_id")
            if not call_id:
                raise document.error(where, f"a '{kind}' item with the 'call_id' of its call")
            builder.result(unwrap_output(item.get("output")), str(call_id))
        elif kind == "mcp_list_tools":
            server = str(item.get("server_label") or "") or None
            for tool in item.get("tools") or []:
                if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                    tools.append(tool_from_definition(tool["name"], tool.get("description"), server))
        elif kind in _BUILTIN:
            arguments = {k: v for k, v in item.items() if k not in ("type", "id", "status", "results", "output")}
            builder.call(kind.removesuffix("_call"), arguments)
            output = item.get("results") if item.get("results") is not None else item.get("output")
            builder.result(unwrap_output(output, failed=item.get("status") == "failed"))
        else:
            builder.drop(f"'{kind}' item(s)")


def _call(item: dict[str, Any], kind: str, builder: TraceBuilder, document: TraceDocument, where: str) -> None:
    call_id = item.get("call_id") or item.get("id")
    if kind == "local_shell_call":
        raw_action = item.get("action")
        action: dict[str, Any] = raw_action if isinstance(raw_action, dict) else {}
        builder.call("local_shell", {k: v for k, v in action.items() if k != "type"}, str(call_id) if call_id else None)
        return
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise document.error(where, f"a '{kind}' item with a 'name'")
    arguments = item.get("input") if kind == "custom_tool_call" else item.get("arguments")
    if kind == "mcp_call":
        builder.call(name, arguments, None, server=str(item.get("server_label") or "") or None)
        failed = bool(item.get("error"))
        builder.result(unwrap_output(item.get("error") if failed else item.get("output"), failed=failed))
        return
    builder.call(name, arguments, str(call_id) if call_id else None)


def parse(document: TraceDocument) -> Session:
    items = items_of(document.content)
    if items is None:
        raise document.error("(document)", "a list of Responses items, or an object with 'input'/'output' lists")
    builder = TraceBuilder()
    tools = tools_of(document.content.get("tools")) if isinstance(document.content, dict) else []
    fill(items, builder, document, tools)
    return build_session(document, builder, tools=tools)
