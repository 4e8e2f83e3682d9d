"""Pieces every trace-format parser shares: the document with its origin, the session envelope, tool-result
unwrapping, and :class:`TraceBuilder`, which matches results to calls without ever duplicating one and finishes a
conversation the same way for every format (narration before a call as reasoning, failures inferred from outputs,
durations from line times, the final answer; see ``docs/trace-formats.md``).

What a parser cannot show is counted with :meth:`TraceBuilder.drop`, with the reason, and said in one ``message``
step at the end of the stage and in the session's ``skipped_content``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import Field

from session_scoring.configuration.criteria import TraceImportSection
from session_scoring.errors import SessionDataError
from session_scoring.models.session import AvailableTool, Session, SkippedContent, Stage, Step, ToolCall
from session_scoring.sources.boundary import BoundaryModel, validate_document
from session_scoring.sources.formats.text_protocol import parse_result, parse_turn

DROPPED_PREFIX = "[not shown: the importer dropped"
NOT_READ = "a line or item type the importer does not read"
"""Why content of a type no parser reads is skipped (it is counted, never a reason to refuse the document)."""

DEFAULT_SUBMIT_TOOLS = frozenset(TraceImportSection().submit_tool_names)
"""Tools whose arguments are the agent's answer, unless configuration names others (``trace_import.submit_tools``)."""
_ANSWER_KEYS = ("answer", "final_answer", "conclusion", "result", "summary", "message", "response", "text", "content")

LAST_ASSISTANT_TEXT = "last_assistant_text"
DOCUMENT_ANSWER = "document"
SUBMIT_TOOL = "submit_tool"
SUBMIT_COMMAND = "submit_command"
"""The answer is what a command that submits printed (mini-swe-agent's marker, SWE-agent's ``submit``)."""

SUBMIT_MARKERS = ("COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT", "MINI_SWE_AGENT_FINAL_OUTPUT")
"""What a shell command echoes to submit (mini-swe-agent): the call is recognised by what it does, whatever the tool
is called, and what it printed after the marker is the answer."""
_SUBMIT_COMMAND = re.compile(r"^\s*submit\b")
_NAME_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_ACKNOWLEDGED = re.compile(
    r"\b(?:submission|answer)\b[^.\n]{0,40}?\b(?:complete|completed|received|accepted|recorded|saved)\b|\bsubmitted\b",
    re.IGNORECASE,
)
"""A tool's answer acknowledging a submission (Stratus: ``Submission complete. No further action is needed.``)."""
_ACKNOWLEDGEMENT_CHARS = 300
_NARRATION = re.compile(
    r"^(?:(?:ok|okay|great|good|perfect|now|next|first|then|so)[,!.]?\s+)*(?:let me|let's|let us|i'll|i will|i'm going "
    r"to|i am going to|i need to|we need to|we'll|now i|time to)\b",
    re.IGNORECASE,
)
_NARRATION_CHARS = 400


@dataclass(frozen=True)
class TraceDocument:
    """A parsed file or upload: its JSON content, where it came from, and (for JSON Lines) each item's line."""

    content: Any
    origin: str
    line_numbers: tuple[int, ...] | None = None
    submit_tools: frozenset[str] = DEFAULT_SUBMIT_TOOLS
    """Names (lower case, without server) of the tools whose arguments are the agent's final answer."""

    @property
    def default_id(self) -> str:
        return self.origin.rsplit("/", 1)[-1].removesuffix(".jsonl").removesuffix(".json")

    def where(self, index: int, container: str = "item") -> str:
        """How an error names the ``index``-th item: its line in a JSON Lines file, else its position."""
        if self.line_numbers is not None and index < len(self.line_numbers):
            return f"line {self.line_numbers[index]}"
        return f"{container}[{index}]"

    def error(self, where: str, expected: str) -> SessionDataError:
        return SessionDataError(f"{self.origin}: {where}: expected {expected}")


class Envelope(BoundaryModel):
    """Session fields a wrapper object may carry around any trace (all optional)."""

    session_id: str | None = None
    id: str | None = None
    status: str = "completed"
    alert_type: str | None = None
    agent_type: str | None = None
    author: str | None = None
    alert: dict[str, Any] = Field(default_factory=dict)
    final_analysis: str | None = None
    started_at: datetime | None = None
    completed_at: datetime | None = None


def nested(value: dict[str, Any], key: str) -> dict[str, Any]:
    """``value[key]`` when it is an object, else ``value`` itself (OpenAI nests a call under ``function``)."""
    inner = value.get(key)
    return inner if isinstance(inner, dict) else value


