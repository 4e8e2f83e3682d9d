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
    re.compile(r"^Error (?:from server|executing tool|calling tool|running tool|invoking tool)\b", re.IGNORECASE),
    re.compile(r"^.{0,120}\bcommand not found\b"),
    re.compile(r"^HTTP/\d(?:\.\d)?\s+[45]\d\d\b"),
    re.compile(r"^(?:request |operation |the )?(?:timed out|timeout)\b", re.IGNORECASE),
    re.compile(r"^(?:context )?deadline exceeded\b", re.IGNORECASE),
    re.compile(r"^curl: \(\d+\)"),
)
_TRACEBACK = "Traceback (most recent call last):"
_ERROR_KEYS = {"error", "message", "code", "status", "status_code", "details", "type"}
_EVIDENCE_CHARS = 200


def failure_in_output(result: Any) -> str | None:
    """The line of ``result`` that reports a failure (for the call's ``error``), or None when it reports none.

    Text: its first non-empty line is an exit code other than 0 (``Process exited with code 1``, ``Exit code: 2``), an
    error line (``error:``, ``Error:``, ``Error from server``, ``Error executing tool``), a traceback, ``command not
    found``, an HTTP 4xx/5xx status line, a timeout, or a curl error. A JSON object: it is an error envelope (only
    keys such as ``error``, ``message``, ``code``, ``status``, with a non-empty ``error``)."""
    if isinstance(result, dict):
        error = result.get("error")
        if error and set(result) <= _ERROR_KEYS:
            return _clip(f"error: {error}" if isinstance(error, str) else f"error: {error!r}")
        return None
    if not isinstance(result, str):
        return None
    lines = [line.strip() for line in result.splitlines() if line.strip()]
    first = lines[0] if lines else ""
    if first.startswith(_TRACEBACK):
        return _clip(f"{lines[-1]} (a Python traceback)" if len(lines) > 1 else first)
    for pattern in _FIRST_LINE_PATTERNS:
        match = pattern.match(first)
        if match is None:
            continue
        code = match.groupdict().get("code")
        if code is not None and int(code) == 0:
            return None
        return _clip(first)
    return None


def _clip(line: str) -> str:
    return line if len(line) <= _EVIDENCE_CHARS else line[: _EVIDENCE_CHARS - 3] + "..."
