"""Import an uploaded session (any recognised trace format) so it can be listed and scored like any other."""

from __future__ import annotations

import codecs
import dataclasses
import json
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from session_scoring.configuration.criteria import TraceImportSection
from session_scoring.errors import InvalidRequestError, SessionDataError
from session_scoring.log import logger
from session_scoring.masking import Masker, Memo, default_masker, mask_document, merge_counts
from session_scoring.models.api import ImportedSession, ImportedTrajectory, SkippedContentInfo
from session_scoring.models.masked import from_document, mask_session
from session_scoring.models.reference import clean_reference_text
from session_scoring.models.session import SESSION_FORMAT, Session, SkippedContent
from session_scoring.repositories.uploads import NAME_COLUMNS, UPLOAD_PREFIX, UPLOAD_SOURCE, NewUpload
from session_scoring.sources.documents import Read, read_traces, trajectories_of
from session_scoring.sources.formats import TraceDocument, load_text
from session_scoring.sources.formats.common import DROPPED_PREFIX


def _facts(stored: Session, original: str | None, read: Read) -> ImportedTrajectory:
    calls = stored.tool_calls
    span = (
        round((stored.completed_at - stored.started_at).total_seconds() * 1000)
        if stored.started_at is not None and stored.completed_at is not None
        else None
    )
    return ImportedTrajectory(
        session_id=stored.session_id,
        original_session_id=original,
        status=stored.status,
        stages=len(stored.stages),
        tool_calls=len(calls),
        failed_tool_calls=sum(1 for call in calls if not call.success or call.error),
        inferred_failures=sum(1 for call in calls if call.failure_inferred),
        recorded_failures=sum(1 for call in calls if (not call.success or call.error) and not call.failure_inferred),
        trace_format=read.trace_format,
        read_generically=read.location is not None,
        conversation_at=read.location,
        reasoning_steps=sum(1 for stage in stored.stages for step in stage.steps if step.kind == "reasoning"),
        final_answer_source=stored.final_answer_source if stored.final_analysis else None,
        duration_ms=span if span is not None and span >= 0 else None,
        has_reference=clean_reference_text(stored.reference_root_cause) is not None,
    )


def _skipped(sessions: Sequence[Session]) -> list[SkippedContentInfo]:
    """What every session's document held that no transcript shows, summed over a many-trajectory document."""
    total: dict[str, SkippedContent] = {}
    for session in sessions:
        for item in session.skipped_content:
            known = total.get(item.what)
            total[item.what] = item if known is None else known.model_copy(update={"count": known.count + item.count})
    return [SkippedContentInfo(what=i.what, count=i.count, reason=i.reason) for i in total.values()]


def _check_name_lengths(origin: str, session: Session, original: str | None, index: int | None) -> None:
    """Refuse a session whose alert type, agent type or own id is longer than its column holds (no trace names
    them at such length; a truncated name would make sessions look alike)."""
    values = {"alert_type": session.alert_type, "agent_type": session.agent_type, "session_id": original}
    for field, limit in NAME_COLUMNS.items():
        value = values[field]
        if value is not None and limit is not None and len(value) > limit:
            which = "" if index is None else f"trajectory {index + 1}: "
            raise InvalidRequestError(
                f"{origin}: {which}the session's {field} is {len(value)} characters long; the limit is {limit}. "
                "Shorten it and send the document again"
            )


def _read(
    text: str, origin: str, trace_import: TraceImportSection
) -> tuple[TraceDocument, list[Read], list[TraceDocument] | None]:
    """The document of ``text``, the sessions it holds, and its trajectories when it holds more than one."""
    document = load_text(text, origin, trace_import.submit_tool_names)
    parsed = read_traces(document)
    return document, parsed, trajectories_of(document) if len(parsed) > 1 else None


def _unreadable(exc: SessionDataError) -> InvalidRequestError:
    return InvalidRequestError(f"the upload is not a session this service can read: {exc.message}")


class UploadStore(Protocol):
    """Where uploaded sessions are stored (``repositories.uploads``)."""

    def add_all(self, uploads: Sequence[NewUpload]) -> None: ...