def envelope_of(document: TraceDocument) -> Envelope:
    content = document.content
    if not isinstance(content, dict):
        return Envelope()
    return validate_document(Envelope, content, f"{document.origin}: invalid session fields")


def parse_arguments(value: Any) -> dict[str, Any]:
    """Tool-call arguments as an object: JSON text is decoded; text that is not a JSON object is kept whole under
    ``raw`` (never re-parsed into something the agent did not send)."""
    if value is None or value == "":
        return {}
    decoded = json_decoded(value, ("{",))
    return decoded if isinstance(decoded, dict) else {"raw": value}


def json_decoded(value: Any, openers: tuple[str, ...] = ("[", "{")) -> Any:
    """Text that starts with one of ``openers`` decoded as JSON; anything else, or text that is not JSON, as is."""
    if isinstance(value, str) and value.strip()[:1] in openers:
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def json_or_text(text: str) -> Any:
    """Text as JSON when it is a JSON object or array, else the text, stripped."""
    return json_decoded(text.strip())


def _content_text(parts: list[Any]) -> str | None:
    """MCP/Anthropic content parts ``[{"type": "text", "text": ...}]`` as text; None if they are not that."""
    if not parts or not all(isinstance(p, dict) and isinstance(p.get("type"), str) for p in parts):
        return None
    texts = [str(p.get("text", "")) for p in parts if p.get("type") in ("text", "input_text", "output_text")]
    others = [str(p["type"]) for p in parts if p.get("type") not in ("text", "input_text", "output_text")]
    if not texts and others:
        return None
    note = f"\n[not shown: {', '.join(others)} content]" if others else ""
    return "\n".join(texts) + note


@dataclass(frozen=True)
class ToolOutput:
    result: Any
    failed: bool = False
    error: str | None = None


def unwrap_output(value: Any, failed: bool = False) -> ToolOutput:
    """A tool's output without its transport wrapping: MCP content parts and ``CallToolResult`` (``isError``),
    ``{"output": ...}`` (Codex, with ``metadata.exit_code``), ``{"result": ...}``, and JSON inside strings."""
    for _ in range(4):
        if isinstance(value, str):
            value = json_or_text(value)
            if isinstance(value, str):
                break
            continue
        if isinstance(value, list):
            text = _content_text(value)
            if text is None:
                break
            value = text
            continue
        if isinstance(value, dict):
            if isinstance(value.get("content"), list) and set(value) <= {"content", "isError", "structuredContent"}:
                failed = failed or bool(value.get("isError"))
                value = value.get("structuredContent") or value["content"]
                continue
            if "output" in value and set(value) <= {"output", "metadata", "success"}:
                metadata = value.get("metadata")
                exit_code = metadata.get("exit_code") if isinstance(metadata, dict) else None
                failed = failed or value.get("success") is False or (isinstance(exit_code, int) and exit_code != 0)
                value = value["output"]
                continue
            if set(value) == {"result"}:
                value = value["result"]
                continue
        break
    if failed:
        text = value if isinstance(value, str) else json.dumps(value, default=str)
        return ToolOutput(result=None, failed=True, error=text.strip() or "the call failed")
    return ToolOutput(result=value)


def split_qualified(name: str) -> tuple[str | None, str]:
    """``server.tool`` and Claude Code's ``mcp__server__tool`` -> (server, tool); a bare name has no server."""
    cleaned = name.strip() or "unknown_tool"
    if cleaned.startswith("mcp__") and cleaned.count("__") >= 2:
        _, server, tool = cleaned.split("__", 2)
        return server, tool
    server, dot, tool = cleaned.rpartition(".")
    return (server or None, tool) if dot and tool else (None, cleaned)


def tool_from_definition(name: str, description: Any = None, server: str | None = None) -> AvailableTool:
    parsed_server, parsed_name = split_qualified(name)
    return AvailableTool(
        name=parsed_name,
        server=server or parsed_server,
        description=description if isinstance(description, str) and description else None,
    )


def tools_of(definitions: Any) -> list[AvailableTool]:
    """Tool definitions ``[{"name", "description"}]`` (OpenAI's nested under ``function``) as available tools."""
    functions = (
        [nested(d, "function") for d in definitions if isinstance(d, dict)] if isinstance(definitions, list) else []
    )
    return [tool_from_definition(f["name"], f.get("description")) for f in functions if isinstance(f.get("name"), str)]


def messages_of(content: Any) -> Any:
    """A document's message list: the document itself, or its ``messages``."""
    return content.get("messages") if isinstance(content, dict) else content


