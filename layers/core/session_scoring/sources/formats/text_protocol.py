"""Tool calls written as text, the way agents without native function calling write them, read by one parser that
every reader shares (``docs/trace-formats.md``, "Text protocols"):

- ReAct: ``Thought:`` / ``Action:`` / ``Action Input:`` (``Observation:`` and ``Final Answer:`` too);
- XML-ish function tags: ``<function=name><parameter=key>value</parameter></function>`` (OpenHands and LiteLLM
  without native function calling) and ``<invoke name="..."><parameter name="...">`` blocks;
- fenced code-block actions: a ```` ```bash ```` block (mini-swe-agent, SWE-agent), whose command is the call;
- Python-style calls of a known action, ``exec_shell("kubectl get pods")`` or ``submit(["svc-a"])`` (AIOpsLab).

:func:`parse_turn` splits an agent's text into the reasoning around the actions and the actions; :func:`parse_result`
splits a result written as text (``<returncode>1</returncode><output>...``, ``EXECUTION RESULT of [name]:``,
``Observation: ...``) into the tool it names and its output.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from typing import Any

_REACT_HEADER = re.compile(r"^(Thought|Action Input|Action|Final Answer|Observation)\s*:\s?", re.MULTILINE)
_FUNCTION_TAG = re.compile(r"<function=(?P<name>[\w.\-]+)>(?P<body>.*?)(?:</function>|\Z)", re.DOTALL)
_PARAMETER_TAG = re.compile(
    r"<parameter=(?P<key>[\w.\-]+)>(?P<value>.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.DOTALL
)
_INVOKE = re.compile(r"<invoke name=\"(?P<name>[\w.\-]+)\">(?P<body>.*?)</invoke>", re.DOTALL)
_INVOKE_PARAMETER = re.compile(r"<parameter name=\"(?P<key>[\w.\-]+)\">(?P<value>.*?)</parameter>", re.DOTALL)
_FENCE = re.compile(r"^```(?P<lang>[\w\-]*)[^\n]*\n(?P<body>.*?)^```", re.DOTALL | re.MULTILINE)
_SHELL_FENCES = frozenset({"bash", "sh", "shell", "console", "zsh", "mswea_bash_command"})
_PY_CALL = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\((?P<args>.*)\)\s*$", re.DOTALL)
_RETURNCODE = re.compile(r"^\s*<returncode>\s*(?P<code>-?\d+)\s*</returncode>\s*")
_EXECUTION_RESULT = re.compile(r"^\s*EXECUTION RESULT of \[(?P<name>[\w.\-]+)\]:\n?(?P<body>.*)\Z", re.DOTALL)
_PY_CALL_CHARS = 20_000
"""A Python-style action longer than this is text: no agent writes such a call, and parsing it costs."""
_LAYOUT_TAGS = re.compile(r"</?(?:think|answer)>")
_OBSERVATION = re.compile(r"^\s*Observation:\s?(?P<body>.*)\Z", re.DOTALL)

TEXT_ACTIONS = frozenset({"exec_shell", "execute", "submit", "get_logs", "get_metrics", "get_traces", "read_file"})
"""Names whose Python-style call, alone on a line or in a code block, is an action (AIOpsLab's and its forks' APIs);
other code is text."""


@dataclass(frozen=True)
class TextAction:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ParsedTurn:
    """An agent's text: the reasoning around its actions, the actions in order, and a ReAct ``Final Answer``."""

    reasoning: str
    actions: list[TextAction] = field(default_factory=list)
    final_answer: str | None = None


@dataclass(frozen=True)
class TextResult:
    """A result written as text: the tool it names (if any), its output, and the exit code it states (if any)."""

    output: str
    name: str | None = None
    exit_code: int | None = None


def parse_action_input(text: str) -> dict[str, Any]:
    """ReAct ``Action Input``: a JSON object, ``key: value`` lines, or free text kept under ``input``."""
    stripped = text.strip()
    if not stripped:
        return {}
    if stripped.startswith("{"):
        try:
            value = json.loads(stripped)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return value
    pairs: dict[str, Any] = {}
    for line in stripped.splitlines():
        key, colon, rest = line.partition(":")
        if not colon or not key.strip() or " " in key.strip():
            return {"input": stripped}
        pairs[key.strip()] = rest.strip()
    return pairs


def react_sections(content: str) -> list[tuple[str, str]]:
    """(header, body) pairs of a ReAct message; text before the first header has header ''."""
    before, *rest = _REACT_HEADER.split(content)
    sections = [(header, body.strip()) for header, body in zip(rest[::2], rest[1::2], strict=True)]
    return [("", before.strip()), *sections] if before.strip() else sections


def _python_call(text: str, any_name: bool = False) -> TextAction | None:
    """``name(args)`` of a known action (of any name when ``any_name``: where the protocol says the text is an
    action, after ``Action:``): positional arguments as ``command`` (one) or ``args`` (several)."""
    if len(text) > _PY_CALL_CHARS:
        return None
    match = _PY_CALL.match(text)
    if match is None or (match["name"] not in TEXT_ACTIONS and not any_name):
        return None
    try:
        parsed = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return TextAction(match["name"], {"raw": match["args"].strip()})
    if not isinstance(parsed, ast.Call):
        return None
    try:
        positional = [ast.literal_eval(arg) for arg in parsed.args]
        keywords = {kw.arg: ast.literal_eval(kw.value) for kw in parsed.keywords if kw.arg}
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return TextAction(match["name"], {"raw": match["args"].strip()})
    arguments: dict[str, Any] = dict(keywords)
    if len(positional) == 1:
        arguments.setdefault("answer" if match["name"] == "submit" else "command", positional[0])
    elif positional:
        arguments["args"] = positional
    return TextAction(match["name"], arguments)


