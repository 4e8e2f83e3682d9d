"""Sessions from an Arize Phoenix project: one trace per session, read through Phoenix's REST API (httpx, no Phoenix
package) and mapped by :mod:`sources.trace_spans`; the list is the project's root spans, newest first, so a trace
appears once its root span has been received. Phoenix keeps only ``OK``/``UNSET``/``ERROR``, so a filter of other
statuses lists nothing. Phoenix pages with cursors and does not count, so page N walks the pages before it and its
total is not exact (:mod:`sources.cursor_pages`). The endpoints are in ``docs/sessions.md``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from pydantic import Field

from session_scoring.errors import ConfigurationError, SessionDataError, SessionNotFoundError
from session_scoring.infrastructure.json_http import JsonHttpClient
from session_scoring.models.session import Session, SessionPage, SessionSummary
from session_scoring.sources.boundary import BoundaryModel, validate_document
from session_scoring.sources.cursor_pages import session_page
from session_scoring.sources.formats.common import parse_time
from session_scoring.sources.trace_spans import StoreSpan, phoenix_span, session_from_spans, session_status

MAX_LIMIT = 1000
"""The largest page Phoenix's span endpoint serves."""
MAX_SPANS = 20_000
"""Spans one session may have; a larger trace is refused rather than read without end."""
DEFAULT_PROJECT = "default"
TRACE_ID = re.compile(r"^[0-9a-f]{32}$")
PROJECT_SETTING = "session_source.project (SCORING_TRACE_STORE_PROJECT)"

_STATUS_CODES = {"completed": ("OK", "UNSET"), "failed": ("ERROR",)}


class PhoenixSpanPage(BoundaryModel):
    data: list[dict[str, Any]] = Field(default_factory=list)
    next_cursor: str | None = None


class PhoenixSessionSource:
    name = "phoenix"

    def __init__(self, client: JsonHttpClient, project: str = "") -> None:
        self._client = client
        self.project = project.strip() or DEFAULT_PROJECT
        if any(c in self.project for c in "/?#"):
            raise ConfigurationError(
                f"{PROJECT_SETTING} '{self.project}' cannot name a Phoenix project: a name with '/', '?' or '#' "
                "cannot be used in Phoenix's API; use the project's id instead"
            )
        self._spans_path = f"/v1/projects/{quote(self.project, safe='')}/spans"

    def _page(self, params: dict[str, Any]) -> PhoenixSpanPage:
        document = self._client.get(self._spans_path, params, missing_ok=True)
        if document is None:
            raise ConfigurationError(
                f"Phoenix at {self._client.base_url} has no project '{self.project}' (404); set {PROJECT_SETTING} to "
                "the name or id of the project the agent's traces go to"
            )
        return validate_document(PhoenixSpanPage, document, f"Phoenix GET {self._spans_path}: not a page of spans")

    def _read(self, raw: dict[str, Any], origin: str) -> StoreSpan:
        try:
            return phoenix_span(raw)
        except ValueError as exc:
            raise SessionDataError(f"{origin}: {exc}") from exc

    def get_session(self, session_id: str) -> Session:
        if not TRACE_ID.match(session_id):
            raise SessionNotFoundError(
                f"session '{session_id}' is not a Phoenix trace id (32 lower-case hex digits), so project "
                f"'{self.project}' has no such trace"
            )
        origin = f"Phoenix trace {session_id} (project {self.project})"
        spans: list[StoreSpan] = []
        cursor: str | None = None
        while True:
            page = self._page({"trace_id": session_id, "limit": MAX_LIMIT, **({"cursor": cursor} if cursor else {})})
            spans += [self._read(raw, origin) for raw in page.data]
            cursor = page.next_cursor
            if not cursor:
                break
            if len(spans) >= MAX_SPANS:
                raise SessionDataError(f"{origin}: the trace has more than {MAX_SPANS} spans, too many to judge")
        if not spans:
            raise SessionNotFoundError(
                f"session '{session_id}' was not found: Phoenix project '{self.project}' has no trace with that id"
            )
        return session_from_spans(spans, session_id, origin)

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        codes = sorted({code for status in statuses for code in _STATUS_CODES.get(status, ())})
        if statuses and not codes:
            return SessionPage(items=[], page=page, page_size=page_size, total_items=0, total_pages=1)
        origin = f"Phoenix project {self.project}"

        def fetch(cursor: str | None, limit: int) -> tuple[list[SessionSummary], str | None]:
            params: dict[str, Any] = {"parent_id": "null", "sort": "start_time", "order": "desc", "limit": limit}
            if codes:
                params["status_code"] = codes
            listed = self._page({**params, **({"cursor": cursor} if cursor else {})})
            return [_summary(self._read(raw, origin)) for raw in listed.data], listed.next_cursor

        return session_page(fetch, page, page_size, MAX_LIMIT)


def _summary(root: StoreSpan) -> SessionSummary:
    attrs = root.attributes
    agent = attrs.get("gen_ai.agent.name") or attrs.get("agent.name") or root.name or None
    return SessionSummary(
        session_id=root.trace_id,
        status=session_status(root),
        agent_type=str(agent) if agent else None,
        started_at=parse_time(root.start_ns or None),
        completed_at=parse_time(root.end_ns or None),
    )
