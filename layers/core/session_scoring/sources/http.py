"""The HTTP client shared by the TARSy sources: timeouts, bounded retries and one mapping of failures to our errors.

- Every request has a connect and a read timeout (``session_source.connect_timeout_seconds`` /
  ``read_timeout_seconds``).
- Only connection errors, timeouts and 5xx answers are retried (tenacity, exponential backoff, at most
  ``session_source.max_retries`` retries); a 4xx is an answer, never retried.
- 404 -> :class:`SessionNotFoundError`; 401/403, or a redirect (oauth2-proxy's login) -> :class:`ConfigurationError`
  naming the setting to fix; another 4xx -> :class:`SourceUnavailableError`;
  unreachable, timed out or 5xx after the retries -> :class:`SourceUnavailableError` with the reason; a body that is
  not JSON -> :class:`SessionDataError`.
- The bearer token comes from ``session_source.token`` (``${SCORING_TARSY_TOKEN}``) or from the Secrets Manager secret
  ``session_source.token_secret_arn`` (read through Powertools, cached five minutes). It is never logged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from session_scoring.errors import (
    ConfigurationError,
    SessionDataError,
    SessionNotFoundError,
    SourceUnavailableError,
)
from session_scoring.log import logger

CREDENTIAL_SETTINGS = (
    "session_source.token (SCORING_TARSY_TOKEN) or session_source.token_secret_arn (SCORING_TARSY_TOKEN_SECRET_ARN)"
)

QueryParams = Mapping[str, str | int | Sequence[str]]


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
