"""The TARSy HTTP sources, tarsy-bot's History API (``tarsy``) and TARSy Go's API (``tarsy-go``), and what they share:
one client (:mod:`infrastructure.json_http` configured for TARSy: timeouts, bounded retries, one mapping of failures
to our errors, the bearer token) and one base (:class:`TarsyHttpSource`: a session's documents, a page of the
session list in TARSy's own paging). The documents' normalisation is in :mod:`sources.tarsy` and
:mod:`sources.tarsy_go`, which do no I/O; ``docs/sessions.md`` describes both APIs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from session_scoring.errors import SessionDataError, SessionNotFoundError, SourceUnavailableError
from session_scoring.infrastructure.json_http import JsonHttpClient
from session_scoring.models.session import Session, SessionPage, SessionSummary
from session_scoring.sources.boundary import validate_document
from session_scoring.sources.tarsy import HISTORY_PREFIX, TarsySessionList, parse_detailed_session
from session_scoring.sources.tarsy_go import API_PREFIX, GoSessionList, parse_go_session

URL_SETTING = "session_source.base_url (SCORING_TARSY_URL)"
CREDENTIAL_SETTINGS = (
    "session_source.token (SCORING_TARSY_TOKEN) or session_source.token_secret_arn (SCORING_TARSY_TOKEN_SECRET_ARN)"
)

#: The largest page both TARSy APIs serve.
MAX_PAGE_SIZE = 100


class TarsyHttpClient(JsonHttpClient):
    """The JSON client configured for one TARSy deployment: its settings' names, its oauth2-proxy, the sources'
    errors (another 4xx is unavailable, a body that is not JSON a data error)."""

    def __init__(self, base_url: str, **options: Any) -> None:
        super().__init__(
            "TARSy",
            base_url,
            url_setting=URL_SETTING,
            credential_settings=CREDENTIAL_SETTINGS,
            unavailable=SourceUnavailableError,
            rejected=SourceUnavailableError,
            malformed=SessionDataError,
            login_page="its oauth2-proxy asking for a login",
            **options,
        )


class TarsyHttpSource:
    """Base of the TARSy HTTP sources: one session's documents by path, and one page of the session list."""

    name: str

    def __init__(self, client: TarsyHttpClient, include_chat: bool = False) -> None:
        self._client = client
        self._include_chat = include_chat

    def _session_document(self, path: str, session_id: str) -> Any:
        """GET a document of one session; a 404 means TARSy does not know the session."""
        not_found = SessionNotFoundError(f"session '{session_id}' was not found in TARSy")
        return self._client.get(path, not_found=not_found)

    def _list(
        self,
        path: str,
        listing: type[TarsySessionList | GoSessionList],
        page: int,
        page_size: int,
        status: str | list[str],
    ) -> SessionPage:
        """One page of a session list in TARSy's own paging (a 404 here is a wrong base URL, not a session); an API
        that reports no page count gets one from the item count."""
        params: dict[str, str | int | Sequence[str]] = {"page": page, "page_size": min(page_size, MAX_PAGE_SIZE)}
        if status:
            params["status"] = status
        document = self._client.get(path, params)
        found = validate_document(listing, document, f"TARSy GET {path}: not a valid session list")
        pagination = found.pagination
        return SessionPage(
            items=[SessionSummary(**s.summary_fields()) for s in found.sessions],
            page=pagination.page,
            page_size=pagination.page_size,
            total_items=pagination.total_items,
            total_pages=max(1, pagination.total_pages or math.ceil(pagination.total_items / page_size)),
        )


class TarsySessionSource(TarsyHttpSource):
    """The tarsy-bot History API: one ``DetailedSession`` document per session."""

    name = "tarsy"

    def get_session(self, session_id: str) -> Session:
        path = f"{HISTORY_PREFIX}/sessions/{session_id}"
        document = self._session_document(path, session_id)
        return parse_detailed_session(document, f"TARSy GET {path}", self._include_chat)

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        """One page of TARSy's session list (its own paging; ``statuses`` becomes its repeatable status filter)."""
        return self._list(f"{HISTORY_PREFIX}/sessions", TarsySessionList, page, page_size, list(statuses))


class TarsyGoSessionSource(TarsyHttpSource):
    """TARSy Go's API: the session document plus its timeline."""

    name = "tarsy-go"

    def get_session(self, session_id: str) -> Session:
        path = f"{API_PREFIX}/sessions/{session_id}"
        session = self._session_document(path, session_id)
        timeline = self._session_document(f"{path}/timeline", session_id)
        return parse_go_session(session, timeline, f"TARSy GET {path}", self._include_chat)

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        """One page of TARSy's session list (its own paging; ``statuses`` becomes its comma-separated filter)."""
        return self._list(f"{API_PREFIX}/sessions", GoSessionList, page, page_size, ",".join(statuses))