@dataclass(eq=False)
class ImportService:
    uploads: UploadStore
    trace_import: TraceImportSection
    masker: Masker = dataclasses.field(default_factory=default_masker)
    """Masks every session and its document before they are stored (docs/masking.md)."""

    def import_session(
        self, body: bytes, file_name: str | None, content_type: str | None, uploaded_by: str
    ) -> ImportedSession:
        """Parse ``body`` (JSON, or JSON Lines by its file name or content type), store it under a new
        ``upload:<uuid>`` id (a document of many trajectories as one session each, all or none) and describe it;
        an InvalidRequestError names what is wrong with the upload."""
        origin = file_name or "upload"
        if content_type and any(kind in content_type for kind in ("ndjson", "jsonl")) and not origin.endswith(".jsonl"):
            origin = f"{origin}.jsonl"
        try:
            text = body.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidRequestError(
                f"{origin}: the upload is not UTF-8 text (byte {exc.start}); send the session as JSON or JSON Lines"
            ) from exc
        # The document is masked before it is read (docs/masking.md), in one pass over its text: the session read
        # from it is then masked too, and one parse serves both.
        counts: Counter[str] = Counter()
        memo: Memo = {}  # a text repeated in the document (or in the session read from it) is masked once
        encoded = None if body.startswith(codecs.BOM_UTF8) else body  # the text's UTF-8, for the scan
        masked = self.masker.mask_json(text, counts, memo, encoded)  # the text itself when masking is off
        read_from = text if masked is None else masked
        try:
            document, parsed, parts = _read(read_from, origin, self.trace_import)
        except SessionDataError as exc:
            if read_from is text:
                raise _unreadable(exc) from exc
            try:
                document, parsed, parts = _read(text, origin, self.trace_import)  # say what is wrong with the upload
            except SessionDataError as own:
                raise _unreadable(own) from own
            masked = None  # read as sent: masked below, parsed
        if parts is not None and masked is not None and masked is not text:
            # Each trajectory of a many-trajectory document counts its own masked values: read the document as sent.
            document, parsed, parts = _read(text, origin, self.trace_import)
            masked = None
        uploads: list[NewUpload] = []
        for index, read in enumerate(parsed):
            trace_format, session = read.trace_format, read.session
            part = parts[index] if parts is not None else document
            # A document without an id of its own was named after the file: that is not an id worth reporting.
            original = session.session_id if session.session_id != part.default_id else None
            _check_name_lengths(origin, session, original, index if parts is not None else None)
            stored = from_document(session).model_copy(
                update={"session_id": f"{UPLOAD_PREFIX}{uuid.uuid4()}", "source": UPLOAD_SOURCE}
            )
            if masked is not None and parts is None:
                # Read from the masked document: a native session is that document, already masked; another
                # format's reading can join texts or turn names into members, so it is masked again.
                if trace_format != SESSION_FORMAT:
                    stored = mask_session(stored, self.masker, memo)
                stored = stored.model_copy(update={"masked_values": merge_counts(stored.masked_values, counts)})
                kept = masked
            else:
                stored = mask_session(stored, self.masker, memo)
                kept = text if parts is None else json.dumps(part.content, ensure_ascii=False)
                if self.masker.enabled:
                    kept = mask_document(kept, self.masker, memo=memo)
            uploads.append(
                NewUpload(
                    session=stored,
                    trace_format=trace_format,
                    file_name=file_name,
                    original_session_id=original,
                    document=kept,
                    size_bytes=len(body) if parts is None else len(kept.encode()),
                    uploaded_by=uploaded_by,
                )
            )
        self.uploads.add_all(uploads)
        described = [
            _facts(upload.session, upload.original_session_id, read)
            for upload, read in zip(uploads, parsed, strict=True)
        ]
        first = uploads[0]
        logger.info(
            "session imported",
            extra={
                "session_id": first.session.session_id,
                "format": first.trace_format,
                "bytes": len(body),
                "sessions": len(uploads),
            },
        )
        dropped = [
            step.text
            for stage in first.session.stages
            for step in stage.steps
            if step.kind == "message" and step.text and step.text.startswith(DROPPED_PREFIX)
        ]
        return ImportedSession(
            **dict(described[0].model_dump(exclude={"trace_format"})),
            source=UPLOAD_SOURCE,
            trace_format=first.trace_format,
            size_bytes=len(body),
            dropped="; ".join(dropped) or None,
            skipped=_skipped([upload.session for upload in uploads]),
            sessions=described,
            masked_values=first.session.masked_values,
        )
