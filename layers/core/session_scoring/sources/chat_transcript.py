"""A generic chat transcript (OpenAI-style ``messages`` with ``tool_calls`` and ``tool`` results), so sessions of
agents other than TARSy can be scored from files.

Shape::

    {"session_id": "...", "status": "completed", "alert": {...}, "final_analysis": "...",
     "tools": [{"type": "function", "function": {"name": "server.tool", "description": "..."}}],
     "messages": [{"role": "assistant", "content": "...", "tool_calls": [{"id": "c1", "type": "function",
                   "function": {"name": "server.tool", "arguments": "{...}"}}]},
                  {"role": "tool", "tool_call_id": "c1", "content": "..."}]}

Only ``messages`` is required. A missing ``session_id`` is the file's name; a missing ``status`` is ``completed``
(an exported transcript is a finished conversation); a missing ``final_analysis`` is the last assistant answer.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from session_scoring.models.session import AvailableTool, Session, Stage
from session_scoring.sources.boundary import BoundaryModel, validate_document
from session_scoring.sources.conversation import Message, parse_conversation, split_tool_name


class ChatFunction(BoundaryModel):
    name: str
    description: str | None = None


class ChatTool(BoundaryModel):
    function: ChatFunction


class ChatMessage(BoundaryModel):
    role: str
    content: str | list[dict[str, Any]] | None = None
    tool_calls: list[dict[str, Any]] = Field(default_factory=list)
    tool_call_id: str | None = None


class ChatTranscript(BoundaryModel):
    session_id: str | None = None
    id: str | None = None
    status: str = "completed"
    alert_type: str | None = None
    agent_type: str | None = None
    alert: dict[str, Any] = Field(default_factory=dict)
    final_analysis: str | None = None
    tools: list[ChatTool] = Field(default_factory=list)
    messages: list[ChatMessage] = Field(min_length=1)


def is_chat_transcript(document: dict[str, Any]) -> bool:
    messages = document.get("messages")
    return isinstance(messages, list) and "stages" not in document and "format" not in document


def _text(content: str | list[dict[str, Any]] | None) -> str:
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content or ""


def parse_chat_transcript(document: Any, origin: str, default_id: str) -> Session:
    transcript = validate_document(ChatTranscript, document, f"{origin}: not a valid chat transcript")
    messages = [
        Message(role=m.role, content=_text(m.content), tool_calls=tuple(m.tool_calls), tool_call_id=m.tool_call_id)
        for m in transcript.messages
    ]
    steps = parse_conversation(messages, keep_task=True)
    answers = [step.text for step in steps if step.kind == "answer" and step.text]
    tools = []
    for tool in transcript.tools:
        server, name = split_tool_name(tool.function.name)
        tools.append(AvailableTool(name=name, server=server, description=tool.function.description))
    return Session(
        session_id=transcript.session_id or transcript.id or default_id,
        status=transcript.status,
        alert_type=transcript.alert_type,
        agent_type=transcript.agent_type,
        alert=transcript.alert,
        available_tools=tools,
        stages=[Stage(name="conversation", agent=transcript.agent_type, steps=steps)],
        final_analysis=transcript.final_analysis or (answers[-1] if answers else None),
    )
