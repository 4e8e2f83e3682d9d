"""Training export: the sessions that scored well, one JSON line each, for fine-tuning an agent.

Each line is the session's latest completed score under the chosen criteria (``min_score`` and above) with the
whole investigation: as an OpenAI chat fine-tuning conversation (``openai-chat``: system, the alert as the user
message, each assistant turn with its ``tool_calls``, a ``tool`` message per result, the final analysis) or as the
service's normalised session (``normalized``). Sessions are read from the source a page of scores at a time: no
database transaction is held while the source answers. A session the source no longer has is skipped and logged.

In AWS a Lambda response is capped at 6 MB, so a large export should be written to S3 by a job and fetched with a
presigned URL. That job is **not built**: the export streams from a local API (``make run``) or the CLI
(``session-scoring export training``), which hold no such limit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from session_scoring.errors import InvalidRequestError, SessionNotFoundError
from session_scoring.log import logger
from session_scoring.models.export import (
    ChatFunction,
    ChatFunctionCall,
    ChatMessage,
    ChatTool,
    ChatToolCall,
    TrainingExample,
)
from session_scoring.models.insights import FleetFilter, FleetOrder, FleetScoreRecord, KeysetPosition, SortField
from session_scoring.models.scores import MAX_SCORE, MIN_SCORE
from session_scoring.models.session import Session, ToolCall
from session_scoring.repositories.insights import InsightsRepository
from session_scoring.services.insights import InsightsService, StreamedRows
from session_scoring.sources.base import SessionSource

#: Scores read per database round trip; their sessions are then read from the source one by one.
EXPORT_PAGE = 100

_FUNCTION_NAME = re.compile(r"[^A-Za-z0-9_-]")
_USER_PREFIXES = ("User question:", "User:")


class TrainingFormat(StrEnum):
    OPENAI_CHAT = "openai-chat"
    NORMALIZED = "normalized"


@dataclass(frozen=True)
class TrainingQuery:
    where: FleetFilter
    format: TrainingFormat


def function_name(call: ToolCall) -> str:
    """The OpenAI function name of a tool (``server__name``: OpenAI allows only letters, digits, ``_`` and ``-``)."""
    return _FUNCTION_NAME.sub("_", f"{call.server}__{call.name}" if call.server else call.name)[:64]


def _result_text(call: ToolCall) -> str:
    if not call.success:
        return f"error: {call.error or 'the tool call failed'}"
    if isinstance(call.result, str):
        return call.result
    return json.dumps(call.result, default=str)


def _system_prompt(session: Session) -> str:
    agent = session.agent_type or "an SRE"
    alert = f" a {session.alert_type} alert" if session.alert_type else " an alert"
    return (
        f"You are {agent} agent investigating{alert}. Use the available tools to gather evidence, then give a final "
        "analysis: what happened, the root cause, and what to do."
    )


def to_openai_chat(session: Session) -> tuple[list[ChatMessage], list[ChatTool]]:
    """The session as an OpenAI chat fine-tuning conversation and the functions it could call.

    Reasoning and answers become assistant text; text right before a tool call goes into the same assistant message
    as the call. Every tool call gets an id, a ``tool`` message with its result (or error), and a function entry.
    A chat stage's user turns (``User: ...``) become user messages.
    """
    messages = [
        ChatMessage(role="system", content=_system_prompt(session)),
        ChatMessage(role="user", content=json.dumps(session.alert, default=str) if session.alert else "(no alert)"),
    ]
    tools: dict[str, ChatTool] = {}
    for tool in session.all_available_tools:
        name = function_name(ToolCall(name=tool.name, server=tool.server))
        tools[name] = ChatTool(function=ChatFunction(name=name, description=tool.description))
    pending: list[str] = []
    counter = 0

    def flush() -> None:
        if pending:
            messages.append(ChatMessage(role="assistant", content="\n\n".join(pending)))
            pending.clear()

    for stage in session.stages:
        answered = False
        for step in stage.steps:
            if step.tool_call is not None:
                counter += 1
                call, call_id = step.tool_call, f"call_{counter}"
                name = function_name(call)
                tools.setdefault(name, ChatTool(function=ChatFunction(name=name)))
                messages.append(
                    ChatMessage(
                        role="assistant",
                        content="\n\n".join(pending) or None,
                        tool_calls=[
                            ChatToolCall(
                                id=call_id,
                                function=ChatFunctionCall(name=name, arguments=json.dumps(call.arguments, default=str)),
                            )
                        ],
                    )
                )
                pending.clear()
                messages.append(ChatMessage(role="tool", tool_call_id=call_id, content=_result_text(call)))
            elif step.text and step.kind == "message" and step.text.startswith(_USER_PREFIXES):
                flush()
                prefix = next(p for p in _USER_PREFIXES if step.text.startswith(p))
                messages.append(ChatMessage(role="user", content=step.text.removeprefix(prefix).strip()))
            elif step.text:
                pending.append(step.text)
                answered = answered or step.kind == "answer"
        if stage.output and not answered:
            pending.append(stage.output)
        flush()
    if session.final_analysis:
        messages.append(ChatMessage(role="assistant", content=session.final_analysis))
    return messages, list(tools.values())


class TrainingExportService:
    def __init__(self, insights: InsightsService, repository: InsightsRepository, source: SessionSource) -> None:
        self._insights = insights
        self._repository = repository
        self._source = source

    def check(self, min_score: int, criteria_hash: str, output: str) -> TrainingQuery:
        """The export's parameters, or a 400 saying what is wrong."""
        if not MIN_SCORE <= min_score <= MAX_SCORE:
            raise InvalidRequestError(f"min_score {min_score} is outside {MIN_SCORE}-{MAX_SCORE}")
        formats = tuple(TrainingFormat)
        if output not in formats:
            raise InvalidRequestError(f"format '{output}' is not one of: {', '.join(formats)}")
        where = FleetFilter(criteria_hash=self._insights.criteria_filter(criteria_hash), min_score=min_score)
        return TrainingQuery(where, TrainingFormat(output))

    def stream(self, min_score: int, criteria_hash: str, output: str) -> StreamedRows:
        """``GET /exports/training``: the parameters checked first (a 400 before anything is sent), then the lines."""
        query = self.check(min_score, criteria_hash, output)
        return StreamedRows("application/x-ndjson", f"training-{query.format.value}.jsonl", self.lines(query))

    def count(self, query: TrainingQuery) -> int:
        """How many sessions the export will read (the progress bar's total)."""
        return self._repository.fleet_count(query.where)

    def records(self, query: TrainingQuery) -> Iterator[FleetScoreRecord]:
        """The selected scores, best first, a keyset page at a time (each page read whole, then released)."""
        return self._pages(query, self._first_page(query))

    def _first_page(self, query: TrainingQuery) -> list[FleetScoreRecord]:
        return self._repository.fleet_page(query.where, FleetOrder(SortField.TOTAL_SCORE, True), EXPORT_PAGE)

    def _pages(self, query: TrainingQuery, page: list[FleetScoreRecord]) -> Iterator[FleetScoreRecord]:
        while True:
            yield from page
            if len(page) < EXPORT_PAGE:
                return
            last = page[-1]
            after = KeysetPosition(last.total_score, last.score_id)
            page = self._repository.fleet_page(query.where, FleetOrder(SortField.TOTAL_SCORE, True, after), EXPORT_PAGE)

    def example(self, record: FleetScoreRecord, session: Session, output: TrainingFormat) -> TrainingExample:
        base: dict[str, Any] = {
            "session_id": record.session_id,
            "score_id": record.score_id,
            "criteria_hash": record.criteria_hash,
            "total_score": record.total_score,
            "score_breakdown": record.score_breakdown or {},
        }
        if output == TrainingFormat.NORMALIZED:
            return TrainingExample(**base, session=session)
        messages, tools = to_openai_chat(session)
        return TrainingExample(**base, messages=messages, tools=tools)

    def lines(
        self, query: TrainingQuery, on_session: Callable[[str | None], None] = lambda _note: None
    ) -> Iterator[str]:
        """One JSON line per exported session. ``on_session`` is told of each session read (with a note when it
        was skipped). The first page of scores is read here, before any line is sent (a database that is down is a
        503, not a broken stream)."""
        return self._lines(query, self.records(query), on_session)

    def _lines(
        self, query: TrainingQuery, records: Iterator[FleetScoreRecord], on_session: Callable[[str | None], None]
    ) -> Iterator[str]:
        for record in records:
            try:
                session = self._source.get_session(record.session_id)
            except SessionNotFoundError:
                note = f"session {record.session_id}: the source no longer has it; not exported"
                logger.warning("training export skipped a session", extra={"session_id": record.session_id})
                on_session(note)
                continue
            on_session(None)
            yield self.example(record, session, query.format).model_dump_json(exclude_none=True) + "\n"
