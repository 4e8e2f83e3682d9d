"""The JSON HTTP client as the trace stores configure it, over real HTTP: timeouts, retries and what each failure
becomes.

The scripted loopback server (``tests/support/fake_tarsy.py``) stands for any HTTP server here: these tests are about
the client's handling of statuses and bodies, not about either store (those run against the real servers in
``tests/trace_stores``).
"""

from __future__ import annotations

from typing import Any

import pytest

from session_scoring.errors import (
    ConfigurationError,
    SourceUnavailableError,
    WriteBackRejectedError,
    WriteBackUnavailableError,
)
from session_scoring.infrastructure.json_http import JsonHttpClient
from tests.support.fake_tarsy import FakeTarsy, TarsyReply, quick_client_options

PATH = "/v1/projects/agents/spans"


def _client(fake: FakeTarsy, **options: Any) -> JsonHttpClient:
    return JsonHttpClient(
        "Phoenix",
        fake.base_url,
        url_setting="session_source.base_url (SCORING_SOURCE_URL)",
        credential_settings="SCORING_SOURCE_TOKEN",
        unavailable=WriteBackUnavailableError,
        rejected=WriteBackRejectedError,
        **quick_client_options("px-key", **options),
    )


def test_a_5xx_is_retried_and_the_answer_after_it_is_used(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.script(PATH, TarsyReply(503, {"detail": "busy"}), TarsyReply(200, {"data": [], "next_cursor": None}))

    assert _client(fake_tarsy).get(PATH) == {"data": [], "next_cursor": None}
    requests = fake_tarsy.requests_to(PATH)
    assert len(requests) == 2
    assert requests[0].headers["authorization"] == "Bearer px-key"


def test_a_store_that_keeps_failing_is_unavailable_with_its_answer(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.script(PATH, *[TarsyReply(502, {"detail": "bad gateway"})] * 3)

    with pytest.raises(WriteBackUnavailableError, match=r"Phoenix answered 502 .* after 3 attempts: .*bad gateway"):
        _client(fake_tarsy).get(PATH)


def test_a_store_that_does_not_answer_in_time_is_unavailable_naming_the_timeouts(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.script(PATH, TarsyReply(200, {}, delay_seconds=1.5))

    with pytest.raises(WriteBackUnavailableError, match=r"read timeout 0\.5s"):
        _client(fake_tarsy, read_timeout_seconds=0.5, max_retries=0).get(PATH)


@pytest.mark.parametrize("status", [401, 403, 302])
def test_refused_credentials_or_a_login_redirect_name_the_settings(fake_tarsy: FakeTarsy, status: int) -> None:
    fake_tarsy.script(PATH, TarsyReply(status, {"detail": "no"}))

    with pytest.raises(ConfigurationError, match="SCORING_SOURCE_TOKEN"):
        _client(fake_tarsy).get(PATH)
    assert len(fake_tarsy.requests_to(PATH)) == 1


def test_a_404_is_none_when_allowed_else_a_wrong_address(fake_tarsy: FakeTarsy) -> None:
    assert _client(fake_tarsy).get(PATH, missing_ok=True) is None
    with pytest.raises(WriteBackUnavailableError, match="SCORING_SOURCE_URL"):
        _client(fake_tarsy).get(PATH)


def test_another_4xx_is_rejected_with_the_stores_words_and_not_retried(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.script(PATH, TarsyReply(422, {"detail": "Invalid cursor"}))

    with pytest.raises(WriteBackRejectedError, match="Invalid cursor"):
        _client(fake_tarsy).get(PATH)
    assert len(fake_tarsy.requests_to(PATH)) == 1


def test_an_answer_that_is_not_json_says_so(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.script(PATH, TarsyReply(200, raw="<html>login</html>"))

    with pytest.raises(WriteBackUnavailableError, match="not JSON"):
        _client(fake_tarsy).get(PATH)


def test_an_unreachable_store_is_unavailable() -> None:
    client = JsonHttpClient(
        "MLflow",
        "http://127.0.0.1:9",
        url_setting="u",
        credential_settings="c",
        unavailable=SourceUnavailableError,
        rejected=SourceUnavailableError,
        max_retries=0,
    )
    with pytest.raises(SourceUnavailableError, match=r"cannot reach MLflow after 1 attempt"):
        client.post("/api/3.0/mlflow/traces/search", {})


def test_the_address_must_be_http() -> None:
    with pytest.raises(ConfigurationError, match="not an http"):
        JsonHttpClient(
            "MLflow",
            "mlflow:5000",
            url_setting="SCORING_SOURCE_URL",
            credential_settings="c",
            unavailable=SourceUnavailableError,
            rejected=SourceUnavailableError,
        )
