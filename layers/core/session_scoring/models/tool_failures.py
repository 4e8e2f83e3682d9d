"""Failures a tool's output reports in its text although the call was recorded as a success.

Many agent frameworks record every tool call as successful and hand the agent whatever the tool printed: a shell
command's non-zero exit code, ``Error: ...``, a Python traceback, kubectl's ``Error from server``, an HTTP error
status. The importer marks such calls failed (``ToolCall.failure_inferred``) and both judges treat them as calls that
returned no evidence. Only the *start* of the output is read: a log that the tool returned successfully may well
contain error lines or tracebacks, and those are evidence, not a failed call.
"""

from __future__ import annotations

import re
from typing import Any

_FIRST_LINE_PATTERNS = (
    re.compile(r"^(?:Process exited with code|Exit code:?)\s*(?P<code>-?\d+)", re.IGNORECASE),
    # "Error: ...", "error: ...", "ERROR 1045 (28000): ...", "Error (NotFound): ...", "FATAL: ..." (not a log line such
    # as "ERROR search failed: ...", whose first word after the level is the logger's message).
    re.compile(r"^(?:error|fatal)(?:\s+\d+)?(?:\s*\([^)]*\))?\s*:", re.IGNORECASE),
    # "Error parsing response": AIOpsLab's answer to an action it could not read (the call never ran).
    re.compile(
        r"^Error (?:from server|executing tool|calling tool|running tool|invoking tool|parsing response)\b",
        re.IGNORECASE,
    ),
    # AIOpsLab's shell: "[ERROR] Docker command execution failed: ..." (not an application's "[ERROR] ..." log line).
    re.compile(r"^\[ERROR\] (?:Docker |Kubectl |Shell )?command execution failed\b", re.IGNORECASE),
    re.compile(r"^.{0,120}\bcommand not found\b"),
    re.compile(r"^HTTP/\d(?:\.\d)?\s+[45]\d\d\b"),
    re.compile(r"^(?:request |operation |the )?(?:timed out|timeout)\b", re.IGNORECASE),
    re.compile(r"^(?:context )?deadline exceeded\b", re.IGNORECASE),
    re.compile(r"^curl: \(\d+\)"),
    re.compile(r"^<returncode>\s*(?P<code>-?\d+)\s*</returncode>"),
    # Editors of coding agents (OpenHands, SWE-agent) answer a failed edit or read in their text.
    re.compile(r"^Ran into \[Errno \d+\]"),
    re.compile(r"^Invalid `\w+` parameter"),
    re.compile(r"^Your proposed edit has introduced new syntax error"),
    re.compile(r"^No replacement was performed\b"),
    re.compile(r"^Cannot execute multiple commands at once\b"),
    # A tool that refused the command it was given (Stratus's kubectl tools: "Command Rejected (ValueError): ...",
    # HolmesGPT's "Tool call rejected for security reasons: ...").
    re.compile(r"^(?:Command|Tool call) (?:rejected|refused|not allowed|blocked)\b", re.IGNORECASE),
    # A tool refusing or failing in its own words: "Browser Use rejected this action ...", Codex's "write_stdin
    # failed: stdin is closed ..." and "apply_patch verification failed: ...".
    re.compile(r"^[\w .-]{0,40}\b(?:rejected|refused|blocked|denied) this (?:action|request|command|call)\b", re.I),
    re.compile(r"^[\w.-]{1,40}(?: verification)? failed: "),
)
_HEADER_EXIT = re.compile(r"^(?:Process exited with code|Exit code:?)\s*(?P<code>-?\d+)", re.IGNORECASE)
"""An exit code in the header lines a shell tool writes before the output (Codex's ``exec_command``: ``Chunk ID``,
``Wall time``, then ``Process exited with code 1``, then ``Output:``)."""
_HEADER_LINES = 6
_TRAILER_EXIT = re.compile(
    r"^\[?(?:The command completed|Command finished|Command `.*` executed)\s+with exit code\s+(?P<code>-?\d+)\b"
)
"""An exit code a shell tool writes after the output (OpenHands: ``[The command completed with exit code 2.]``)."""
_TRAILER_LINES = 3
_MCP_RESULT_ERROR = re.compile(r"^meta=\S+ content=\[.*\bisError=True\s*$", re.DOTALL)
"""An MCP ``CallToolResult`` written as its Python text (``meta=None content=[TextContent(...)] isError=True``)."""
_HOLMES_HEADER = re.compile(r"^Params used for the tool call: .*The tool call output follows on the next line\.?$")
"""The line HolmesGPT writes above a tool's output: read past it, as the output begins below."""
_UTILITY_ERROR = re.compile(
    r"^(?:\(eval\):\d+|[\w.+-]{1,40}|/\S{0,200}): "
    r".*(?:No such file or directory|Permission denied|Not a directory|Is a directory|no matches found: .*)\)?$"
)
"""A command-line tool's or a shell's complaint (``ls: cannot access 'x': No such file or directory``, zsh's
``(eval):1: no matches found: *.log``, ``file``'s ``/x/*: cannot open `/x/*' (No such file or directory)``): a
failure when it is the whole output (among results, as ``find`` prints them, it is evidence)."""
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception|Interrupt|Exit)\b(?::.*)?$")
_TRACEBACK_START_LINES = 3
_HEAD_CHARS = 1500
_TAIL_CHARS = 500
_TRACEBACK = "Traceback (most recent call last):"
_ERROR_KEYS = {"error", "message", "code", "status", "status_code", "details", "type"}
_EVIDENCE_CHARS = 200


