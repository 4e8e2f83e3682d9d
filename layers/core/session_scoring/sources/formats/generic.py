"""The generic fallback: a document no reader claims is searched for its conversation, the largest array (or JSON
Lines stream) of message- or event-like objects at any depth within the depth limit, which is read with the common
rules (roles, ``tool_calls``, tool turns, and calls and results written as text, ``text_protocol``). The import
answer says where the conversation was found and that it was read generically (``docs/trace-formats.md``).

A JSON Lines stream is lines that carry their messages under the same key. A line may hold only the messages it
added, or the whole conversation so far (a LangGraph agent streaming its state, as Stratus saves it: each line
repeats the earlier messages, which are read once); lines of a typed event log that hold no messages (a metadata
header, stage markers) are counted, and a ``stage`` (or ``phase``) on the lines makes each stage its own.
"""

from __future__ import annotations

import json
import re
from collections import Counter, deque
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from session_scoring.models.session import Session, Stage
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
_MESSAGE_CLASS = re.compile(r"message(chunk)?$")
"""LangChain's class names (``AIMessage``, ``ToolMessage``, ``HumanMessageChunk``) name the role before the suffix."""
_STAGE_KEYS = ("stage", "phase")
"""A line's stage in a JSON Lines stream: the lines of each stage are a conversation of their own."""
_DISCRIMINATORS = ("type", "event", "kind")
"""The key that says what each line of a typed event log is (``metadata``, ``stage_start``, ``event``)."""
MARKER_REASON = "lines of the log holding no messages (its metadata, stage markers, an event the agent could not write)"
REPEATED = "message(s) a later line repeated (the whole conversation so far, a state snapshot)"
REPEATED_REASON = "an agent that writes its whole state each step repeats the earlier messages: each is read once"
LOOKED_FOR = (
    "an array (or JSON Lines stream) of message-like objects (a role such as user/assistant/tool with content or "
    "text) or event-like objects (tool_calls, action/observation)"
)


@dataclass(frozen=True)
class Segment:
    """One stage of a JSON Lines stream: its name (the lines' ``stage``, if they name one) and its messages."""

    name: str | None
    items: list[dict[str, Any]]


@dataclass(frozen=True)
class Found:
    """A conversation found in a document: its items and where they are (a JSON path); for a JSON Lines stream, its
    stages and what its lines held besides the messages (``skipped``: what, how many, why)."""

    items: list[dict[str, Any]]
    location: str
    segments: list[Segment] = field(default_factory=list)
    skipped: list[tuple[str, int, str]] = field(default_factory=list)


def _role(item: dict[str, Any]) -> str | None:
    for key in _ROLE_KEYS:
        value = item.get(key)
        if not isinstance(value, str):
            continue
        lowered = value.lower()
        role = _ROLES.get(lowered) or _ROLES.get(_MESSAGE_CLASS.sub("", lowered))
        if role is not None:
            return role
    return None


