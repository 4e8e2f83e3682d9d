"""``${VAR}`` substitution in the scoring configuration's values, with the file and line of every mistake.

The syntax is the shell's subset that configuration files use: ``${VAR}`` (an error when VAR is unset),
``${VAR:-default}`` (the default when VAR is unset or empty; defaults may nest ``${...}``), and ``$${`` for a
literal ``${``. A ``$`` not followed by ``{`` is kept as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from session_scoring.errors import ConfigurationError

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def substitute(text: str, variables: Mapping[str, str], path: Path, first_line: int = 1) -> str:
    """``text`` with every ``${...}`` expression resolved from ``variables``.

    ``path`` and ``first_line`` (the 1-based line of ``text`` in that file) place the errors, which say what is
    malformed or unset and how to fix it.
    """

    def error(position: int, problem: str) -> ConfigurationError:
        line = first_line + text.count("\n", 0, position)
        return ConfigurationError(f"{path}:{line}: {problem}")

    def expression(start: int, resolve: bool) -> tuple[str, int]:
        """The value of the ``${...}`` at ``start`` (resolved only when ``resolve``) and the index after it."""
        match = _NAME_RE.match(text, start + 2)
        if match is None:
            raise error(
                start, f"malformed '${{...}}' near {text[start : start + 20]!r}: expected a variable name after '${{'"
            )
        name, i = match.group(), match.end()
        if text.startswith("}", i):
            value = variables.get(name)
            if resolve and value is None:
                raise error(
                    start,
                    f"environment variable {name} is not set and '${{{name}}}' has no default; "
                    f"set {name} or write '${{{name}:-default}}'",
                )
            return (value or ""), i + 1
        if not text.startswith(":-", i):
            raise error(start, f"malformed '${{{name}...': expected '}}' or ':-default}}' after the name")
        current = variables.get(name)
        use_default = resolve and not current
        parts: list[str] = []
        i += 2
        while True:
            if i >= len(text):
                raise error(start, f"unterminated '${{{name}:-...': missing the closing '}}'")
            if text.startswith("${", i):
                value, i = expression(i, resolve=use_default)
                parts.append(value)
            elif text[i] == "}":
                i += 1
                break
            else:
                parts.append(text[i])
                i += 1
        return ("".join(parts) if use_default else (current or "")), i

    out, i = [], 0
    while i < len(text):
        if text.startswith("$${", i):
            out.append("${")
            i += 3
        elif text.startswith("${", i):
            value, i = expression(i, resolve=True)
            out.append(value)
        else:
            out.append(text[i])
            i += 1
    return "".join(out)
