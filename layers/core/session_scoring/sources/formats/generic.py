"""The generic fallback: a document no reader claims is searched for its conversation, the largest array (or JSON
Lines stream) of message- or event-like objects at any depth within the depth limit, which is read with the common
rules (roles, ``tool_calls``, tool turns, and calls and results written as text, ``text_protocol``). The import
answer says where the conversation was found and that it was read generically (``docs/trace-formats.md``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from session_scoring.models.session import Session
from session_scoring.models.text import json_path
from session_scoring.sources.formats import openai_chat
from session_scoring.sources.formats.common import TraceBuilder, TraceDocument, build_session
from session_scoring.sources.formats.text_protocol import parse_result

NAME = "generic"
_ROLE_KEYS = ("role", "type", "sender", "author", "speaker", "from", "source")
_TEXT_KEYS = ("content", "text", "message", "value", "output", "observation", "parts")
_EVENT_KEYS = frozenset({"tool_calls", "tool_call", "function_call", "action", "observation", "tool_name"})
_ROLES = {
    "user": "user",
    "human": "user",
    "customer": "user",
    "assistant": "assistant",
    "ai": "assistant",
    "agent": "assistant",
    "bot": "assistant",
    "model": "assistant",
    "gpt": "assistant",
    "tool": "tool",
    "function": "tool",
    "observation": "tool",
    "env": "tool",
    "environment": "tool",
    "ipython": "tool",
    "system": "system",
    "developer": "system",
}
LOOKED_FOR = (
    "an array (or JSON Lines stream) of message-like objects (a role such as user/assistant/tool with content or "
    "text) or event-like objects (tool_calls, action/observation)"
)


@dataclass(frozen=True)
class Found:
    """A conversation found in a document: its items and where they are (a JSON path)."""

    items: list[dict[str, Any]]
    location: str


def _role(item: dict[str, Any]) -> str | None:
    for key in _ROLE_KEYS:
        value = item.get(key)
        if isinstance(value, str) and value.lower() in _ROLES:
            return _ROLES[value.lower()]
    return None


def _message_like(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    if _EVENT_KEYS & item.keys():
        return True
    return _role(item) is not None and any(key in item for key in _TEXT_KEYS)


def _score(items: list[Any]) -> int:
    return sum(1 for item in items if _message_like(item))


def _lines_stream(items: list[Any]) -> tuple[str, list[dict[str, Any]]] | None:
    """JSON Lines whose every line holds its messages under the same key, as one stream."""
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    keys = {k for k, v in items[0].items() if isinstance(v, list)}
    for key in sorted(keys):
        if all(isinstance(i.get(key), list) for i in items):
            stream = [m for i in items for m in i[key]]
            if stream and _score(stream) * 2 >= len(stream):
                return key, stream
    return None


def find_conversation(content: Any, max_depth: int) -> tuple[Found | None, str | None]:
    """The largest array of message- or event-like objects in ``content`` (shallowest first among equals), and,
    when there is none, a description of the nearest thing found (the largest array of objects)."""
    best: tuple[int, Found] | None = None
    nearest: tuple[int, str] | None = None
    queue: deque[tuple[Any, tuple[str | int, ...]]] = deque([(content, ())])
    while queue:
        value, path = queue.popleft()
        if len(path) > max_depth:
            continue
        if isinstance(value, list):
            stream = _lines_stream(value) if not path else None
            if stream is not None:
                key, items = stream
                score, where = _score(items), f"$[*].{key} (each line's {key}, one JSON Lines stream)"
            else:
                score, items, where = _score(value), value, json_path(path)
            if score and (best is None or score > best[0]):
                best = (score, Found([i for i in items if isinstance(i, dict)], where))
            objects = [i for i in value if isinstance(i, dict)]
            if objects and (nearest is None or len(objects) > nearest[0]):
                keys = sorted({str(k) for o in objects[:20] for k in o})[:8]
                nearest = (
                    len(objects),
                    f"{json_path(path)}, an array of {len(objects)} objects with keys {', '.join(keys)}",
                )
            queue.extend((item, (*path, index)) for index, item in enumerate(value) if isinstance(item, (dict, list)))
        elif isinstance(value, dict):
            queue.extend((item, (*path, str(key))) for key, item in value.items() if isinstance(item, (dict, list)))
    if best is not None:
        return best[1], None
    return None, nearest[1] if nearest else None


def _normalised(item: dict[str, Any]) -> dict[str, Any]:
    role = _role(item) or ("assistant" if _EVENT_KEYS & item.keys() else None)
    text = next((item[k] for k in _TEXT_KEYS if k in item and isinstance(item[k], (str, list))), "")
    message: dict[str, Any] = {"role": role, "content": text}
    for key in ("tool_calls", "function_call", "tool_call_id", "name", "timestamp", "status", "is_error"):
        if key in item:
            message[key] = item[key]
    if isinstance(item.get("tool_call"), dict):
        message["tool_calls"] = [item["tool_call"]]
    return message


def _written_result(message: dict[str, Any]) -> bool:
    """A user turn that is a tool's result written as text (``<returncode>``, ``EXECUTION RESULT of [...]``)."""
    content = message["content"]
    if message["role"] != "user" or not isinstance(content, str):
        return False
    parsed = parse_result(content)
    return parsed.exit_code is not None or parsed.name is not None or content.lstrip().startswith("Observation:")


def parse(document: TraceDocument, found: Found) -> Session:
    builder = TraceBuilder()
    messages = [_normalised(item) for item in found.items]
    for message in messages:
        if _written_result(message):
            message["role"] = "tool"
    for index, message in enumerate(messages):
        following = messages[index + 1]["role"] if index + 1 < len(messages) else None
        text = openai_chat.text_of(message["content"], builder)
        if (
            message["role"] == "assistant"
            and not message.get("tool_calls")
            and (following == "tool" or "<function=" in text)
        ):
            builder.text_turn(text)
        elif message["role"] == "tool" and not message.get("tool_call_id") and isinstance(message["content"], str):
            builder.text_result(text, failed=message.get("is_error") is True)
        elif message["role"] is None:
            builder.drop("item(s) with no role the generic reader knows")
        else:
            openai_chat.fill([message], builder, document)
    return build_session(document, builder)