def parse_time(value: Any) -> datetime | None:
    """ISO-8601 text, epoch seconds/milliseconds or OTLP nanoseconds (as number or text), in UTC."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and not value.strip().isdigit():
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    for scale in (1, 1e3, 1e6, 1e9):
        seconds = number / scale
        if seconds < 4e9:
            return datetime.fromtimestamp(seconds, tz=UTC)
    return None


def submitted_answer(arguments: dict[str, Any]) -> str | None:
    """The answer a submit tool's arguments carry: a known answer field, the only text argument, else all of them."""
    for key in _ANSWER_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    texts = [value.strip() for value in arguments.values() if isinstance(value, str) and value.strip()]
    if len(texts) == 1:
        return texts[0]
    return json.dumps(arguments, ensure_ascii=False, sort_keys=True) if arguments else None


@dataclass(frozen=True)
class FinishedConversation:
    """A conversation's steps, its final answer and where that answer was taken from (``final_answer_source``)."""

    steps: list[Step]
    answer: str | None
    answer_source: str | None


@dataclass
class TraceBuilder:
    """Ordered steps of one conversation. Results find their call by id, else by tool name, else the oldest call
    still waiting; a result with no call at all becomes a call known only from its result (never a duplicate)."""

    steps: list[Step] = field(default_factory=list)
    dropped: Counter[str] = field(default_factory=Counter)
    reasons: dict[str, str] = field(default_factory=dict)
    times: list[datetime] = field(default_factory=list)
    _waiting: list[tuple[int, str | None]] = field(default_factory=list)
    _made_at: dict[int, tuple[int, datetime]] = field(default_factory=dict)
    _moment: tuple[int, datetime] | None = None
    _lines: int = 0

    def text(self, kind: Literal["reasoning", "answer", "message"], text: str | None) -> None:
        if text and text.strip():
            self.steps.append(Step(kind=kind, text=text.strip()))

    def user(self, text: str | None) -> None:
        """A user turn: the first one is the task the agent was given."""
        if text and text.strip():
            self.text("message", f"User: {text.strip()}")

    @property
    def waiting(self) -> bool:
        """A call still waits for its result."""
        return bool(self._waiting)

    def text_turn(self, text: str | None, shell_tool: str = "bash", any_call: bool = False) -> None:
        """An agent turn whose actions are written as text (``text_protocol``): the text around them is the
        reasoning that led to them; a turn with no action is a message (narration or the answer)."""
        if not text or not text.strip():
            return
        turn = parse_turn(text, shell_tool, any_call)
        if not turn.actions:
            self.text("message", turn.reasoning)
        else:
            self.text("reasoning", turn.reasoning)
            for action in turn.actions:
                self.call(action.name, action.arguments)
        if turn.final_answer:
            self.text("message", turn.final_answer)

    def text_result(self, text: str, failed: bool = False, call_id: str | None = None) -> None:
        """A tool result written as text (``<returncode>``, ``EXECUTION RESULT of [name]:``, ``Observation:``)."""
        parsed = parse_result(text)
        self.result(unwrap_output(parsed.output, failed=failed), call_id=call_id, name=parsed.name)

    def drop(self, what: str, count: int = 1, reason: str = NOT_READ) -> None:
        self.dropped[what] += count
        self.reasons.setdefault(what, reason)

    def seen_at(self, value: Any) -> None:
        """A new line (or message) begins, written at ``value`` when it is a time: calls made on it and results
        brought by a later one give the call's duration."""
        self._lines += 1
        moment = parse_time(value)
        self._moment = (self._lines, moment) if moment is not None else None
        if moment is not None:
            self.times.append(moment)

    def call(self, name: str, arguments: Any = None, call_id: str | None = None, server: str | None = None) -> None:
        parsed_server, parsed_name = split_qualified(name)
        call = ToolCall(name=parsed_name, server=server or parsed_server, arguments=parse_arguments(arguments))
        self.steps.append(Step(kind="tool_call", tool_call=call))
        self._waiting.append((len(self.steps) - 1, call_id))
        if self._moment is not None:
            self._made_at[len(self.steps) - 1] = self._moment

    def complete(self, index: int, output: ToolOutput, duration_ms: int | None = None) -> None:
        current = self.steps[index].tool_call
        assert current is not None
        update: dict[str, Any] = (
            {"success": False, "error": output.error, "result": None} if output.failed else {"result": output.result}
        )
        made = self._made_at.get(index)
        if duration_ms is None and made is not None and self._moment is not None and self._moment[0] != made[0]:
            elapsed = (self._moment[1] - made[1]).total_seconds()
            duration_ms = round(elapsed * 1000) if elapsed >= 0 else None
        if duration_ms is not None:
            update["duration_ms"] = duration_ms
        completed = current.model_copy(update=update).with_failure_from_output()
        self.steps[index] = Step(kind="tool_call", tool_call=completed)

    def result(
        self, output: ToolOutput, call_id: str | None = None, name: str | None = None, duration_ms: int | None = None
    ) -> None:
        index = self._take(call_id, name)
        if index is not None:
            self.complete(index, output, duration_ms)
            return
        self.call(name or "unknown_tool")
        self._waiting.pop()
        self.complete(len(self.steps) - 1, output, duration_ms)

    def _take(self, call_id: str | None, name: str | None) -> int | None:
        position: int | None = None
        if call_id:
            position = next((p for p, (_, cid) in enumerate(self._waiting) if cid == call_id), None)
        if position is None and name:
            _, bare = split_qualified(name)
            position = next(
                (
                    p
                    for p, (index, cid) in enumerate(self._waiting)
                    if (call := self.steps[index].tool_call) is not None
                    and bare == call.name
                    and (not call_id or cid is None)
                ),
                None,
            )
        if position is None and not call_id and self._waiting:
            position = 0
        if position is None:
            return None
        return self._waiting.pop(position)[0]

    def skipped(self) -> list[SkippedContent]:
        return [
            SkippedContent(what=what, count=count, reason=self.reasons.get(what, NOT_READ))
            for what, count in sorted(self.dropped.items())
        ]

    def finish(
        self,
        final_analysis: str | None = None,
        submit_tools: frozenset[str] = DEFAULT_SUBMIT_TOOLS,
        beside: tuple[str, str] | None = None,
    ) -> FinishedConversation:
        """The steps and the final answer (see the module's docstring). The answer is shown once, as the final
        analysis, not also as a step. In order: the document's own final analysis; an answer beside the list
        (``beside``: the reader's exit message, submission, response or finish action, with its source); the last
        submit (a submit tool's argument, or what a submitting command printed); the agent's last text, unless it
        only announces its next action. A submit call is how the agent answered, not evidence: it is never a step."""
        steps = _narration_as_reasoning(self.steps)
        answer, source = (final_analysis, DOCUMENT_ANSWER) if final_analysis else (None, None)
        if answer is None and beside is not None and beside[0].strip():
            answer, source = beside[0].strip(), beside[1]
        submitted = _submitted(steps, submit_tools)
        if submitted is not None:
            index, kind, text = submitted
            if answer is None and text:
                answer, source = text, kind
            steps.pop(index)
            # Earlier submits were attempts at the answer (a rejected flag, a resubmitted patch), not evidence.
            steps = [step for step in steps if _submitted([step], submit_tools) is None]
        last = _last_agent_text(steps)
        if last is not None:
            text = steps[last].text or ""
            if answer is None and not announces_next_action(text):
                answer, source = text, LAST_ASSISTANT_TEXT
                steps.pop(last)
            elif answer is not None and answer.strip() == text:
                steps.pop(last)
        if self.dropped:
            listed = ", ".join(f"{count} {what}" for what, count in sorted(self.dropped.items()))
            steps.append(Step(kind="message", text=f"{DROPPED_PREFIX} {listed}]"))
        return FinishedConversation(steps, answer, source)