def _tag_actions(text: str) -> tuple[list[TextAction], str] | None:
    found: list[TextAction] = []
    for match in _FUNCTION_TAG.finditer(text):
        params = {m["key"]: m["value"].strip("\n") for m in _PARAMETER_TAG.finditer(match["body"])}
        found.append(TextAction(match["name"], params))
    rest = _FUNCTION_TAG.sub("", text)
    for match in _INVOKE.finditer(rest):
        params = {m["key"]: m["value"].strip("\n") for m in _INVOKE_PARAMETER.finditer(match["body"])}
        found.append(TextAction(match["name"], params))
    if not found:
        return None
    rest = re.sub(r"</?function_calls>", "", _INVOKE.sub("", rest))
    return found, rest


def _unfenced(body: str) -> str:
    """The inside of a code block written right after a header (``Action:```\nsubmit('yes')\n```"``)."""
    stripped = body.strip()
    if stripped.startswith("```") and stripped.endswith("```") and len(stripped) >= 6:
        inner = stripped[3:-3]
        return inner.split("\n", 1)[1].strip() if "\n" in inner else inner.strip()
    return stripped


def _fenced_actions(text: str, shell_tool: str, any_call: bool = False) -> tuple[list[TextAction], str] | None:
    found: list[TextAction] = []
    kept: list[str] = []
    position = 0
    for match in _FENCE.finditer(text):
        body = match["body"].strip()
        action = _python_call(body, any_call)
        if action is None and match["lang"].lower() in _SHELL_FENCES and body:
            action = TextAction(shell_tool, {"command": body})
        if action is None:
            continue
        found.append(action)
        kept.append(text[position : match.start()])
        position = match.end()
    if not found:
        return None
    kept.append(text[position:])
    return found, "".join(kept)


def _react(text: str) -> ParsedTurn | None:
    sections = react_sections(text)
    if not any(header in ("Action", "Final Answer") for header, _ in sections):
        return None
    reasoning: list[str] = []
    actions: list[TextAction] = []
    final: str | None = None
    pending: str | None = None
    for header, body in sections:
        if header in ("", "Thought"):
            reasoning.append(body)
        elif header == "Action":
            inner = _unfenced(body)
            call = _python_call(inner, any_name=True)
            first = inner.splitlines()[0].strip() if inner else ""
            if call is not None:
                actions.append(call)
            elif first and not body.strip().startswith("```"):
                pending = first
        elif header == "Action Input" and pending:
            actions.append(TextAction(pending, parse_action_input(body)))
            pending = None
        elif header == "Final Answer":
            final = body
    if pending:
        actions.append(TextAction(pending, {}))
    return ParsedTurn("\n".join(r for r in reasoning if r).strip(), actions, final)


def parse_turn(text: str, shell_tool: str = "bash", any_call: bool = False) -> ParsedTurn:
    """The actions an agent wrote in ``text`` (see the module's docstring) and the reasoning around them; text
    with no action is all reasoning (the caller decides whether it is narration or an answer). ``any_call``: a
    Python-style call of any name in a code block is an action (AIOpsLab's APIs: ``get_metric_summary(...)``)."""
    if not text or not text.strip():
        return ParsedTurn("")
    # ``<think>...</think><answer>```...```</answer>`` (reasoning models trained on AIOpsLab): the tags are layout.
    text = _LAYOUT_TAGS.sub("\n", text)
    tagged = _tag_actions(text)
    if tagged is not None:
        return ParsedTurn(tagged[1].strip(), tagged[0])
    react = _react(text)
    if react is not None:
        return react
    fenced = _fenced_actions(text, shell_tool, any_call)
    if fenced is not None:
        return ParsedTurn(fenced[1].strip(), fenced[0])
    lines = [line for line in text.strip().splitlines() if line.strip()]
    calls = [_python_call(line) for line in lines]
    if calls and calls[-1] is not None:
        # An action on the last line(s), after the reasoning (``exec_shell("...")`` written bare).
        actions = [c for c in calls if c is not None]
        reasoning = "\n".join(line for line, c in zip(lines, calls, strict=True) if c is None)
        return ParsedTurn(reasoning.strip(), actions)
    return ParsedTurn(text.strip())


def parse_result(text: str) -> TextResult:
    """A tool result written as text (see the module's docstring); anything else is the output as it is."""
    match = _RETURNCODE.match(text)
    if match is not None:
        output = text[match.end() :]
        if output.startswith("<output>"):
            end = output.rfind("</output>")
            output = output[len("<output>") : end if end >= 0 else len(output)]
        # The return code stays in the output's first line: the one failure rule reads it there.
        return TextResult(f"<returncode>{match['code']}</returncode>\n{output.strip()}", exit_code=int(match["code"]))
    match = _EXECUTION_RESULT.match(text)
    if match is not None:
        return TextResult(match["body"].strip(), name=match["name"])
    match = _OBSERVATION.match(text)
    if match is not None:
        return TextResult(match["body"].strip())
    return TextResult(text)
