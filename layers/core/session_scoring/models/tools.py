"""The canonical name of a tool the judge names missing: what the missing-tools analytics count.

A judge writes the same tool many ways (``mcp__k8s__get_pod``, ``k8s.get_pod``, ``k8s: get_pod``, ``Get_Pod``).
Counting names as written splits one tool over several bars, so each name is counted by its **canonical name**:

1. the base form, :func:`canonical_tool_name`: whitespace collapsed, the MCP server prefix dropped (everything up
   to the last ``.``, ``__``, ``/`` or ``:``), lower case (a name that is all prefix keeps its whole form);
2. matched against the session's available tools (:class:`ToolNamer`): when an available tool has the same
   :func:`loose_tool_key` (separators ``-``, ``_`` and spaces ignored), the counted name is that tool's canonical
   name, and the tool counts as *available* in the session (the agent had it and did not use it, rather than a tool
   nobody built).

The base form is also written in SQL, once, where SQL must compute it without a session: the backfill of migration
``0011_canonical_tools`` (``CANONICAL_SQL`` there). The two agree (``tests/integration/test_canonical_tools.py``
checks them on a list of spellings); change both together.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_WHITESPACE = re.compile(r"\s+")
_SERVER_PREFIX = re.compile(r"^.*(\.|__|/|:)")
_SEPARATORS = re.compile(r"[\s_-]+")


def canonical_tool_name(name: str) -> str:
    """The base canonical form of a tool name, without a session to match it against."""
    collapsed = _WHITESPACE.sub(" ", name.strip(" "))
    bare = _SERVER_PREFIX.sub("", collapsed).strip(" ").lower()
    return bare or collapsed.strip(" ").lower()


def loose_tool_key(name: str) -> str:
    """The key two spellings of one tool share: the canonical form with ``-``, ``_`` and spaces removed."""
    return _SEPARATORS.sub("", canonical_tool_name(name))


@dataclass(frozen=True)
class CanonicalTool:
    """How a name the judge wrote is counted: its canonical ``name`` and whether the session had the tool."""

    name: str
    available: bool


class ToolNamer:
    """Canonical names matched against one session's available tools (``Session.all_available_tools``'
    qualified names, ``server.tool``). Two available tools with the same loose key: the first one listed wins."""

    def __init__(self, available_tools: Iterable[str] = ()) -> None:
        self._available: dict[str, str] = {}
        for tool in available_tools:
            self._available.setdefault(loose_tool_key(tool), canonical_tool_name(tool))

    def canonical(self, name: str) -> CanonicalTool:
        matched = self._available.get(loose_tool_key(name))
        if matched is not None:
            return CanonicalTool(matched, available=True)
        return CanonicalTool(canonical_tool_name(name), available=False)