def announces_next_action(text: str) -> bool:
    """Narration that announces what the agent does next ("Now let's list the pods:"): never the conclusion."""
    stripped = text.strip()
    if len(stripped) > _NARRATION_CHARS:
        return False
    last = re.split(r"(?<=[.!?])\s+", stripped)[-1]
    return stripped.endswith(":") or _NARRATION.match(last) is not None


def _is_agent_text(step: Step) -> bool:
    return step.kind in ("answer", "message") and bool(step.text) and not (step.text or "").startswith("User:")


def _narration_as_reasoning(steps: list[Step]) -> list[Step]:
    """Agent text written as its own item or line and followed, before anything but more of the agent's thoughts, by a
    tool call is the reasoning that led to the call (Codex's assistant messages, Claude Code's text lines)."""
    result = list(steps)
    leads_to_call = False
    for index in range(len(result) - 1, -1, -1):
        step = result[index]
        if step.tool_call is not None:
            leads_to_call = True
        elif step.kind == "reasoning":
            continue
        elif _is_agent_text(step) and step.kind == "message":
            if leads_to_call:
                result[index] = Step(kind="reasoning", text=step.text)
        else:
            leads_to_call = False
    return result


def _submitted(steps: list[Step], submit_tools: frozenset[str]) -> tuple[int, str, str] | None:
    """The last submit: (its step, the answer's source, the answer). A submit tool's call carries the answer in its
    arguments; a command that submits (it echoes a marker, or is SWE-agent's ``submit``) printed it."""
    for index in range(len(steps) - 1, -1, -1):
        call = steps[index].tool_call
        if call is None:
            continue
        if _is_submit_tool(call, submit_tools):
            arguments = {k: v for k, v in call.arguments.items() if k != "command"} or call.arguments
            text = submitted_answer(arguments) if not _is_submit_command(call.arguments) else _printed(call)
            if text or _is_submit_command(call.arguments) or not call.arguments:
                return index, f"{SUBMIT_TOOL}:{call.name}", text or _printed(call)
        elif _is_submit_command(call.arguments):
            return index, SUBMIT_COMMAND, _printed(call)
    return None