def failure_in_output(result: Any) -> str | None:
    """The line of ``result`` that reports a failure (for the call's ``error``), or None when it reports none.

    Text: its first non-empty line is an exit code other than 0 (``Process exited with code 1``, ``Exit code: 2``), an
    error line (``error:``, ``Error:``, ``Error from server``, ``Error executing tool``), a traceback, ``command not
    found``, an HTTP 4xx/5xx status line, a timeout, a curl error, ``<returncode>N</returncode>`` with N other than 0,
    or a coding agent's editor error (``Ran into [Errno 2]``, ``Invalid `path` parameter``); or a non-zero exit code in
    the header lines before ``Output:`` or in the last lines (``[The command completed with exit code 2.]``); or a
    traceback that starts in the first lines and ends the output, after an exit code of 0 too (a pipeline's last
    command answers for the one that died); or an output that is only a command-line tool's complaints (``ls: cannot
    access 'x': No such file or directory``). HolmesGPT's header line above an output is read past. A JSON object: it
    is an error envelope (only keys such as ``error``, ``message``, ``code``, ``status``, with a non-empty
    ``error``)."""
    if isinstance(result, dict):
        error = result.get("error")
        if error and set(result) <= _ERROR_KEYS:
            return _clip(f"error: {error}" if isinstance(error, str) else f"error: {error!r}")
        return None
    if not isinstance(result, str):
        return None
    # Only the first and the last lines are read: a long output is never split whole.
    lines = _stripped_lines(result[:_HEAD_CHARS])
    tail = _stripped_lines(result[-_TAIL_CHARS:]) if len(result) > _HEAD_CHARS else lines
    first = lines[0] if lines else ""
    if _HOLMES_HEADER.match(first):
        return failure_in_output(result.lstrip().partition("\n")[2])
    if _MCP_RESULT_ERROR.match(result[:_HEAD_CHARS] if len(result) <= _HEAD_CHARS else result[:80] + result[-80:]):
        return _clip(f"{first} (an MCP result with isError=True)")
    if first.startswith(_TRACEBACK):
        return _clip(f"{tail[-1]} (a Python traceback)" if len(tail) > 1 else first)
    for pattern in _FIRST_LINE_PATTERNS:
        match = pattern.match(first)
        if match is None:
            continue
        code = match.groupdict().get("code")
        if code is not None and int(code) == 0:
            # The exit code of a pipeline's last command hides the one that died (``python setup.py build | tail``):
            # a traceback that opens the output and ends it is still the call's failure.
            return _traceback_ending(_body(lines[1:]), _body(tail), first_line=True)
        return _clip(first)
    if len(result) <= _HEAD_CHARS and lines and all(_UTILITY_ERROR.match(line) for line in lines):
        return _clip(first)
    return _exit_code_around(lines, tail) or _traceback_ending(lines, tail)


_OUTPUT_WRAPPERS = {"<output>", "</output>", "Output:"}


def _body(lines: list[str]) -> list[str]:
    """The output lines after an exit-code header: without the ``<output>`` wrapper and the lines a shell tool
    writes before ``Output:`` (wall time, token counts)."""
    head = lines[:_HEADER_LINES]
    if "Output:" in head:
        lines = lines[head.index("Output:") + 1 :]
    return [line for line in lines if line not in _OUTPUT_WRAPPERS]


def _stripped_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def _exit_code_around(lines: list[str], tail: list[str]) -> str | None:
    """A non-zero exit code in the header lines before ``Output:`` (or 0, and the output a dying traceback) or in
    the last lines (see the patterns)."""
    for index, line in enumerate(lines[:_HEADER_LINES]):
        if line.startswith("Output:"):
            break
        match = _HEADER_EXIT.match(line)
        if match is not None and int(match["code"]) == 0:
            return _traceback_ending(_body(lines[index + 1 :]), _body(tail), first_line=True)  # as after a first line
        if match is not None:
            return _clip(line)
    for line in tail[-_TRAILER_LINES:]:
        match = _TRAILER_EXIT.match(line)
        if match is not None:
            return None if int(match["code"]) == 0 else _clip(line)
    return None


def _traceback_ending(lines: list[str], tail: list[str], first_line: bool = False) -> str | None:
    """A Python traceback that starts in the first lines and ends the output with its exception: the command died
    (a traceback inside a log, followed by more log lines, is evidence). ``first_line``: the first of ``lines`` is
    read too (otherwise the caller has read it)."""
    starts = any(line.startswith(_TRACEBACK) for line in lines[0 if first_line else 1 : _TRACEBACK_START_LINES])
    if starts and len(tail) > 2 and _EXCEPTION_LINE.match(tail[-1]):
        return _clip(f"{tail[-1]} (a Python traceback)")
    return None


def _clip(line: str) -> str:
    return line if len(line) <= _EVIDENCE_CHARS else line[: _EVIDENCE_CHARS - 3] + "..."
