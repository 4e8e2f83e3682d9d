"""One JSON-over-HTTP client for every HTTP service we read or write: TARSy (configured in :mod:`sources.http`) and
the trace stores, Arize Phoenix and MLflow (their sources read through it, their write-back sinks write through it).
Each user has its own instance: its own timeouts, setting names and error classes.

Every request has a connect and a read timeout; connection errors, timeouts and 5xx answers are retried (tenacity,
exponential backoff, at most ``max_retries`` retries), then raise ``unavailable``. A 4xx is an answer, never retried:
401/403 or a redirect (a login page) is a :class:`ConfigurationError` naming ``credential_settings``; a 404 is
``None`` (``missing_ok``), the caller's ``not_found`` error, or ``unavailable`` naming the base URL; another 4xx is
``rejected``. A body that is not JSON is ``malformed``; an empty one is ``None``. The bearer token comes from
``token`` or from a Secrets Manager secret read through ``secret_reader``; it is never logged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt, wait_exponential

from session_scoring.configuration.criteria import SessionSourceSection
from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError, ScoringError, TransientError
from session_scoring.log import logger

QueryParams = Mapping[str, str | int | bool | Sequence[str]]

TRACE_STORES = {"phoenix": "Phoenix", "mlflow": "MLflow"}
"""The ``session_source.type`` of each trace store, and the name it goes by in messages."""


class _RetryableStatus(Exception):
    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


class JsonHttpClient:
    """GETs and POSTs JSON to one HTTP service."""

    def __init__(
        self,
        service: str,
        base_url: str,
        *,
        url_setting: str,
        credential_settings: str,
        unavailable: type[TransientError],
        rejected: type[ScoringError],
        malformed: type[ScoringError] | None = None,
        login_page: str = "a login page",
        token: str = "",
        token_secret_arn: str = "",
        secret_reader: Callable[[str], str] | None = None,
        connect_timeout_seconds: float = 3.0,
        read_timeout_seconds: float = 20.0,
        max_retries: int = 2,
        retry_base_seconds: float = 0.5,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url.strip():
            raise ConfigurationError(f"{url_setting} is empty; set it to the {service} server's address")
        if not base_url.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"{url_setting} '{base_url}' is not an http(s) URL; set it to the {service} server"
            )
        self.service = service
        self.base_url = base_url.rstrip("/")
        self._url_setting = url_setting
        self._credential_settings = credential_settings
        self._unavailable = unavailable
        self._rejected = rejected
        self._malformed = malformed or unavailable
        self._login_page = login_page
        self._token = token.strip()
        self._token_secret_arn = token_secret_arn.strip()
        if self._token_secret_arn and secret_reader is None:
            raise ConfigurationError(f"a token secret is set for {service} but no secret reader was given")
        self._secret_reader = secret_reader
        self._max_retries = max_retries
        self._retry_base = retry_base_seconds
        self._client = httpx.Client(
            base_url=self.base_url,
            timeout=httpx.Timeout(read_timeout_seconds, connect=connect_timeout_seconds),
            headers={"accept": "application/json", "user-agent": "session-scoring"},
            follow_redirects=False,
            transport=transport,
        )

    def _authorization(self) -> dict[str, str]:
        token = self._token
        if not token and self._token_secret_arn and self._secret_reader is not None:
            token = self._secret_reader(self._token_secret_arn)
        return {"authorization": f"Bearer {token}"} if token else {}

    def get(
        self,
        path: str,
        params: QueryParams | None = None,
        *,
        missing_ok: bool = False,
        not_found: ScoringError | None = None,
    ) -> Any:
        return self.request("GET", path, params=params, missing_ok=missing_ok, not_found=not_found)

    def post(self, path: str, body: Any, params: QueryParams | None = None, *, missing_ok: bool = False) -> Any:
        return self.request("POST", path, params=params, body=body, missing_ok=missing_ok)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: QueryParams | None = None,
        body: Any = None,
        missing_ok: bool = False,
        not_found: ScoringError | None = None,
    ) -> Any:
        """The decoded JSON answer; ``None`` for a 404 when ``missing_ok``, ``not_found`` raised for one when given."""
        headers = self._authorization()
        retrying = Retrying(
            stop=stop_after_attempt(self._max_retries + 1),
            wait=wait_exponential(multiplier=self._retry_base, max=5.0),
            retry=retry_if_exception_type((httpx.TransportError, _RetryableStatus)),
            before_sleep=self._log_retry,
            reraise=True,
        )
        attempts = f"{self._max_retries + 1} attempt{'s' if self._max_retries else ''}"
        try:
            response = retrying(self._send, method, path, params, body, headers)
        except _RetryableStatus as exc:
            raise self._unavailable(
                f"{self.service} answered {exc.response.status_code} to {method} {path} after {attempts}"
                f"{_body_hint(exc.response)}"
            ) from exc
        except httpx.TimeoutException as exc:
            self._log_failure(method, path, exc)
            raise self._unavailable(
                f"{self.service} did not answer {method} {path} in time (connect timeout "
                f"{self._client.timeout.connect:g}s, read timeout {self._client.timeout.read:g}s) after {attempts}"
            ) from exc
        except httpx.TransportError as exc:
            self._log_failure(method, path, exc)
            raise self._unavailable(
                f"cannot reach {self.service} after {attempts}; the service log names the address and the error"
            ) from exc
        return self._decode(response, method, path, missing_ok, not_found)

    def _send(
        self, method: str, path: str, params: QueryParams | None, body: Any, headers: dict[str, str]
    ) -> httpx.Response:
        response = self._client.request(method, path, params=params, json=body, headers=headers)
        if response.status_code >= 500:
            raise _RetryableStatus(response)
        return response

    def _log_failure(self, method: str, path: str, exc: Exception) -> None:
        """Where and how a request failed, for the log only: the address and the error are internals, never put in
        an error a caller reads."""
        logger.warning(
            f"{self.service} request failed",
            extra={"url": f"{self.base_url}{path}", "method": method, "reason": f"{type(exc).__name__}: {exc}"},
        )

    def _log_retry(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        logger.warning(
            f"{self.service} request failed, retrying",
            extra={"attempt": state.attempt_number, "reason": f"{type(exc).__name__}: {exc}"},
        )

    def _decode(
        self, response: httpx.Response, method: str, path: str, missing_ok: bool, not_found: ScoringError | None
    ) -> Any:
        status = response.status_code
        if status in (401, 403):
            raise ConfigurationError(
                f"{self.service} refused our credentials ({status}) for {method} {path}; set "
                f"{self._credential_settings} to a valid API key or token"
            )
        if 300 <= status < 400:
            raise ConfigurationError(
                f"{self.service} redirected {method} {path} ({status}) to "
                f"{response.headers.get('location', 'another page')}, most likely {self._login_page}; check "
                f"{self._url_setting} and set {self._credential_settings}"
            )
        if status == 404:
            if missing_ok:
                return None
            if not_found is not None:
                raise not_found
            logger.warning(f"{self.service} has no such path", extra={"url": f"{self.base_url}{path}"})
            raise self._unavailable(
                f"{self.service} has no {path} (404){_body_hint(response)}; check {self._url_setting}"
            )
        if status >= 400:
            raise self._rejected(f"{self.service} answered {status} to {method} {path}{_body_hint(response)}")
        if not response.content:
            return None
        try:
            return response.json()
        except ValueError as exc:
            raise self._malformed(
                f"{self.service}'s answer to {method} {path} is not JSON ({exc}); content-type "
                f"{response.headers.get('content-type', 'unknown')}, {len(response.content)} bytes; check "
                f"{self._url_setting}"
            ) from exc


def _body_hint(response: httpx.Response) -> str:
    text = response.text.strip().replace("\n", " ")
    return f": {text[:300]}" if text else ""


def source_credentials(section: SessionSourceSection, settings: Settings) -> dict[str, Any]:
    """The client options of ``session_source``'s bearer token: the token, or the secret it is read from."""
    from session_scoring.infrastructure.secrets import read_secret

    return {
        "token": section.token,
        "token_secret_arn": section.token_secret_arn,
        "secret_reader": lambda arn: read_secret(settings, arn, "session_source.token_secret_arn"),
    }


def trace_store_client(
    section: SessionSourceSection,
    settings: Settings,
    *,
    unavailable: type[TransientError],
    rejected: type[ScoringError],
    **timeouts: Any,
) -> JsonHttpClient:
    """A client of the trace store the sessions come from (``session_source``: its URL and credentials), with the
    caller's errors and timeouts: the session source and the write-back sink each have their own."""
    return JsonHttpClient(
        TRACE_STORES[section.type],
        section.base_url,
        url_setting="session_source.base_url (SCORING_SOURCE_URL)",
        credential_settings="session_source.token (SCORING_SOURCE_TOKEN) or session_source.token_secret_arn "
        "(SCORING_SOURCE_TOKEN_SECRET_ARN)",
        unavailable=unavailable,
        rejected=rejected,
        **source_credentials(section, settings),
        **timeouts,
    )
