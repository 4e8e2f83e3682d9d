"""Training export: each session's latest completed score under the chosen criteria (``min_score`` and above) with
the whole investigation, one JSON line each, as an OpenAI chat conversation (``openai-chat``) or the normalised session
(``normalized``). Streamed by ``GET /exports/training`` without an exports bucket; with one (a Lambda answer is capped
at 6 MB) ``POST /exports/training`` queues a job the exporter writes to S3 (:meth:`TrainingExportService.run`).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol

from session_scoring.errors import (
    ExportModeError,
    ExportNotFoundError,
    ExportTimeLimitError,
    InvalidRequestError,
    QueueUnavailableError,
    ScoringError,
    SessionNotFoundError,
    TransientError,
)
from session_scoring.log import logger
from session_scoring.masking import Masker, default_masker
from session_scoring.models.api import ExportJob
from session_scoring.models.export import (
    ChatFunction,
    ChatFunctionCall,
    ChatMessage,
    ChatTool,
    ChatToolCall,
    ExportJobRecord,
    ExportMessage,
    ExportStatus,
    TrainingExample,
    TrainingExportParameters,
)
from session_scoring.models.insights import FleetFilter, FleetOrder, FleetScoreRecord, KeysetPosition, SortField
from session_scoring.models.scores import MAX_SCORE, MIN_SCORE
from session_scoring.models.session import Session, Step, ToolCall
from session_scoring.observability import Metric, count
from session_scoring.services.insights import InsightsService, StreamedRows
from session_scoring.sources.base import SessionSource
from session_scoring.sources.formats.common import DROPPED_PREFIX

#: Scores read per database round trip; their sessions are then read from the source one by one.
EXPORT_PAGE = 100

_FUNCTION_NAME = re.compile(r"[^A-Za-z0-9_-]")
_USER_TURN = re.compile(r"User question:|User:")


TRAINING_FORMATS = ("openai-chat", "normalized")


def function_name(call: ToolCall) -> str:
    """The OpenAI function name of a tool (``server__name``: OpenAI allows only letters, digits, ``_`` and ``-``)."""
    return _FUNCTION_NAME.sub("_", f"{call.server}__{call.name}" if call.server else call.name)[:64]


def _result_text(call: ToolCall) -> str:
    if not call.success:
        return f"error: {call.error or 'the tool call failed'}"
    if isinstance(call.result, str):
        return call.result
    return json.dumps(call.result, default=str)


def _importer_note(step: Step) -> bool:
    """A step the importer wrote about the recording (what it dropped), not a turn of the conversation: the
    session's ``skipped_content`` says the same."""
    return step.kind == "message" and (step.text or "").startswith(DROPPED_PREFIX)


def _opens_with_task(session: Session) -> bool:
    """The recording's first turn is the user's (``User: ...``, before any call or agent text): that turn is the task
    as the agent got it, and the alert is not added before it again."""
    for stage in session.stages[:1]:
        for step in stage.steps:
            if _importer_note(step):
                continue
            return step.kind == "message" and bool(step.text) and _USER_TURN.match(step.text or "") is not None
    return False


