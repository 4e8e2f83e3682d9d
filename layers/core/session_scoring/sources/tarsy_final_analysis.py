"""tarsy-bot's final-analysis response (``GET /api/v1/history/sessions/{id}/final-analysis?include_conversation=true``).

Read by the file source, for exported responses. It holds only the LAST stage's conversation: earlier stages of a
multi-stage chain appear in its prompt as their ``Final Answer`` text, so they become stages with that output and no
tool calls, and the transcript says so. Prefer the ``tarsy`` source (the whole ``DetailedSession``) when TARSy is
reachable.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field

from session_scoring.models.session import Session, Stage, Step
from session_scoring.sources.boundary import BoundaryModel, validate_document
from session_scoring.sources.conversation import parse_conversation
from session_scoring.sources.tarsy import TarsyConversation, conversation_messages

_PREVIOUS_STAGE = re.compile(
    r"### Results from '(?P<name>[^']+)' stage:.*?<!-- Analysis Result START -->\s*(?P<result>.*?)\s*"
    r"<!-- Analysis Result END -->",
    re.DOTALL,
)
_STAGE_NAME = re.compile(r"\*\*Stage:\*\*\s*(?P<name>[^\n(]+)")
_ONLY_RESULT = "(this export holds only the stage's result; its tool calls and reasoning were not included)"


class TarsyFinalAnalysisResponse(BoundaryModel):
    session_id: str
    status: str
    final_analysis: str | None = None
    llm_conversation: TarsyConversation | None = None
    chat_conversation: TarsyConversation | None = None
    alert_data: dict[str, Any] = Field(default_factory=dict)


def is_final_analysis_response(document: dict[str, Any]) -> bool:
    return (
        "session_id" in document
        and "stages" not in document
        and ("llm_conversation" in document or ("final_analysis" in document and "alert_data" in document))
    )


def parse_final_analysis_response(document: Any, origin: str, include_chat: bool = False) -> Session:
    response = validate_document(
        TarsyFinalAnalysisResponse, document, f"{origin}: not a valid TARSy final-analysis response"
    )
    messages = conversation_messages(response.llm_conversation)
    prompt = next((m.content for m in messages if m.role == "user"), "")
    stages = [
        Stage(name=match["name"], output=match["result"].strip(), steps=[Step(kind="message", text=_ONLY_RESULT)])
        for match in _PREVIOUS_STAGE.finditer(prompt)
    ]
    if messages:
        name = _STAGE_NAME.search(prompt)
        stages.append(
            Stage(name=name["name"].strip() if name else "final-analysis", steps=parse_conversation(messages))
        )
    if include_chat and response.chat_conversation is not None:
        chat = parse_conversation(conversation_messages(response.chat_conversation), chat=True)
        stages.append(Stage(name="chat", is_chat=True, steps=chat))
    return Session(
        session_id=response.session_id,
        status=response.status,
        alert=response.alert_data,
        stages=stages,
        final_analysis=response.final_analysis,
    )
