"""The TARSy HTTP client's mapping of answers and failures to our errors, and the sources' paging, without a network.

Requests go through httpx's transport hook to an ``httpx.MockTransport`` that plays TARSy; the retry delay is zero.
(The same behaviour over real HTTP against the fake TARSy is in tests/integration/test_tarsy_source.py.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from session_scoring.errors import (
    ConfigurationError,
    ScoringError,
    SessionDataError,
    SessionNotFoundError,
    SourceUnavailableError,
)
from session_scoring.sources.http import TarsyGoSessionSource, TarsyHttpClient, TarsySessionSource

BASE_URL = "https://tarsy.example.com"
Responder = Callable[[httpx.Request], httpx.Response]


class PlayedTarsy:
    """Answers each request with the next scripted responder (the last one repeats) and records the requests."""

    def __init__(self, *responders: Responder) -> None:
        self._responders = list(responders)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        responder = self._responders.pop(0) if len(self._responders) > 1 else self._responders[0]
        return responder(request)


def answer(status: int, body: Any = None, **headers: str) -> Responder:
    return lambda request: httpx.Response(status, json=body if body is not None else {}, headers=headers)


def fail(exc_type: type[httpx.TransportError]) -> Responder:
    def raise_(request: httpx.Request) -> httpx.Response:
        raise exc_type("simulated", request=request)

    return raise_


def client(tarsy: PlayedTarsy, **options: Any) -> TarsyHttpClient:
    return TarsyHttpClient(
        BASE_URL,
        token=options.pop("token", "t0ken"),
        max_retries=options.pop("max_retries", 2),
        retry_base_seconds=0,
        transport=httpx.MockTransport(tarsy),
        **options,
    )


def get(tarsy: PlayedTarsy, not_found: str | None = "session 's-1' was not found", **options: Any) -> Any:
    error = None if not_found is None else SessionNotFoundError(not_found)
    return client(tarsy, **options).get("/api/v1/history/sessions/s-1", not_found=error)


class TestStatusMapping:
    def test_a_200_is_the_decoded_json_and_carries_the_bearer_token(self) -> None:
        tarsy = PlayedTarsy(answer(200, {"session_id": "s-1"}))
        assert get(tarsy) == {"session_id": "s-1"}
        assert tarsy.requests[0].headers["authorization"] == "Bearer t0ken"

    def test_a_404_of_a_session_is_not_found_and_is_not_retried(self) -> None:
        tarsy = PlayedTarsy(answer(404, {"detail": "Session not found"}))
        with pytest.raises(SessionNotFoundError, match="session 's-1' was not found"):
            get(tarsy)
        assert len(tarsy.requests) == 1

    def test_a_404_of_a_list_is_a_wrong_base_url(self) -> None:
        with pytest.raises(
            SourceUnavailableError, match=r"has no /api/v1/history/sessions/s-1 \(404\).*SCORING_TARSY_URL"
        ):
            get(PlayedTarsy(answer(404)), not_found=None)

    @pytest.mark.parametrize("status", [500, 502, 503, 529])
    def test_a_5xx_is_retried_then_unavailable_with_the_status(self, status: int) -> None:
        tarsy = PlayedTarsy(answer(status, {"detail": "overloaded"}))
        with pytest.raises(SourceUnavailableError, match=rf"answered {status} .* after 3 attempts: .*overloaded"):
            get(tarsy)
        assert len(tarsy.requests) == 3

    def test_a_5xx_then_a_200_succeeds(self) -> None:
        tarsy = PlayedTarsy(answer(503), answer(200, {"ok": True}))
        assert get(tarsy) == {"ok": True}
        assert len(tarsy.requests) == 2

    @pytest.mark.parametrize("exc_type", [httpx.ReadTimeout, httpx.ConnectTimeout])
    def test_a_timeout_is_unavailable_naming_the_timeouts(self, exc_type: type[httpx.TransportError]) -> None:
        tarsy = PlayedTarsy(fail(exc_type))
        with pytest.raises(
            SourceUnavailableError, match=r"did not answer .* in time .*connect timeout 3s, read timeout 20s"
        ):
            get(tarsy)
        assert len(tarsy.requests) == 3

    def test_a_refused_connection_is_unavailable_without_the_address_or_the_error_class(self) -> None:
        with pytest.raises(SourceUnavailableError, match=r"cannot reach TARSy after 1 attempt; the service log") as got:
            get(PlayedTarsy(fail(httpx.ConnectError)), max_retries=0)
        assert "tarsy.example.com" not in got.value.message
        assert "ConnectError" not in got.value.message

    def test_a_timeout_then_an_answer_succeeds(self) -> None:
        assert get(PlayedTarsy(fail(httpx.ReadTimeout), answer(200, [1]))) == [1]

    @pytest.mark.parametrize("status", [401, 403])
    def test_refused_credentials_are_a_configuration_error_naming_the_setting(self, status: int) -> None:
        tarsy = PlayedTarsy(answer(status, {"detail": "Not authenticated"}))
        with pytest.raises(ConfigurationError, match=rf"refused our credentials \({status}\).*SCORING_TARSY_TOKEN"):
            get(tarsy)
        assert len(tarsy.requests) == 1

    def test_a_redirect_to_a_login_page_is_a_configuration_error(self) -> None:
        tarsy = PlayedTarsy(answer(302, location="https://sso.example.com/login"))
        with pytest.raises(ConfigurationError, match=r"redirected .*\(302\) to https://sso.example.com/login"):
            get(tarsy)

    def test_another_4xx_is_unavailable_and_not_retried(self) -> None:
        tarsy = PlayedTarsy(answer(429, {"detail": "slow down"}))
        with pytest.raises(SourceUnavailableError, match=r"answered 429 .*slow down"):
            get(tarsy)
        assert len(tarsy.requests) == 1

    def test_a_body_that_is_not_json_is_a_data_error(self) -> None:
        tarsy = PlayedTarsy(
            lambda request: httpx.Response(200, text="<html>login</html>", headers={"content-type": "text/html"})
        )
        with pytest.raises(SessionDataError, match=r"is not JSON .*content-type text/html, 18 bytes"):
            get(tarsy)

    def test_every_failure_is_one_of_our_errors(self) -> None:
        for responder in (answer(500), answer(401), answer(302), answer(418), fail(httpx.ReadError)):
            with pytest.raises(ScoringError):
                get(PlayedTarsy(responder), max_retries=0)

    def test_the_token_can_come_from_a_secret(self) -> None:
        tarsy = PlayedTarsy(answer(200, {}))
        get(tarsy, token="", token_secret_arn="arn:secret", secret_reader=lambda arn: f"from-{arn}")
        assert tarsy.requests[0].headers["authorization"] == "Bearer from-arn:secret"

    @pytest.mark.parametrize("base_url", ["", "tarsy.example.com"])
    def test_a_base_url_that_is_not_http_is_a_configuration_error(self, base_url: str) -> None:
        with pytest.raises(ConfigurationError, match="SCORING_TARSY_URL"):
            TarsyHttpClient(base_url)


def listing(sessions: list[dict[str, Any]], total_items: int, total_pages: int, page: int = 1) -> Responder:
    body = {
        "sessions": sessions,
        "pagination": {"page": page, "page_size": 2, "total_pages": total_pages, "total_items": total_items},
    }
    return answer(200, body)


class TestPaging:
    def test_tarsy_bot_pages_with_a_repeated_status_filter_and_a_capped_page_size(self) -> None:
        overview = {"session_id": "s-1", "status": "completed", "started_at_us": 1_700_000_000_000_000}
        tarsy = PlayedTarsy(listing([overview], total_items=3, total_pages=2, page=2))

        page = TarsySessionSource(client(tarsy)).list_sessions(2, 500, ["completed", "failed"])

        assert tarsy.requests[0].url.path == "/api/v1/history/sessions"
        assert tarsy.requests[0].url.params.get_list("status") == ["completed", "failed"]
        assert tarsy.requests[0].url.params["page_size"] == "100"
        assert (page.page, page.total_items, page.total_pages) == (2, 3, 2)
        assert page.items[0].session_id == "s-1"
        assert page.items[0].started_at is not None
        assert page.items[0].started_at.year == 2023

    def test_tarsy_go_pages_with_a_comma_separated_status_filter(self) -> None:
        tarsy = PlayedTarsy(listing([{"id": "g-1", "status": "completed", "chain_id": "k8s"}], 1, 1))

        page = TarsyGoSessionSource(client(tarsy)).list_sessions(1, 20, ["completed", "failed"])

        assert tarsy.requests[0].url.path == "/api/v1/sessions"
        assert tarsy.requests[0].url.params.get_list("status") == ["completed,failed"]
        assert [(s.session_id, s.agent_type) for s in page.items] == [("g-1", "k8s")]

    def test_without_a_status_filter_no_status_is_sent(self) -> None:
        tarsy = PlayedTarsy(listing([], 0, 0))
        TarsyGoSessionSource(client(tarsy)).list_sessions(1, 20)
        assert "status" not in tarsy.requests[0].url.params

    def test_a_missing_page_count_is_computed_from_the_items_and_is_at_least_one(self) -> None:
        assert TarsySessionSource(client(PlayedTarsy(listing([], 5, 0)))).list_sessions(1, 2).total_pages == 3
        assert TarsySessionSource(client(PlayedTarsy(listing([], 0, 0)))).list_sessions(1, 2).total_pages == 1

    def test_a_list_of_the_wrong_shape_names_the_field(self) -> None:
        tarsy = PlayedTarsy(answer(200, {"sessions": []}))
        with pytest.raises(SessionDataError, match=r"not a valid session list: field 'pagination'"):
            TarsyGoSessionSource(client(tarsy)).list_sessions(1, 20)

    def test_an_unknown_session_is_not_found_in_either_api(self) -> None:
        for source in (TarsySessionSource, TarsyGoSessionSource):
            with pytest.raises(SessionNotFoundError, match=r"session 'nope' was not found in TARSy$"):
                source(client(PlayedTarsy(answer(404)))).get_session("nope")

    def test_go_reads_the_session_then_its_timeline(self) -> None:
        session = {"id": "g-1", "status": "completed", "stages": []}
        tarsy = PlayedTarsy(answer(200, session), answer(200, {"events": []}))

        read = TarsyGoSessionSource(client(tarsy)).get_session("g-1")

        assert [r.url.path for r in tarsy.requests] == ["/api/v1/sessions/g-1", "/api/v1/sessions/g-1/timeline"]
        assert read.session_id == "g-1"
