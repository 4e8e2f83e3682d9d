"""The service's normalised session: one investigation, whatever agent or API produced it.

Every source (files, the tarsy-bot History API, TARSy Go) maps its own shape onto these models, and the judge
prompt and the heuristic judge read only these. The JSON form of :class:`Session` is also the ``session-scoring/v1``
file format read by the file source (documented in ``README.md``).
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from session_scoring.models.reference import MAX_REFERENCE_CHARS
from session_scoring.models.tool_failures import failure_in_output

SESSION_FORMAT: Literal["session-scoring/v1"] = "session-scoring/v1"


class SessionStatus(StrEnum):
    """Lifecycle states of a session at its source (TARSy's statuses, both spellings of cancelling)."""

    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    PAUSED = "paused"
    CANCELING = "canceling"
    CANCELLING = "cancelling"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    TIMED_OUT = "timed_out"


TERMINAL_STATUSES = frozenset(
    {SessionStatus.COMPLETED, SessionStatus.FAILED, SessionStatus.CANCELLED, SessionStatus.TIMED_OUT}
)


def is_terminal_status(status: str) -> bool:
    """Whether a source's status (any text, a status we do not know included) is one a session ends in."""
    return status in TERMINAL_STATUSES


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AvailableTool(_Model):
    """A tool the agent could have called (the judge may only name missing tools it was shown)."""

    name: str
    server: str | None = None
    description: str | None = None

    @property
    def qualified_name(self) -> str:
        return f"{self.server}.{self.name}" if self.server else self.name


class ToolCall(_Model):
    """One MCP tool call with its arguments and its result or error."""

    name: str
    server: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    success: bool = True
    error: str | None = None
    duration_ms: int | None = None
    result_summarized: bool = Field(
        default=False, description="The agent saw a summary of the result instead of the whole output."
    )
    failure_inferred: bool = Field(
        default=False,
        description="The call's framework recorded success, but its output reports a failure (an exit code, an "
        "error line, a traceback...): ``error`` quotes that line and ``result`` keeps the whole output.",
    )

    @property
    def qualified_name(self) -> str:
        return f"{self.server}.{self.name}" if self.server else self.name

    def with_failure_from_output(self) -> ToolCall:
        """This call; or, when it was recorded as successful but its output reports a failure
        (``models.tool_failures``), the call failed with that line as its error and marked ``failure_inferred``: it
        brought no evidence. Every source applies it to the calls it reads, so the rule is one."""
        reported = failure_in_output(self.result) if self.success else None
        if reported is None:
            return self
        return self.model_copy(update={"success": False, "error": reported, "failure_inferred": True})


class Step(_Model):
    """One step of a stage, in order: the agent's reasoning, a tool call, or its answer."""

    kind: Literal["reasoning", "tool_call", "answer", "message"]
    text: str | None = None
    tool_call: ToolCall | None = None


class Stage(_Model):
    """One stage (or one parallel agent of a stage) of the investigation chain."""

    name: str
    agent: str | None = None
    status: str = "completed"
    parallel_group: str | None = Field(default=None, description="Stages sharing a group ran in parallel.")
    available_tools: list[AvailableTool] = Field(default_factory=list)
    steps: list[Step] = Field(default_factory=list)
    output: str | None = None
    error: str | None = None
    is_chat: bool = Field(default=False, description="A follow-up chat turn after the investigation.")

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [step.tool_call for step in self.steps if step.tool_call is not None]


class SessionSummary(_Model):
    """What a session list shows about one session."""

    session_id: str
    status: str
    alert_type: str | None = None
    agent_type: str | None = None
    author: str | None = None
    started_at: datetime | None = None
    completed_at: datetime | None = None
    source: str | None = Field(
        default=None, description="Where the session comes from (e.g. 'file', 'tarsy', 'upload'); set by the source."
    )
    title: str | None = Field(
        default=None,
        description="An upload's task (its first user message) on one line, set by the uploads when they read it; "
        "None elsewhere (the alert type names those sessions)",
    )


class SkippedContent(_Model):
    """Content of an imported document the transcript does not show: what, how many, and why."""

    what: str
    count: int
    reason: str


class Session(SessionSummary):
    """A whole investigation: the summary fields, the alert, every stage with its steps, and the final analysis."""

    format: Literal["session-scoring/v1"] = SESSION_FORMAT
    alert: dict[str, Any] = Field(default_factory=dict)
    available_tools: list[AvailableTool] = Field(
        default_factory=list, description="Tools available to the whole session, beside each stage's own."
    )
    stages: list[Stage] = Field(default_factory=list)
    final_analysis: str | None = None
    final_answer_source: str | None = Field(
        default=None,
        description="Where an imported trace's final analysis was taken from: 'document' (the document's own field), "
        "'last_assistant_text' (the agent's last text after its last tool call, trailing user turns aside), "
        "'submit_tool:<name>' (the arguments of a configured submit tool), 'agent_output' (an agent span's output). "
        "None for sources that give the final analysis as such (TARSy, session-scoring/v1).",
    )
    error: str | None = None
    recording_author: str | None = Field(
        default=None,
        description="An upload's author as its document names it (the document's own claim, never checked); the "
        "upload's ``author`` is who uploaded it. None for other sources.",
    )
    skipped_content: list[SkippedContent] = Field(
        default_factory=list, description="What an imported document held that the transcript does not show, and why."
    )
    reference_root_cause: str | None = Field(
        default=None,
        max_length=MAX_REFERENCE_CHARS,
        description="The incident's true root cause when the document carries it (a benchmark's ground truth, a "
        "postmortem): the judge compares the conclusion with it. A reference set through the labels API wins.",
    )
    reference_remediation: str | None = Field(
        default=None, max_length=MAX_REFERENCE_CHARS, description="The known remediation, with the root cause."
    )
    masked_values: dict[str, int] = Field(
        default_factory=dict,
        description="How many secrets the masking step replaced in this session, by group (docs/masking.md); set by "
        "the service when it reads or imports a session, never taken from a document.",
    )
    agent_models: list[str] = Field(
        default_factory=list,
        description="The model(s) the agent ran on, where the recording says (TARSy's LLM interactions and "
        "executions); a judge of the same model family may favour the agent (self-preference, docs/judges.md).",
    )

    @property
    def tool_calls(self) -> list[ToolCall]:
        return [call for stage in self.stages for call in stage.tool_calls]

    @property
    def all_available_tools(self) -> list[AvailableTool]:
        """Session and stage tools, without duplicates, in the order first seen."""
        seen: dict[str, AvailableTool] = {}
        for tool in [*self.available_tools, *(t for stage in self.stages for t in stage.available_tools)]:
            seen.setdefault(tool.qualified_name, tool)
        return list(seen.values())

    def summary(self) -> SessionSummary:
        return SessionSummary.model_validate(self.model_dump(include=set(SessionSummary.model_fields)))


class SkippedSession(_Model):
    """A document the source could not read as a session, and why (so a listing can say so)."""

    origin: str
    error: str


class SessionPage(_Model):
    """One page of a session listing."""

    items: list[SessionSummary]
    page: int
    page_size: int
    total_items: int
    total_pages: int
    skipped: list[SkippedSession] = Field(default_factory=list)
    total_exact: bool = Field(
        default=True,
        description="False when the source cannot count its sessions (a trace store pages with cursors): then "
        "total_items and total_pages count up to the first session after this page, and say only whether more follow.",
    )
