"""The documents of the tarsy-bot (Python) History API, normalised from its ``DetailedSession`` (no I/O here: the
HTTP source is :class:`sources.http.TarsySessionSource`; exported files are read by :mod:`sources.documents`).

The whole investigation is read from ``GET /api/v1/history/sessions/{id}`` (``/final-analysis`` holds only the last
stage's conversation): each stage's recorded MCP tool calls, placed in the order its conversation shows them, with
the reasoning around them (:mod:`sources.conversation`); parallel executions as stages of one ``parallel_group``;
chat follow-ups only with ``include_chat``. The mapping is in ``docs/sessions.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from pydantic import Field

from session_scoring.models.session import AvailableTool, Session, Stage, Step, ToolCall
from session_scoring.sources.boundary import BoundaryModel as _Boundary
from session_scoring.sources.boundary import TarsyListing, validate_document
from session_scoring.sources.conversation import (
    Message,
    ThinkingAnchor,
    merge_tool_calls,
    parse_conversation,
    split_tool_name,
    unwrap_result,
)

HISTORY_PREFIX = "/api/v1/history"
# LLM interactions that carry the stage's own conversation (not a tool-result summary or the executive summary).
_CONVERSATION_TYPES = {"investigation", "final_analysis", "forced_conclusion", None}


class TarsyMessage(_Boundary):
    role: str
    content: str | None = ""


class TarsyConversation(_Boundary):
    messages: list[TarsyMessage] = Field(default_factory=list)


class TarsyLLMDetails(_Boundary):
    model_name: str | None = None
    success: bool = True
    error_message: str | None = None
    conversation: TarsyConversation | None = None
    interaction_type: str | None = None
    thinking_content: str | None = None


class TarsyLLMEvent(_Boundary):
    timestamp_us: int = 0
    details: TarsyLLMDetails


class TarsyMCPDetails(_Boundary):
    tool_name: str | None = None
    server_name: str
    communication_type: str
    tool_arguments: dict[str, Any] | None = None
    tool_result: Any = None
    available_tools: Any = None
    success: bool = True
    error_message: str | None = None
    duration_ms: int | None = None


class TarsyMCPEvent(_Boundary):
    timestamp_us: int = 0
    details: TarsyMCPDetails


class TarsyChatMessage(_Boundary):
    content: str
    author: str | None = None


class TarsyStage(_Boundary):
    execution_id: str
    stage_index: int = 0
    stage_name: str
    agent: str | None = None
    status: str = "completed"
    stage_output: Any = None
    error_message: str | None = None
    parallel_type: str | None = "single"
    parallel_index: int = 0
    parallel_executions: list[TarsyStage] | None = None
    chat_id: str | None = None
    chat_user_message: TarsyChatMessage | None = None
    llm_interactions: list[TarsyLLMEvent] = Field(default_factory=list)
    mcp_communications: list[TarsyMCPEvent] = Field(default_factory=list)


class TarsySessionOverview(_Boundary):
    session_id: str
    alert_type: str | None = None
    agent_type: str | None = None
    status: str
    author: str | None = None
    started_at_us: int | None = None
    completed_at_us: int | None = None

    def summary_fields(self) -> dict[str, Any]:
        """The fields of a :class:`SessionSummary` (and of the session)."""
        times = {"started_at": self.started_at_us, "completed_at": self.completed_at_us}
        fields = self.model_dump(include={"session_id", "status", "alert_type", "agent_type", "author"})
        return fields | {name: from_microseconds(value) for name, value in times.items()}


class TarsyDetailedSession(TarsySessionOverview):
    error_message: str | None = None
    alert_data: dict[str, Any] = Field(default_factory=dict)
    final_analysis: str | None = None
    chain_id: str | None = None
    chain_definition: dict[str, Any] | None = None
    stages: list[TarsyStage] = Field(default_factory=list)


class TarsySessionList(TarsyListing):
    sessions: list[TarsySessionOverview]


def conversation_messages(conversation: TarsyConversation | None) -> list[Message]:
    return [Message(role=m.role, content=m.content or "") for m in (conversation.messages if conversation else [])]


def from_microseconds(value: int | None) -> datetime | None:
    return None if value is None else datetime.fromtimestamp(value / 1_000_000, tz=UTC)


def is_detailed_session(document: dict[str, Any]) -> bool:
    """tarsy-bot's ``DetailedSession``: a ``session_id`` and ``stages`` holding LLM interactions / MCP communications
    (recognised loosely, so that a broken one is reported field by field rather than as an unknown shape)."""
    stages = document.get("stages")
    if "session_id" not in document or not isinstance(stages, list):
        return False
    markers = ("execution_id", "llm_interactions", "mcp_communications", "stage_name")
    return "chain_id" in document or any(isinstance(s, dict) and any(m in s for m in markers) for s in stages)


def parse_detailed_session(document: Any, origin: str, include_chat: bool = False) -> Session:
    """Validate a ``DetailedSession`` document and normalise it; errors name the offending field."""
    detailed = validate_document(TarsyDetailedSession, document, f"{origin}: not a valid tarsy-bot DetailedSession")
    stages: list[Stage] = []
    for stage in sorted(detailed.stages, key=lambda s: s.stage_index):
        if stage.chat_id and not include_chat:
            continue
        children = stage.parallel_executions or []
        if children:
            group = f"{stage.stage_name} ({stage.parallel_type or 'parallel'})"
            stages.extend(_stage(child, group) for child in sorted(children, key=lambda c: c.parallel_index))
        else:
            stages.append(_stage(stage, None))
    return Session(
        **detailed.summary_fields(),
        alert=detailed.alert_data,
        available_tools=_chain_tools(detailed.chain_definition),
        stages=stages,
        final_analysis=detailed.final_analysis,
        error=detailed.error_message,
        agent_models=_models(detailed.stages),
    )


def _models(stages: list[TarsyStage]) -> list[str]:
    """The models of every LLM interaction, parallel executions' included, each once in the order first seen."""
    seen: dict[str, None] = {}
    for stage in stages:
        for event in stage.llm_interactions:
            if event.details.model_name:
                seen.setdefault(event.details.model_name)
        for model in _models(stage.parallel_executions or []):
            seen.setdefault(model)
    return list(seen)


