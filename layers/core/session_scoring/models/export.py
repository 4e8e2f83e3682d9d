"""The training export's line shapes: one session per line, as an OpenAI chat fine-tuning conversation or as the
service's normalised session, with the score it earned.

The chat shape follows OpenAI's chat fine-tuning format: ``messages`` (system, user, assistant with ``tool_calls``,
``tool`` results, the final assistant analysis) and ``tools`` (the functions the agent could call).
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from session_scoring.models.session import Session


class _Line(BaseModel):
    model_config = ConfigDict(frozen=True)


class ChatFunctionCall(_Line):
    name: str
    arguments: str = Field(description="The call's arguments as a JSON string")


class ChatToolCall(_Line):
    id: str
    type: Literal["function"] = "function"
    function: ChatFunctionCall


class ChatMessage(_Line):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[ChatToolCall] | None = None
    tool_call_id: str | None = None


class ChatFunction(_Line):
    name: str
    description: str | None = None
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ChatTool(_Line):
    type: Literal["function"] = "function"
    function: ChatFunction


class TrainingExample(_Line):
    """One line of the export: the session id, its score, and the conversation or the normalised session."""

    session_id: str
    score_id: uuid.UUID
    criteria_hash: str
    total_score: int
    score_breakdown: dict[str, int]
    messages: list[ChatMessage] | None = None
    tools: list[ChatTool] | None = None
    session: Session | None = None