def _message_like(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    if _EVENT_KEYS & item.keys():
        return True
    return _role(item) is not None and any(key in item for key in _TEXT_KEYS)


def _score(items: list[Any]) -> int:
    return sum(1 for item in items if _message_like(item))


@dataclass(frozen=True)
class _Stream:
    key: str
    segments: list[Segment]
    markers: Counter[str]
    repeated: int
    stage_key: str | None

    @property
    def location(self) -> str:
        where = f"$[*].{self.key} (each line's {self.key}, one JSON Lines stream"
        if self.repeated:
            where += "; lines repeat the conversation so far, each message read once"
        if len(self.segments) > 1:
            where += f"; {len(self.segments)} stages by each line's {self.stage_key}"
        return where + ")"


def _typed(items: list[dict[str, Any]]) -> bool:
    """Every line says what it is under the same key (a typed event log: ``metadata``, ``stage_start``, ``event``)."""
    return any(
        all(isinstance(item.get(key), str) for item in items) and len({item[key] for item in items}) > 1
        for key in _DISCRIMINATORS
    )


def _stage_key(lines: list[dict[str, Any]]) -> str | None:
    return next((key for key in _STAGE_KEYS if all(isinstance(line.get(key), str) for line in lines)), None)


def _messages(line: dict[str, Any], key: str) -> list[dict[str, Any]]:
    return [m for m in line[key] if isinstance(m, dict)]


def _identity(message: dict[str, Any]) -> str:
    return json.dumps(message, sort_keys=True, default=str)


def snapshots(lines: list[dict[str, Any]]) -> bool:
    """Some line repeats, before its own, every message of the line before it under the same key (of the same stage):
    the lines are one conversation written as it grew (a LangGraph agent streaming its state), not many."""
    keys = {k for line in lines for k, v in line.items() if isinstance(v, list) and v}
    for key in keys:
        bearing = [line for line in lines if isinstance(line.get(key), list) and line[key]]
        for before, after in pairwise(bearing):
            if len(after[key]) > len(before[key]) and after[key][: len(before[key])] == before[key]:
                return True
    return False


def one_conversation(lines: list[dict[str, Any]]) -> bool:
    """JSON Lines that are one conversation although more than one line carries messages: lines that repeat the
    conversation so far (:func:`snapshots`), or a typed event log some of whose lines hold no messages."""
    return snapshots(lines) or (_typed(lines) and _lines_stream(lines) is not None)


def _segmented(key: str, bearing: list[dict[str, Any]]) -> tuple[list[Segment], int, str | None]:
    """The stream's stages, each message once: a line that starts as its stage's conversation started repeats the
    conversation so far (only the messages after those already read are new; a message the agent removed from its
    state stays read), any other line holds only what it added."""
    stage_key = _stage_key(bearing)
    segments: list[Segment] = []
    previous: list[dict[str, Any]] = []
    seen: set[str] | None = None
    repeated = 0
    for line in bearing:
        name = line[stage_key] if stage_key else None
        messages = _messages(line, key)
        if not segments or name != segments[-1].name:
            segments.append(Segment(name, []))
            previous, seen = [], None
        items = segments[-1].items
        start = 0
        if items and messages and messages[0] == items[0]:
            if len(messages) >= len(previous) and messages[: len(previous)] == previous:
                start = len(previous)  # the usual snapshot: the line before it, then what this step added
            else:
                seen = seen if seen is not None else {_identity(m) for m in items}
                while start < len(messages) and _identity(messages[start]) in seen:
                    start += 1
            repeated += start
        new = messages[start:]
        items.extend(new)
        if seen is not None:
            seen.update(_identity(m) for m in new)
        previous = messages
    return segments, repeated, stage_key


def _lines_stream(items: list[Any]) -> _Stream | None:
    """JSON Lines whose lines hold their messages under the same key, as one stream; in a typed event log the lines
    holding none (a metadata header, stage markers) are counted, not read."""
    if not items or not all(isinstance(i, dict) for i in items):
        return None
    typed = _typed(items)
    holding = Counter(k for i in items for k, v in i.items() if isinstance(v, list))
    for key in sorted(holding, key=lambda k: (-holding[k], k)):
        bearing = [i for i in items if isinstance(i.get(key), list)]
        if len(bearing) < len(items) and not typed:
            continue
        segments, repeated, stage_key = _segmented(key, bearing)
        merged = [m for segment in segments for m in segment.items]
        if not merged or _score(merged) * 2 < len(merged):
            continue
        markers: Counter[str] = Counter()
        for item in items:
            if not isinstance(item.get(key), list):
                kind = next((item[k] for k in _DISCRIMINATORS if isinstance(item.get(k), str)), None)
                markers[f"'{kind}' line(s) holding no messages" if kind else "line(s) holding no messages"] += 1
        return _Stream(key, segments, markers, repeated, stage_key)
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
                items = [m for segment in stream.segments for m in segment.items]
                skipped = [(what, count, MARKER_REASON) for what, count in sorted(stream.markers.items())]
                if stream.repeated:
                    skipped.append((REPEATED, stream.repeated, REPEATED_REASON))
                # The lines are the conversation: an array inside one line holds at most what the stream holds.
                return Found(items, stream.location, stream.segments if len(stream.segments) > 1 else [], skipped), None
            score = _score(value)
            if score and (best is None or score > best[0]):
                best = (score, Found([i for i in value if isinstance(i, dict)], json_path(path)))
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


def _fill(items: list[dict[str, Any]], builder: TraceBuilder, document: TraceDocument) -> None:
    messages = [_normalised(item) for item in items]
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
            builder.text_result(text, failed=message.get("is_error") is True or message.get("status") == "error")
        elif message["role"] is None:
            builder.drop("item(s) with no role the generic reader knows")
        else:
            openai_chat.fill([message], builder, document)


def _models(items: list[dict[str, Any]]) -> list[str]:
    """The models the messages name (LangChain's ``response_metadata.model_name``, a message's ``model``)."""
    found: list[str] = []
    for item in items:
        metadata = item.get("response_metadata")
        name = metadata.get("model_name") or metadata.get("model") if isinstance(metadata, dict) else item.get("model")
        if isinstance(name, str) and name:
            found.append(name)
    return found


def parse(document: TraceDocument, found: Found) -> Session:
    """The conversation found, one stage, or one stage per stage of a JSON Lines stream (each stage's answer is its
    output; the last stage's answer is the session's)."""
    builder = TraceBuilder()
    for what, count, reason in found.skipped:
        builder.drop(what, count, reason)
    if not found.segments:
        _fill(found.items, builder, document)
        return build_session(document, builder, agent_models=_models(found.items))
    stages: list[Stage] = []
    answer: tuple[str, str | None] | None = None
    for number, segment in enumerate(found.segments, start=1):
        stage_builder = TraceBuilder()
        _fill(segment.items, stage_builder, document)
        finished = stage_builder.finish(submit_tools=document.submit_tools)
        for what, count in stage_builder.dropped.items():
            builder.drop(what, count, stage_builder.reasons[what])
        builder.times.extend(stage_builder.times)
        name = segment.name or f"conversation {number}"
        stages.append(Stage(name=name, steps=finished.steps, output=finished.answer))
        if finished.answer:
            answer = (finished.answer, finished.answer_source)
    if answer is not None:
        # The session's answer is shown once, as the final analysis, not also as its stage's output.
        last = next(i for i in range(len(stages) - 1, -1, -1) if stages[i].output == answer[0])
        stages[last] = stages[last].model_copy(update={"output": None})
    return build_session(
        document,
        builder,
        stages=stages,
        final_analysis=answer[0] if answer else None,
        final_answer_source=answer[1] if answer else None,
        agent_models=_models(found.items),
    )