def _stage(stage: TarsyStage, group: str | None) -> Stage:
    communications = sorted(stage.mcp_communications, key=lambda event: event.timestamp_us)
    calls = [
        _tool_call(e.details)
        for e in communications
        if e.details.communication_type == "tool_call" and e.details.tool_name
    ]
    interactions = sorted(stage.llm_interactions, key=lambda event: event.timestamp_us)
    conversation = [e for e in interactions if e.details.interaction_type in _CONVERSATION_TYPES]
    steps: list[Step] = []
    if stage.chat_user_message is not None:
        steps.append(Step(kind="message", text=f"User question: {stage.chat_user_message.content}"))
    steps.extend(merge_tool_calls(_conversation_steps(conversation), calls))
    failures = [e.details.error_message for e in conversation if not e.details.success and e.details.error_message]
    errors = list(dict.fromkeys(e for e in (stage.error_message, *failures) if e))
    error = "; ".join(errors) if errors else None
    return Stage(
        name=stage.stage_name,
        agent=stage.agent,
        status=stage.status,
        parallel_group=group,
        available_tools=_listed_tools(stage.mcp_communications),
        steps=steps,
        output=_stage_output(stage.stage_output),
        error=error,
        is_chat=stage.chat_id is not None,
    )


def _conversation_steps(interactions: list[TarsyLLMEvent]) -> list[Step]:
    """Steps from the longest (cumulative) conversation, with each interaction's thinking at its position."""
    if not interactions:
        return []
    longest = max(
        interactions,
        key=lambda e: len(e.details.conversation.messages) if e.details.conversation else 0,
    )
    messages = conversation_messages(longest.details.conversation)
    anchors = [
        ThinkingAnchor(position=_thinking_position(e, len(messages)), text=e.details.thinking_content)
        for e in interactions
        if e.details.thinking_content
    ]
    return parse_conversation(messages, anchors)


def _thinking_position(event: TarsyLLMEvent, default: int) -> int:
    """Thinking comes before the interaction's own answer (its last message when that is the assistant's)."""
    own = event.details.conversation.messages if event.details.conversation else []
    if not own:
        return default
    return len(own) - 1 if own[-1].role == "assistant" else len(own)


def _tool_call(details: TarsyMCPDetails) -> ToolCall:
    error = details.error_message if not details.success else None
    # TARSy records a call as successful when the MCP server answered, even when the answer is kubectl's
    # "Error from server" or an exit code: such a call brought no evidence, and the judge is told it failed, inferred
    return ToolCall(
        name=details.tool_name or "unknown_tool",
        server=details.server_name,
        arguments=details.tool_arguments or {},
        result=unwrap_result(details.tool_result) or None,
        success=details.success,
        error=error or (None if details.success else "the call failed"),
        duration_ms=details.duration_ms,
    ).with_failure_from_output()


def _unique(tools: Iterable[AvailableTool]) -> list[AvailableTool]:
    """The first tool of each qualified name."""
    found: dict[str, AvailableTool] = {}
    for tool in tools:
        found.setdefault(tool.qualified_name, tool)
    return list(found.values())


def _listed_tools(communications: Iterable[TarsyMCPEvent]) -> list[AvailableTool]:
    listings = [e.details for e in communications if e.details.communication_type == "tool_list"]
    return _unique(tool for d in listings for tool in tools_from_listing(d.available_tools, d.server_name))


def tools_from_listing(listing: Any, server: str | None) -> list[AvailableTool]:
    """Tools from a ``tool_list`` payload: ``{"tools": [...]}``, ``{server: [...]}`` or a list of tools/names."""
    if isinstance(listing, dict):
        if "tools" in listing:
            return tools_from_listing(listing["tools"], server)
        found: list[AvailableTool] = []
        for key, value in listing.items():
            found.extend(tools_from_listing(value, str(key)))
        return found
    if not isinstance(listing, list):
        return []
    found = []
    for item in listing:
        if isinstance(item, str):
            item_server, name = split_tool_name(item) if "." in item else (server, item)
            found.append(AvailableTool(name=name, server=item_server or server))
        elif isinstance(item, dict) and item.get("name"):
            description = item.get("description")
            found.append(
                AvailableTool(
                    name=str(item["name"]),
                    server=str(item.get("server") or server) if (item.get("server") or server) else None,
                    description=str(description).strip()[:500] if description else None,
                )
            )
    server_scoped = server not in (None, "all_servers")
    return [t if server_scoped or t.server != "all_servers" else t.model_copy(update={"server": None}) for t in found]


def _chain_tools(chain: dict[str, Any] | None) -> list[AvailableTool]:
    """Tools the chain definition names (``tools``/``available_tools`` on the chain or its stages)."""
    if not chain:
        return []
    holders = [chain, *(s for s in chain.get("stages") or [] if isinstance(s, dict))]
    keys = ("available_tools", "tools")
    return _unique(tool for holder in holders for key in keys for tool in tools_from_listing(holder.get(key), None))


def _stage_output(output: Any) -> str | None:
    if isinstance(output, str):
        return output or None
    if isinstance(output, dict):
        for key in ("final_analysis", "result_summary", "summary"):
            value = output.get(key)
            if isinstance(value, str) and value.strip():
                return value
    return None
