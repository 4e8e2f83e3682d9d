"""Read one session for the dashboard's conversation view, mapped to the API's own model."""

from __future__ import annotations

from session_scoring.models.api import (
    AvailableToolInfo,
    ConversationStage,
    ConversationStep,
    ConversationToolCall,
    SessionDetail,
)
from session_scoring.models.session import Session, Stage, Step
from session_scoring.sources.base import SessionSource


class SessionViewService:
    def __init__(self, source: SessionSource) -> None:
        self._source = source

    def session_detail(self, session_id: str) -> SessionDetail:
        """The normalised session at its source (SessionNotFoundError when unknown)."""
        return to_session_detail(self._source.get_session(session_id))


def to_session_detail(session: Session) -> SessionDetail:
    """Explicit mapping from the domain session to the API model (the domain may grow fields the API does not show)."""
    return SessionDetail(
        session_id=session.session_id,
        status=session.status,
        alert_type=session.alert_type,
        agent_type=session.agent_type,
        author=session.author,
        started_at=session.started_at,
        completed_at=session.completed_at,
        source=session.source,
        title=session.title or session.alert_type,
        alert=session.alert,
        available_tools=[
            AvailableToolInfo(server=t.server, name=t.name, description=t.description)
            for t in session.all_available_tools
        ],
        stages=[_stage(stage) for stage in session.stages],
        final_analysis=session.final_analysis,
        error=session.error,
    )


def _stage(stage: Stage) -> ConversationStage:
    return ConversationStage(
        name=stage.name,
        agent=stage.agent,
        status=stage.status,
        parallel_group=stage.parallel_group,
        is_chat=stage.is_chat,
        steps=[_step(step) for step in stage.steps],
        output=stage.output,
        error=stage.error,
    )


def _step(step: Step) -> ConversationStep:
    call = step.tool_call
    return ConversationStep(
        kind=step.kind,
        text=step.text,
        tool_call=None
        if call is None
        else ConversationToolCall(
            server=call.server,
            name=call.name,
            arguments=call.arguments,
            result=call.result,
            success=call.success,
            error=call.error,
            duration_ms=call.duration_ms,
        ),
    )
