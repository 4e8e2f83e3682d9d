"""Turn an agent's LLM conversation into ordered steps: reasoning, tool calls with their results, and answers.

Three styles are read (``docs/sessions.md`` gives the details): tarsy-bot's ReAct text (``Thought:`` / ``Action:`` /
``Action Input:``, parsed by the shared :mod:`sources.formats.text_protocol`; results as ``Observation: server.tool:
...``), its native function calling (``Tool Result:`` / ``Tool Error:`` user messages, reasoning passed as
:class:`ThinkingAnchor`), and OpenAI-style chat (``tool_calls`` and ``tool`` messages). When a source also has the MCP
records, :func:`merge_tool_calls` puts them, which are authoritative, in place of the calls the conversation shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from session_scoring.models.session import Step, ToolCall
from session_scoring.sources.formats.common import json_or_text, nested
from session_scoring.sources.formats.text_protocol import parse_action_input, react_sections

SUMMARY_NOTE = "[NOTE: The tool output was too long and has been summarized below.]"

_OBSERVATION = re.compile(r"^Observation:\s*(?P<tool>[\w.\-/]+?)(?P<error>\s+error)?:\s?(?P<body>.*)\Z", re.DOTALL)
_TOOL_RESULT = re.compile(
    r"^Tool (?P<kind>Result|Error):\s*(?P<tool>[\w.\-/]+?):\s?(?P<body>.*)\Z", re.DOTALL | re.IGNORECASE
)
_CHAT_QUESTION = re.compile(r"\*\*Question:\*\*\s*(?P<question>.+?)(?:\n\s*\n|\Z)", re.DOTALL)


@dataclass(frozen=True)
class Message:
    """One conversation message in a neutral form."""

    role: str
    content: str
    tool_calls: tuple[dict[str, Any], ...] = ()
    tool_call_id: str | None = None


@dataclass(frozen=True)
class ThinkingAnchor:
    """Reasoning that happened after the first ``position`` messages (native thinking's ``thinking_content``)."""

    position: int
    text: str


def split_tool_name(qualified: str) -> tuple[str | None, str]:
    """``server.tool`` -> (server, tool); a bare name has no server."""
    server, dot, name = qualified.strip().rpartition(".")
    return (server or None, name) if dot else (None, qualified.strip())


def unwrap_result(result: Any) -> Any:
    """TARSy wraps a tool's text output as ``{"result": "..."}``; keep the output itself."""
    if isinstance(result, dict) and set(result) == {"result"}:
        return result["result"]
    return result


class _StepBuilder:
    def __init__(self) -> None:
        self.steps: list[Step] = []
        self._pending: dict[str, int] = {}
        self._by_id: dict[str, int] = {}

    def text(self, kind: Literal["reasoning", "answer", "message"], text: str) -> None:
        if text.strip():
            self.steps.append(Step(kind=kind, text=text.strip()))

    def call(self, qualified: str, arguments: Any = None, call_id: str | None = None) -> None:
        server, name = split_tool_name(qualified)
        call = ToolCall(name=name, server=server, arguments=arguments if isinstance(arguments, dict) else {})
        self.steps.append(Step(kind="tool_call", tool_call=call))
        self._pending[call.qualified_name] = len(self.steps) - 1
        self._pending[call.name] = len(self.steps) - 1
        if call_id:
            self._by_id[call_id] = len(self.steps) - 1

    def name_for(self, call_id: str | None) -> str:
        """The tool an OpenAI-style ``tool`` message answers (by its ``tool_call_id``)."""
        index = self._by_id.get(call_id) if call_id else None
        call = self.steps[index].tool_call if index is not None else None
        return call.qualified_name if call is not None else "unknown_tool"

    def result(self, qualified: str, body: str, error: bool, call_id: str | None = None) -> None:
        """Attach a result to the call waiting for it, or record a call known only from its result."""
        server, name = split_tool_name(qualified)
        summarized = SUMMARY_NOTE in body
        index = self._by_id.pop(call_id, None) if call_id else None
        if index is None:
            index = self._pending.pop(qualified, None)
            if index is None and server is None:
                index = self._pending.pop(name, None)
        update: dict[str, Any] = (
            {"success": False, "error": body.strip() or "the call failed", "result": None}
            if error
            else {"result": unwrap_result(json_or_text(body)), "result_summarized": summarized}
        )
        current = self.steps[index].tool_call if index is not None else None
        if index is not None and current is not None:
            self._pending.pop(current.qualified_name, None)
            self._pending.pop(current.name, None)
            completed = current.model_copy(update=update).with_failure_from_output()
            self.steps[index] = Step(kind="tool_call", tool_call=completed)
            return
        unmatched = ToolCall(name=name, server=server, **update).with_failure_from_output()
        self.steps.append(Step(kind="tool_call", tool_call=unmatched))


def parse_conversation(
    messages: Sequence[Message],
    thinking: Iterable[ThinkingAnchor] = (),
    *,
    chat: bool = False,
) -> list[Step]:
    """Ordered steps of one agent's conversation. System prompts are left out, and so is the first user message
    (TARSy's task prompt, which repeats the alert and earlier stages).

    ``chat``: the first user message is a TARSy chat prompt; only its ``**Question:**`` is kept, as a message step.
    """
    builder = _StepBuilder()
    anchors = sorted(thinking, key=lambda anchor: anchor.position)
    anchor_index = 0
    first_user_seen = False
    for position, message in enumerate(messages):
        while anchor_index < len(anchors) and anchors[anchor_index].position <= position:
            builder.text("reasoning", anchors[anchor_index].text)
            anchor_index += 1
        role = message.role.lower()
        if role == "system":
            continue
        if role in ("user", "human"):
            if not first_user_seen:
                first_user_seen = True
                if chat:
                    question = _CHAT_QUESTION.search(message.content)
                    builder.text("message", f"User question: {question['question'].strip()}" if question else "")
                continue
            _user_message(builder, message.content)
        elif role == "tool":
            builder.result(
                builder.name_for(message.tool_call_id), message.content, error=False, call_id=message.tool_call_id
            )
        elif role == "assistant":
            _assistant_message(builder, message)
        else:
            builder.text("message", f"{role}: {message.content}")
    for anchor in anchors[anchor_index:]:
        builder.text("reasoning", anchor.text)
    return _mark_final_answer(builder.steps)


def _user_message(builder: _StepBuilder, content: str) -> None:
    stripped = content.strip()
    observation = _OBSERVATION.match(stripped)
    if observation:
        builder.result(observation["tool"], observation["body"], error=bool(observation["error"]))
        return
    tool_result = _TOOL_RESULT.match(stripped)
    if tool_result:
        builder.result(tool_result["tool"], tool_result["body"], error=tool_result["kind"].lower() == "error")
        return
    builder.text("message", f"User: {stripped}")


def _assistant_message(builder: _StepBuilder, message: Message) -> None:
    content = message.content or ""
    if message.tool_calls:
        builder.text("reasoning", content)
        for raw in message.tool_calls:
            function = nested(raw, "function")
            arguments = function.get("arguments")
            if isinstance(arguments, str):
                arguments = parse_action_input(arguments)
            builder.call(
                str(function.get("name") or "unknown_tool"), arguments, str(raw["id"]) if raw.get("id") else None
            )
        return
    sections = react_sections(content)
    if not any(header in ("Action", "Final Answer", "Thought") for header, _ in sections):
        builder.text("message", content)
        return
    action: str | None = None
    for header, body in sections:
        if header in ("", "Thought"):
            builder.text("reasoning", body)
        elif header == "Action":
            action = body.splitlines()[0].strip() if body else None
        elif header == "Action Input" and action:
            builder.call(action, parse_action_input(body))
            action = None
        elif header == "Final Answer":
            builder.text("answer", body)
        elif header == "Observation":
            builder.text("message", f"Observation written by the agent itself: {body}")
    if action:
        builder.call(action)


def _mark_final_answer(steps: list[Step]) -> list[Step]:
    """A plain assistant message after the last tool call is the agent's answer."""
    if not steps or any(step.kind == "answer" for step in steps):
        return steps
    last = steps[-1]
    if last.kind == "message" and last.text and not last.text.startswith(("User:", "User question:")):
        return [*steps[:-1], Step(kind="answer", text=last.text)]
    return steps


def merge_tool_calls(steps: Sequence[Step], recorded: Sequence[ToolCall]) -> list[Step]:
    """Replace the conversation's tool calls with the recorded (MCP) calls, keeping the conversation's order.

    Each recorded call takes the next unmatched conversation call of the same tool (or, when the records run in a
    different order, an earlier unmatched one); a recorded call the conversation never shows is placed after the
    previously matched one, so no recorded call is ever lost or shown twice. The conversation's "the agent saw a
    summary" flag is kept.
    """
    shown = [index for index, step in enumerate(steps) if step.tool_call is not None]
    matched: dict[int, ToolCall] = {}
    placed_after: dict[int, list[ToolCall]] = {}
    last = -1
    for call in recorded:
        free = [i for i in shown if i not in matched and _same_tool(steps[i].tool_call, call)]
        match = next((i for i in free if i > last), free[0] if free else None)
        if match is None:
            placed_after.setdefault(last, []).append(call)
            continue
        seen = steps[match].tool_call
        assert seen is not None
        matched[match] = call.model_copy(update={"result_summarized": call.result_summarized or seen.result_summarized})
        last = match
    merged = [Step(kind="tool_call", tool_call=call) for call in placed_after.get(-1, [])]
    for index, step in enumerate(steps):
        merged.append(Step(kind="tool_call", tool_call=matched[index]) if index in matched else step)
        merged.extend(Step(kind="tool_call", tool_call=call) for call in placed_after.get(index, []))
    return merged


def _same_tool(seen: ToolCall | None, recorded: ToolCall) -> bool:
    if seen is None or seen.name != recorded.name:
        return False
    return seen.server is None or recorded.server is None or seen.server == recorded.server
