"""The TARSy HTTP sources, tarsy-bot's History API (``tarsy``) and TARSy Go's API (``tarsy-go``), and all they
share: one client (timeouts, bounded retries, one mapping of failures to our errors) and one base
(:class:`TarsyHttpSource`: fetching a session's documents, paging through the session list). The document shapes
and their normalisation are in :mod:`sources.tarsy` and :mod:`sources.tarsy_go`, which do no I/O.

- Every request has a connect and a read timeout (``session_source.connect_timeout_seconds`` /
  ``read_timeout_seconds``).
- Only connection errors, timeouts and 5xx answers are retried (tenacity, exponential backoff, at most
  ``session_source.max_retries`` retries); a 4xx is an answer, never retried.
- 404 -> :class:`SessionNotFoundError`; 401/403, or a redirect (oauth2-proxy's login) -> :class:`ConfigurationError`
  naming the setting to fix; another 4xx -> :class:`SourceUnavailableError`;
  unreachable, timed out or 5xx after the retries -> :class:`SourceUnavailableError` with the reason; a body that is
  not JSON -> :class:`SessionDataError`.
- Session lists are TARSy's own pages (``page``, ``page_size`` capped at 100) with the same ``pagination`` block in
  both APIs; only the path, the status filter's encoding and the item shape differ.
- The bearer token comes from ``session_source.token`` (``${SCORING_TARSY_TOKEN}``) or from the Secrets Manager secret
  ``session_source.token_secret_arn`` (read through Powertools, cached five minutes). It is never logged.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from session_scoring.errors import (
    ConfigurationError,
    SessionDataError,
    SessionNotFoundError,
    SourceUnavailableError,
)
from session_scoring.log import logger
from session_scoring.models.session import Session, SessionPage, SessionSummary
from session_scoring.sources.boundary import TarsyListing, TarsyPagination, validate_document
from session_scoring.sources.tarsy import HISTORY_PREFIX, TarsySessionList, from_microseconds, parse_detailed_session
from session_scoring.sources.tarsy_go import API_PREFIX, GoSessionList, parse_go_session

CREDENTIAL_SETTINGS = (
    "session_source.token (SCORING_TARSY_TOKEN) or session_source.token_secret_arn (SCORING_TARSY_TOKEN_SECRET_ARN)"
)

QueryParams = Mapping[str, str | int | Sequence[str]]

#: The largest page both TARSy APIs serve.
MAX_PAGE_SIZE = 100


class _RetryableStatus(Exception):
    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


class TarsyHttpClient:
    """GETs JSON from one TARSy deployment."""

    def __init__(
        self,
        base_url: str,
        *,
        token: str = "",
        token_secret_arn: str = "",
        connect_timeout_seconds: float = 3.0,
        read_timeout_seconds: float = 20.0,
        max_retries: int = 2,
        retry_base_seconds: float = 0.5,
        secret_reader: Callable[[str], str] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url.strip():
            raise ConfigurationError(
                "session_source.base_url is empty; set SCORING_TARSY_URL (or session_source.base_url) to TARSy's "
                "address, e.g. https://tarsy.example.com"
            )
        if not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"session_source.base_url '{base_url}' is not an http(s) URL; set SCORING_TARSY_URL to TARSy's address"
            )
        self.base_url = base_url.rstrip("/")
        self._token = token.strip()
        self._token_secret_arn = token_secret_arn.strip()
        if self._token_secret_arn and secret_reader is None:
            raise ConfigurationError("session_source.token_secret_arn is set but no secret reader was given")
        self._secret_reader = secret_reader
        self._connect = connect_timeout_seconds
        self._read = read_timeout_seconds
        self._max_retries = max_retries
        self._retry_base = retry_base_seconds
        self._client = httpx.Client(
            base_url=self.base_url,
            timeout=httpx.Timeout(read_timeout_seconds, connect=connect_timeout_seconds),
            headers={"accept": "application/json", "user-agent": "session-scoring"},
            follow_redirects=False,
            transport=transport,
        )

    def close(self) -> None:
        self._client.close()

    def _authorization(self) -> dict[str, str]:
        token = self._token
        if not token and self._token_secret_arn and self._secret_reader is not None:
            token = self._secret_reader(self._token_secret_arn)
        return {"authorization": f"Bearer {token}"} if token else {}

    def get_json(self, path: str, params: QueryParams | None = None, *, not_found: str | None = None) -> Any:
        """GET ``path`` and decode its JSON. ``not_found`` is the message of the 404 error (else a 404 is a
        misconfigured base URL, reported as unavailable)."""
        headers = self._authorization()
        retrying = Retrying(
            stop=stop_after_attempt(self._max_retries + 1),
            wait=wait_exponential(multiplier=self._retry_base, max=5.0),
            retry=retry_if_exception_type((httpx.TransportError, _RetryableStatus)),
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            response = retrying(self._get, path, params, headers)
        except _RetryableStatus as exc:
            raise SourceUnavailableError(
                f"TARSy answered {exc.response.status_code} to GET {path} after {self._max_retries + 1} attempts"
                f"{_body_hint(exc.response)}"
            ) from exc
        except httpx.TimeoutException as exc:
            raise SourceUnavailableError(
                f"TARSy at {self.base_url} did not answer GET {path} in time ({type(exc).__name__}; connect timeout "
                f"{self._connect:g}s, read timeout {self._read:g}s) after {self._max_retries + 1} attempts"
            ) from exc
        except httpx.TransportError as exc:
            raise SourceUnavailableError(
                f"cannot reach TARSy at {self.base_url} ({type(exc).__name__}: {exc or 'connection failed'}) "
                f"after {self._max_retries + 1} attempts"
            ) from exc
        return self._decode(response, path, not_found)

    def _get(self, path: str, params: QueryParams | None, headers: dict[str, str]) -> httpx.Response:
        response = self._client.get(path, params=params, headers=headers)
        if response.status_code >= 500:
            raise _RetryableStatus(response)
        return response

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        logger.warning(
            "TARSy request failed, retrying",
            extra={"attempt": state.attempt_number, "reason": f"{type(exc).__name__}: {exc}"},
        )

    def _decode(self, response: httpx.Response, path: str, not_found: str | None) -> Any:
        status = response.status_code
        if status in (401, 403):
            raise ConfigurationError(
                f"TARSy refused our credentials ({status}) for GET {path}; set {CREDENTIAL_SETTINGS} to a valid bearer "
                "token for TARSy's oauth2-proxy"
            )
        if status == 404:
            if not_found is not None:
                raise SessionNotFoundError(not_found)
            raise SourceUnavailableError(
                f"TARSy at {self.base_url} has no {path} (404); check session_source.base_url (SCORING_TARSY_URL) "
                "and session_source.type"
            )
        if 300 <= status < 400:
            raise ConfigurationError(
                f"TARSy redirected GET {path} ({status}) to {response.headers.get('location', 'another page')}, "
                f"most likely its oauth2-proxy asking for a login; set {CREDENTIAL_SETTINGS} to a valid bearer token "
                "and check session_source.base_url (SCORING_TARSY_URL)"
            )
        if status >= 400:
            raise SourceUnavailableError(f"TARSy answered {status} to GET {path}{_body_hint(response)}")
        try:
            return response.json()
        except ValueError as exc:
            raise SessionDataError(
                f"TARSy's answer to GET {path} is not JSON ({exc}); content-type "
                f"{response.headers.get('content-type', 'unknown')}, {len(response.content)} bytes"
            ) from exc


def _body_hint(response: httpx.Response) -> str:
    text = response.text.strip().replace("\n", " ")
    return f": {text[:200]}" if text else ""


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