def to_openai_chat(session: Session) -> tuple[list[ChatMessage], list[ChatTool]]:
    """The session as an OpenAI chat fine-tuning conversation and the functions it could call: the recording's own
    turns only. No system message is written (the sessions keep none: TARSy's records hold no prompt and the importers
    drop a recording's, so one would be invented); the conversation opens with the recording's first user turn, or
    the alert when it has none (once, either way); the importer's notes of what it dropped are left out. Text right
    before a tool call shares its assistant message, each call gets an id and a ``tool`` message with its result (or
    error), and user turns (``User: ...``) become user messages."""
    messages: list[ChatMessage] = []
    if not _opens_with_task(session):
        alert = json.dumps(session.alert, default=str) if session.alert else "(no alert)"
        messages.append(ChatMessage(role="user", content=alert))
    tools: dict[str, ChatTool] = {}
    for tool in session.all_available_tools:
        name = function_name(ToolCall(name=tool.name, server=tool.server))
        tools[name] = ChatTool(function=ChatFunction(name=name, description=tool.description))
    final = (session.final_analysis or "").strip()
    pending: list[str] = []
    call_ids = (f"call_{number}" for number in itertools.count(1))

    def flush() -> None:
        if pending:
            messages.append(ChatMessage(role="assistant", content="\n\n".join(pending)))
            pending.clear()

    for stage in session.stages:
        answered = False
        for step in stage.steps:
            if _importer_note(step):
                continue
            if step.tool_call is not None:
                call, call_id = step.tool_call, next(call_ids)
                name = function_name(call)
                tools.setdefault(name, ChatTool(function=ChatFunction(name=name)))
                arguments = ChatFunctionCall(name=name, arguments=json.dumps(call.arguments, default=str))
                tool_calls = [ChatToolCall(id=call_id, function=arguments)]
                messages.append(
                    ChatMessage(role="assistant", content="\n\n".join(pending) or None, tool_calls=tool_calls)
                )
                pending.clear()
                messages.append(ChatMessage(role="tool", tool_call_id=call_id, content=_result_text(call)))
            elif step.text and step.kind == "message" and (user := _USER_TURN.match(step.text)):
                flush()
                messages.append(ChatMessage(role="user", content=step.text[user.end() :].strip()))
            elif step.text:
                pending.append(step.text)
                answered = answered or step.kind == "answer"
        if stage.output and not answered and stage.output.strip() != final:
            pending.append(stage.output)
        flush()
    last = messages[-1] if messages else None
    # An answer that is the final analysis (TARSy's last stage's output too) is said once.
    said = (
        last is not None and last.role == "assistant" and not last.tool_calls and (last.content or "").strip() == final
    )
    if final and not said:
        messages.append(ChatMessage(role="assistant", content=session.final_analysis))
    return messages, list(tools.values())


class ExportedFleet(Protocol):
    """The scored sessions a training export reads (``repositories.insights``)."""

    def fleet_count(self, where: FleetFilter) -> int: ...
    def fleet_page(self, where: FleetFilter, order: FleetOrder, limit: int) -> list[FleetScoreRecord]: ...


class ExportJobs(Protocol):
    """Export jobs' rows (``repositories.exports``)."""

    def claim(self, export_id: uuid.UUID) -> ExportJobRecord | None: ...
    def complete(self, export_id: uuid.UUID, s3_key: str, rows_written: int, bytes_written: int) -> None: ...
    def create(self, parameters: TrainingExportParameters, requested_by: str) -> ExportJobRecord: ...
    def fail(self, export_id: uuid.UUID, error: str, rows_written: int | None = None) -> None: ...
    def get(self, export_id: uuid.UUID) -> ExportJobRecord | None: ...


class ExportStore(Protocol):
    def upload(self, key: str, chunks: Iterator[bytes]) -> int: ...

    def download_url(self, key: str, filename: str, expires_seconds: int) -> str: ...


class ExportQueue(Protocol):
    def send(self, message: ExportMessage) -> None: ...


#: Seconds kept back from the exporter's remaining time: enough to abort the upload and record why it stopped.
TIME_MARGIN_SECONDS = 30.0


def export_key(export_id: uuid.UUID) -> str:
    return f"exports/training/{export_id}.jsonl"


def _where(parameters: TrainingExportParameters) -> FleetFilter:
    return FleetFilter(criteria_hash=parameters.criteria_hash, min_score=parameters.min_score)