def _is_submit_tool(call: ToolCall, submit_tools: frozenset[str]) -> bool:
    """A submit tool: one of ``submit_tools``, or a tool whose name has one of them as a word (``submit_tool``,
    ``f_submit_tool``, ``submitDiagnosis``) and whose answer acknowledged the submission: recognised by what it did,
    so that a ``submit_job`` that started a job is evidence, not the answer."""
    if call.name.lower() in submit_tools:
        return True
    if not {word.lower() for word in _NAME_WORDS.findall(call.name)} & submit_tools:
        return False
    result = call.result if isinstance(call.result, str) else ""
    return call.success and _ACKNOWLEDGED.search(result[:_ACKNOWLEDGEMENT_CHARS]) is not None


def _is_submit_command(arguments: dict[str, Any]) -> bool:
    command = arguments.get("command")
    if not isinstance(command, str):
        return False
    return any(marker in command for marker in SUBMIT_MARKERS) or _SUBMIT_COMMAND.match(command) is not None


def _printed(call: ToolCall) -> str:
    """What a submitting call printed, without the marker and the return code."""
    output = call.result if isinstance(call.result, str) else (call.error or "")
    if not isinstance(output, str):
        return ""
    lines = [
        line
        for line in output.splitlines()
        if not any(marker in line for marker in SUBMIT_MARKERS) and not line.strip().startswith("<returncode>")
    ]
    return "\n".join(lines).strip()


def _last_agent_text(steps: list[Step]) -> int | None:
    """The agent's last text after its last tool call, looking past trailing user turns."""
    for index in range(len(steps) - 1, -1, -1):
        step = steps[index]
        if step.kind == "message" and (step.text or "").startswith("User:"):
            continue
        return index if _is_agent_text(step) else None
    return None


def build_session(
    document: TraceDocument,
    builder: TraceBuilder,
    *,
    agent: str | None = None,
    tools: list[AvailableTool] | None = None,
    session_id: str | None = None,
    started_at: datetime | None = None,
    completed_at: datetime | None = None,
    final_analysis: str | None = None,
    final_answer_source: str | None = None,
    stages: list[Stage] | None = None,
    beside: tuple[str, str] | None = None,
    agent_models: list[str] | None = None,
    stopped_on: str | None = None,
) -> Session:
    """A one-stage session (or ``stages`` when given) with the envelope's fields taking precedence. ``beside``: the
    answer the document holds beside the conversation and its source (it wins over the conversation's last text);
    ``final_analysis``: an answer of last resort; ``agent_models``: the models the recording names (the judge's
    self-preference check); ``stopped_on``: the error the run stopped on (an exception the agent's framework caught):
    the session is ``failed`` with it, and has no answer but one the document holds."""
    envelope = envelope_of(document)
    finished = builder.finish(envelope.final_analysis, document.submit_tools, beside)
    answer, source = finished.answer, finished.answer_source
    if answer is None and final_analysis:
        answer, source = final_analysis, final_answer_source
    if stopped_on is not None and source == LAST_ASSISTANT_TEXT:
        answer, source = None, None  # the run stopped before it answered: its last text was not the conclusion
    times = sorted(builder.times)
    return Session(
        session_id=envelope.session_id or envelope.id or session_id or document.default_id,
        status="failed" if stopped_on is not None and "status" not in envelope.model_fields_set else envelope.status,
        error=stopped_on,
        alert_type=envelope.alert_type,
        agent_type=envelope.agent_type or agent,
        author=envelope.author,
        started_at=envelope.started_at or started_at or (times[0] if times else None),
        completed_at=envelope.completed_at or completed_at or (times[-1] if times else None),
        alert=envelope.alert,
        available_tools=tools or [],
        stages=stages
        if stages is not None
        else [Stage(name="conversation", agent=envelope.agent_type or agent, steps=finished.steps)],
        final_analysis=answer,
        final_answer_source=source,
        skipped_content=builder.skipped(),
        agent_models=list(dict.fromkeys(agent_models or [])),
    )
