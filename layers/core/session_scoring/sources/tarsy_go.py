"""The documents of TARSy's Go rewrite: ``GET /api/v1/sessions/:id`` (stages and agent executions) plus
``GET /api/v1/sessions/:id/timeline`` (what each execution did, in sequence). No I/O here: the HTTP source is
:class:`sources.http.TarsyGoSessionSource`.

Each agent execution becomes a stage (executions of one stage share a ``parallel_group``) and its timeline events
its steps; chat stages are kept only with ``include_chat``. The Go API does not expose which tools each agent could
call, so these sessions have no available tools. The mapping is in ``docs/sessions.md``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import Field

from session_scoring.errors import SessionDataError
from session_scoring.models.session import Session, Stage, Step, ToolCall
from session_scoring.sources.boundary import BoundaryModel, TarsyListing, validate_document
from session_scoring.sources.formats.common import json_or_text

API_PREFIX = "/api/v1"


class GoExecution(BoundaryModel):
    execution_id: str
    agent_name: str
    agent_index: int = 0
    status: str = "completed"
    error_message: str | None = None
    model_name: str | None = None
    sub_agents: list[GoExecution] = Field(default_factory=list)


class GoStage(BoundaryModel):
    id: str
    stage_name: str
    stage_index: int = 0
    stage_type: str | None = None
    status: str = "completed"
    parallel_type: str | None = None
    executions: list[GoExecution] = Field(default_factory=list)


class GoTimelineEvent(BoundaryModel):
    event_type: str
    content: str = ""
    metadata: dict[str, Any] | None = None
    execution_id: str | None = None
    agent: str | None = None
    sequence_number: int | None = None
    sequence: int | None = None

    @property
    def order(self) -> int:
        return self.sequence_number if self.sequence_number is not None else (self.sequence or 0)


class GoSessionItem(BoundaryModel):
    id: str
    status: str
    alert_type: str | None = None
    chain_id: str | None = None
    author: str | None = None
    created_at: datetime | None = None
    started_at: datetime | None = None
    completed_at: datetime | None = None

    def summary_fields(self) -> dict[str, Any]:
        """The fields of a :class:`SessionSummary` (and of the session)."""
        fields = self.model_dump(include={"status", "alert_type", "author", "completed_at"})
        return fields | {
            "session_id": self.id,
            "agent_type": self.chain_id,
            "started_at": self.started_at or self.created_at,
        }


class GoSession(GoSessionItem):
    alert_data: str | dict[str, Any] | None = None
    error_message: str | None = None
    final_analysis: str | None = None
    stages: list[GoStage] = Field(default_factory=list)


class GoSessionList(TarsyListing):
    sessions: list[GoSessionItem]


def parse_go_session(session_document: Any, timeline_document: Any, origin: str, include_chat: bool = False) -> Session:
    """Normalise a Go session and its timeline; errors name the offending field."""
    session = validate_document(GoSession, session_document, f"{origin}: not a valid TARSy session")
    raw_events = timeline_document.get("events") if isinstance(timeline_document, dict) else timeline_document
    if not isinstance(raw_events, list):
        raise SessionDataError(f"{origin} timeline: expected a list of events, got {type(raw_events).__name__}")
    events = [
        validate_document(GoTimelineEvent, event, f"{origin} timeline: event {index} is not valid")
        for index, event in enumerate(raw_events)
    ]
    by_execution: dict[str, list[GoTimelineEvent]] = defaultdict(list)
    by_agent: dict[str, list[GoTimelineEvent]] = defaultdict(list)
    for event in events:
        if event.execution_id:
            by_execution[event.execution_id].append(event)
        elif event.agent:
            by_agent[event.agent].append(event)
    stages: list[Stage] = []
    models: dict[str, None] = {}
    for stage in sorted(session.stages, key=lambda s: s.stage_index):
        for execution in _flatten(stage.executions):
            if execution.model_name:
                models.setdefault(execution.model_name)
        is_chat = stage.stage_type == "chat"
        if is_chat and not include_chat:
            continue
        executions = _flatten(sorted(stage.executions, key=lambda e: e.agent_index))
        group = f"{stage.stage_name} ({stage.parallel_type})" if stage.parallel_type or len(executions) > 1 else None
        for execution in executions:
            own = by_execution.get(execution.execution_id)
            if own is None:
                # Timelines without execution ids (exports) are matched by agent name, consumed once per execution.
                own = by_agent.pop(execution.agent_name, [])
            stages.append(
                Stage(
                    name=stage.stage_name,
                    agent=execution.agent_name,
                    status=execution.status,
                    parallel_group=group,
                    steps=_steps(sorted(own, key=lambda e: e.order)),
                    error=execution.error_message,
                    is_chat=is_chat,
                )
            )
    return Session(
        **session.summary_fields(),
        alert=_alert(session.alert_data),
        stages=stages,
        final_analysis=session.final_analysis,
        error=session.error_message,
        agent_models=list(models),
    )


def _flatten(executions: Sequence[GoExecution]) -> list[GoExecution]:
    flat: list[GoExecution] = []
    for execution in executions:
        flat.append(execution)
        flat.extend(_flatten(execution.sub_agents))
    return flat


def _alert(alert_data: str | dict[str, Any] | None) -> dict[str, Any]:
    """TARSy Go stores the alert as a string; keep JSON objects as objects."""
    if isinstance(alert_data, dict):
        return alert_data
    if not alert_data:
        return {}
    parsed = json_or_text(alert_data)
    return parsed if isinstance(parsed, dict) else {"alert_data": alert_data}


def _steps(events: Sequence[GoTimelineEvent]) -> list[Step]:
    steps: list[Step] = []
    for event in events:
        metadata = event.metadata or {}
        kind = event.event_type
        if kind == "llm_thinking":
            steps.append(Step(kind="reasoning", text=event.content))
        elif kind == "llm_response":
            steps.append(Step(kind="message", text=event.content))
        elif kind == "llm_tool_call":
            steps.append(Step(kind="tool_call", tool_call=_tool_call(event.content, metadata)))
        elif kind == "mcp_tool_summary":
            _mark_summarised(steps, str(metadata.get("tool_name") or ""), event.content)
        elif kind == "final_analysis":
            if steps and steps[-1].kind == "message" and steps[-1].text == event.content:
                steps.pop()
            steps.append(Step(kind="answer", text=event.content))
        elif kind == "user_question":
            steps.append(Step(kind="message", text=f"User question: {event.content}"))
        elif event.content:
            steps.append(Step(kind="message", text=f"{kind}: {event.content}"))
    return [step for step in steps if step.tool_call is not None or (step.text or "").strip()]


def _tool_call(content: str, metadata: dict[str, Any]) -> ToolCall:
    arguments = metadata.get("arguments")
    if isinstance(arguments, str):
        parsed = json_or_text(arguments) if arguments.strip() else {}
        arguments = parsed if isinstance(parsed, dict) else {"input": arguments}
    failed = bool(metadata.get("is_error"))
    return ToolCall(
        name=str(metadata.get("tool_name") or "unknown_tool"),
        server=str(metadata["server_name"]) if metadata.get("server_name") else None,
        arguments=arguments if isinstance(arguments, dict) else {},
        result=None if failed else json_or_text(content),
        success=not failed,
        error=(content or "the call failed") if failed else None,
    ).with_failure_from_output()


def _mark_summarised(steps: list[Step], tool_name: str, summary: str) -> None:
    for index in range(len(steps) - 1, -1, -1):
        call = steps[index].tool_call
        if call is not None and call.name == tool_name:
            steps[index] = Step(kind="tool_call", tool_call=call.model_copy(update={"result_summarized": True}))
            text = f"Summary of {call.qualified_name} the agent saw: {summary}"
            steps.insert(index + 1, Step(kind="message", text=text))
            return
