"""Import an uploaded session (any recognised trace format) so it can be listed and scored like any other."""

from __future__ import annotations

import uuid

from session_scoring.errors import InvalidRequestError, SessionDataError
from session_scoring.log import logger
from session_scoring.models.api import ImportedSession
from session_scoring.repositories.uploads import UPLOAD_PREFIX, UPLOAD_SOURCE, NewUpload, UploadRepository
from session_scoring.sources.documents import parse_trace
from session_scoring.sources.formats import load_text
from session_scoring.sources.formats.common import DROPPED_PREFIX

DEFAULT_UPLOAD_NAME = "upload"


class ImportService:
    def __init__(self, uploads: UploadRepository) -> None:
        self._uploads = uploads

    def import_session(
        self, body: bytes, file_name: str | None, content_type: str | None, uploaded_by: str
    ) -> ImportedSession:
        """Parse ``body`` (JSON, or JSON Lines when ``file_name`` ends with .jsonl or the content type is
        application/x-ndjson or application/jsonl), store it under a new ``upload:<uuid>`` id and describe it.

        Raises InvalidRequestError naming what is wrong with the upload (the line or field and what was expected).
        """
        origin = file_name or DEFAULT_UPLOAD_NAME
        if content_type and any(kind in content_type for kind in ("ndjson", "jsonl")) and not origin.endswith(".jsonl"):
            origin = f"{origin}.jsonl"
        try:
            text = body.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidRequestError(
                f"{origin}: the upload is not UTF-8 text (byte {exc.start}); send the session as JSON or JSON Lines"
            ) from exc
        try:
            document = load_text(text, origin)
            trace_format, session = parse_trace(document)
        except SessionDataError as exc:
            raise InvalidRequestError(f"the upload is not a session this service can read: {exc.message}") from exc
        # A document without an id of its own was named after the file: that is not an id worth reporting.
        original = session.session_id if session.session_id != document.default_id else None
        stored = session.model_copy(update={"session_id": f"{UPLOAD_PREFIX}{uuid.uuid4()}", "source": UPLOAD_SOURCE})
        self._uploads.add(
            NewUpload(
                session=stored,
                trace_format=trace_format,
                file_name=file_name,
                original_session_id=original,
                document=text,
                size_bytes=len(body),
                uploaded_by=uploaded_by,
            )
        )
        logger.info(
            "session imported",
            extra={"session_id": stored.session_id, "format": trace_format, "bytes": len(body)},
        )
        dropped = [
            step.text
            for stage in stored.stages
            for step in stage.steps
            if step.kind == "message" and step.text and step.text.startswith(DROPPED_PREFIX)
        ]
        return ImportedSession(
            session_id=stored.session_id,
            source=UPLOAD_SOURCE,
            trace_format=trace_format,
            original_session_id=original,
            status=stored.status,
            stages=len(stored.stages),
            tool_calls=len(stored.tool_calls),
            size_bytes=len(body),
            dropped="; ".join(dropped) or None,
        )
