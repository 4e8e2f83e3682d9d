"""The TARSy HTTP sources, tarsy-bot's History API (``tarsy``) and TARSy Go's API (``tarsy-go``), and all they
share: one client (the JSON client of :mod:`infrastructure.json_http` configured for TARSy: timeouts, bounded
retries, one mapping of failures to our errors) and one base (:class:`TarsyHttpSource`: fetching a session's
documents, paging through the session list). The document shapes and their normalisation are in
:mod:`sources.tarsy` and :mod:`sources.tarsy_go`, which do no I/O.

- Every request has a connect and a read timeout (``session_source.connect_timeout_seconds`` /
  ``read_timeout_seconds``).
- Only connection errors, timeouts and 5xx answers are retried (tenacity, exponential backoff, at most
  ``session_source.max_retries`` retries); a 4xx is an answer, never retried.
- 404 -> :class:`SessionNotFoundError`; 401/403, or a redirect (oauth2-proxy's login) -> :class:`ConfigurationError`
  naming the setting to fix; another 4xx -> :class:`SourceUnavailableError`;
  unreachable, timed out or 5xx after the retries -> :class:`SourceUnavailableError` with the reason; a body that is
  not JSON (or empty) -> :class:`SessionDataError`.
- Session lists are TARSy's own pages (``page``, ``page_size`` capped at 100) with the same ``pagination`` block in
  both APIs; only the path, the status filter's encoding and the item shape differ.
- The bearer token comes from ``session_source.token`` (``${SCORING_TARSY_TOKEN}``) or from the Secrets Manager secret
  ``session_source.token_secret_arn`` (read through Powertools, cached five minutes). It is never logged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeVar

from session_scoring.errors import SessionDataError, SessionNotFoundError, SourceUnavailableError
from session_scoring.infrastructure.json_http import JsonHttpClient, QueryParams
from session_scoring.models.session import Session, SessionPage, SessionSummary
from session_scoring.sources.boundary import TarsyListing, TarsyPagination, validate_document
from session_scoring.sources.tarsy import HISTORY_PREFIX, TarsySessionList, from_microseconds, parse_detailed_session
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

    def get_json(self, path: str, params: QueryParams | None = None, *, not_found: str | None = None) -> Any:
        """GET ``path`` and decode its JSON. ``not_found`` is the message of the 404 error (else a 404 is a
        misconfigured base URL, reported as unavailable)."""
        return self.get(path, params, not_found=None if not_found is None else SessionNotFoundError(not_found))


_Listing = TypeVar("_Listing", bound=TarsyListing)


class TarsyHttpSource:
    """Base of the TARSy HTTP sources: one session's documents by path, and one page of the session list."""

    name: str

    def __init__(self, client: TarsyHttpClient, include_chat: bool = False) -> None:
        self._client = client
        self._include_chat = include_chat

    def _session_document(self, path: str, session_id: str) -> Any:
        """GET a document of one session; a 404 means TARSy does not know the session."""
        return self._client.get_json(
            path, not_found=f"session '{session_id}' was not found in TARSy at {self._client.base_url}"
        )

    def _listing(
        self, path: str, listing: type[_Listing], page: int, page_size: int, status_filter: str | list[str] | None
    ) -> _Listing:
        """One page of a session list, validated as ``listing`` (a 404 here is a wrong base URL, not a session)."""
        params: dict[str, str | int | Sequence[str]] = {"page": page, "page_size": min(page_size, MAX_PAGE_SIZE)}
        if status_filter:
            params["status"] = status_filter
        document = self._client.get_json(path, params)
        return validate_document(listing, document, f"TARSy GET {path}: not a valid session list")

    @staticmethod
    def _page(items: list[SessionSummary], pagination: TarsyPagination, page_size: int) -> SessionPage:
        """Our page from TARSy's; an API that reports no page count gets one from the item count."""
        total_pages = pagination.total_pages or math.ceil(pagination.total_items / page_size)
        return SessionPage(
            items=items,
            page=pagination.page,
            page_size=pagination.page_size,
            total_items=pagination.total_items,
            total_pages=max(1, total_pages),
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
        listing = self._listing(f"{HISTORY_PREFIX}/sessions", TarsySessionList, page, page_size, list(statuses))
        items = [
            SessionSummary(
                session_id=s.session_id,
                status=s.status,
                alert_type=s.alert_type,
                agent_type=s.agent_type,
                author=s.author,
                started_at=from_microseconds(s.started_at_us),
                completed_at=from_microseconds(s.completed_at_us),
            )
            for s in listing.sessions
        ]
        return self._page(items, listing.pagination, page_size)


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
        listing = self._listing(f"{API_PREFIX}/sessions", GoSessionList, page, page_size, ",".join(statuses))
        items = [
            SessionSummary(
                session_id=item.id,
                status=item.status,
                alert_type=item.alert_type,
                agent_type=item.chain_id,
                author=item.author,
                started_at=item.started_at or item.created_at,
                completed_at=item.completed_at,
            )
            for item in listing.sessions
        ]
        return self._page(items, listing.pagination, page_size)