@dataclass(eq=False)
class TrainingExportService:
    """The training export: streamed where no exports bucket is configured (``store`` None), else a job asked for by
    the API, run by the exporter function and fetched with a presigned URL."""

    insights: InsightsService
    fleet: ExportedFleet
    source: SessionSource
    jobs: ExportJobs
    store: Callable[[], ExportStore] | None
    queue: Callable[[], ExportQueue]
    url_expiry_seconds: int
    masker: Masker = dataclasses.field(default_factory=default_masker)
    """Masks every exported line as it leaves (the sessions were masked when read; the judge's texts are masked
    here too): a training export is exactly where a secret must not land."""

    def check(self, min_score: int, criteria_hash: str, output: str) -> TrainingExportParameters:
        """The export's parameters with the criteria resolved, or a 400 saying what is wrong."""
        if not MIN_SCORE <= min_score <= MAX_SCORE:
            raise InvalidRequestError(f"min_score {min_score} is outside {MIN_SCORE}-{MAX_SCORE}")
        if output not in TRAINING_FORMATS:
            raise InvalidRequestError(f"format '{output}' is not one of: {', '.join(TRAINING_FORMATS)}")
        criteria = self.insights.criteria_filter(criteria_hash)
        return TrainingExportParameters(min_score=min_score, criteria_hash=criteria, format=output)

    def stream(self, min_score: int, criteria_hash: str, output: str, requested_by: str) -> StreamedRows:
        """``GET /exports/training``: the parameters checked first (a 400 before anything is sent), then the lines;
        a 405 naming the POST where exports are S3 jobs (API Gateway would cut the stream at 6 MB)."""
        if self.store is not None:
            raise ExportModeError(
                "in this deployment a training export is a job written to S3 (a Lambda answer is capped at 6 MB): "
                "POST /api/v1/scoring/exports/training with the same min_score, criteria_hash and format as JSON, "
                "then GET /api/v1/scoring/exports/{export_id} until it is completed and fetch its download_url",
                allow="POST",
            )
        parameters = self.check(min_score, criteria_hash, output)
        logger.info(
            "training export streamed",
            extra={
                "requested_by": requested_by,
                "min_score": min_score,
                "criteria_hash": criteria_hash,
                "format": output,
            },
        )
        return StreamedRows("application/x-ndjson", f"training-{output}.jsonl", self.lines(parameters))

    def count(self, parameters: TrainingExportParameters) -> int:
        """How many sessions the export will read (the progress bar's total)."""
        return self.fleet.fleet_count(_where(parameters))

    def _page(self, parameters: TrainingExportParameters, after: KeysetPosition | None) -> list[FleetScoreRecord]:
        """The selected scores, best first, a keyset page after ``after`` (read whole, then released)."""
        order = FleetOrder(SortField.TOTAL_SCORE, True, after)
        return self.fleet.fleet_page(_where(parameters), order, EXPORT_PAGE)

    def lines(
        self, parameters: TrainingExportParameters, on_session: Callable[[str | None], None] = lambda _note: None
    ) -> Iterator[str]:
        """One JSON line per exported session. ``on_session`` is told of each session read (with a note when it
        was skipped). The first page of scores is read here, before any line is sent (a database that is down is a
        503, not a broken stream)."""
        return self._lines(parameters, self._page(parameters, None), on_session)

    def _lines(
        self,
        parameters: TrainingExportParameters,
        page: list[FleetScoreRecord],
        on_session: Callable[[str | None], None],
    ) -> Iterator[str]:
        while True:
            for record in page:
                try:
                    session = self.source.get_session(record.session_id)
                except SessionNotFoundError:
                    logger.warning("training export skipped a session", extra={"session_id": record.session_id})
                    on_session(f"session {record.session_id}: the source no longer has it; not exported")
                    continue
                on_session(None)
                base = {**vars(record), "score_breakdown": record.score_breakdown or {}}
                if parameters.format == "normalized":
                    example = TrainingExample(**base, session=session)
                else:
                    messages, tools = to_openai_chat(session)
                    example = TrainingExample(**base, messages=messages, tools=tools)
                line = example.model_dump(mode="json", exclude_none=True)
                yield json.dumps(self.masker.mask_value(line), ensure_ascii=False, separators=(",", ":")) + "\n"
            if len(page) < EXPORT_PAGE:
                return
            page = self._page(parameters, KeysetPosition(page[-1].total_score, page[-1].score_id))

    def request(self, min_score: int, criteria_hash: str, output: str, requested_by: str) -> ExportJob:
        """``POST /exports/training``: check the parameters, store a queued job, send it to the exports queue (a
        job the queue refuses is marked failed, and the caller gets a 503 to retry)."""
        if self.store is None:
            raise ExportModeError(
                "export jobs need the stack's exports bucket (SCORING_EXPORTS_BUCKET), which is not set here: "
                "GET /api/v1/scoring/exports/training streams the export instead",
                allow="GET",
            )
        record = self.jobs.create(self.check(min_score, criteria_hash, output), requested_by)
        try:
            self.queue().send(ExportMessage(export_id=record.export_id))
        except QueueUnavailableError as exc:
            self.jobs.fail(record.export_id, f"{exc.message}; nothing was exported: ask again")
            raise
        logger.info("export job queued", extra={"export_id": str(record.export_id)})
        return self._view(record)

    def get(self, export_id: uuid.UUID) -> ExportJob:
        """``GET /exports/{export_id}``: the job, with a presigned download URL once it is completed."""
        record = self.jobs.get(export_id)
        if record is None:
            raise ExportNotFoundError(f"no export job {export_id}: start one with POST /exports/training")
        return self._view(record)

    def _view(self, record: ExportJobRecord) -> ExportJob:
        url, expires_at = None, None
        if record.status == ExportStatus.COMPLETED and record.s3_key and self.store is not None:
            filename = f"training-{record.parameters.format}-{record.export_id}.jsonl"
            expires_at = datetime.now(UTC) + timedelta(seconds=self.url_expiry_seconds)
            url = self.store().download_url(record.s3_key, filename, self.url_expiry_seconds)
        extra = {"error": record.error_message, "download_url": url, "expires_at": expires_at}
        return ExportJob.model_validate({**dict(record), **dict(record.parameters), **extra})

    def run(self, message: ExportMessage, receive_count: int, remaining_seconds: float) -> str:
        """Run one delivery of an export job: claim it, stream its lines into S3, record the outcome on the job
        (completed with its counts, or failed with the reason); what the delivery did. A job found running on a later
        delivery (``receive_count`` > 1) is failed: the earlier delivery died. Only an unreachable database raises."""
        export_id = message.export_id
        record = self.jobs.get(export_id)
        if record is None:
            logger.warning("export message names no job; dropped", extra={"export_id": str(export_id)})
            return "no such export job"
        if record.status in (ExportStatus.COMPLETED, ExportStatus.FAILED):
            return f"already {record.status.value}"
        if record.status == ExportStatus.RUNNING:
            if receive_count <= 1:
                return "a duplicate delivery: another exporter runs it"
            self._fail(
                export_id,
                "the exporter stopped during an earlier attempt (out of memory or its timeout); "
                "ask for a smaller export (a higher min_score or one criteria hash)",
            )
            return "interrupted earlier"
        claimed = self.jobs.claim(export_id)
        if claimed is None:
            return "taken by another delivery"
        return self._export(claimed, time.monotonic() + remaining_seconds - TIME_MARGIN_SECONDS)

    def _export(self, record: ExportJobRecord, deadline: float) -> str:
        assert self.store is not None, "the exporter runs only where the exports bucket is configured"
        rows = [0]

        def chunks() -> Iterator[bytes]:
            for line in self.lines(record.parameters):
                if time.monotonic() > deadline:
                    raise ExportTimeLimitError(
                        f"the export did not finish within the exporter's time after {rows[0]} sessions; ask for a "
                        "smaller export (a higher min_score or one criteria hash)"
                    )
                rows[0] += 1
                yield line.encode()

        key = export_key(record.export_id)
        try:
            size = self.store().upload(key, chunks())
        except ScoringError as exc:
            hint = " (it may work later: ask again)" if isinstance(exc, TransientError) else ""
            self._fail(record.export_id, f"{exc.message}{hint}", rows[0])
            return exc.message
        except Exception as exc:  # noqa: BLE001 - a bug: still recorded on the job, the traceback in the log
            logger.exception("export failed unexpectedly", extra={"export_id": str(record.export_id)})
            self._fail(record.export_id, f"internal error ({type(exc).__name__}: {exc}); see the exporter log", rows[0])
            return type(exc).__name__
        self.jobs.complete(record.export_id, key, rows[0], size)
        count(Metric.EXPORTS_COMPLETED)
        logger.info("export completed", extra={"export_id": str(record.export_id), "rows": rows[0], "bytes": size})
        return f"{rows[0]} sessions, {size} bytes"

    def _fail(self, export_id: uuid.UUID, error: str, rows_written: int | None = None) -> None:
        logger.error("export failed", extra={"export_id": str(export_id), "error": error})
        self.jobs.fail(export_id, error, rows_written)
        count(Metric.EXPORTS_FAILED)
