"""The TARSy sources against a fake TARSy over real HTTP, alone and through the whole local stack."""

from __future__ import annotations

import json
import socket
from typing import Any

import pytest

from session_scoring.errors import (
    ConfigurationError,
    SessionDataError,
    SessionNotFoundError,
    SourceUnavailableError,
)
from session_scoring.sources.http import TarsyGoSessionSource, TarsyHttpClient, TarsySessionSource
from tests.support.fake_tarsy import FakeTarsy, TarsyReply, quick_client_options
from tests.support.tarsy_fixtures import (
    FAILED_ID,
    GO_ID,
    NATIVE_ID,
    PARALLEL_ID,
    REACT_ID,
    detailed,
    load,
    recorded_tool_calls,
)

UNKNOWN_ID = "11111111-2222-4333-8444-555555555555"


def _source(fake: FakeTarsy, **options: Any) -> TarsySessionSource:
    return TarsySessionSource(TarsyHttpClient(fake.base_url, **quick_client_options("secret-token", **options)))


def _path(session_id: str) -> str:
    return f"/api/v1/history/sessions/{session_id}"


def test_reads_the_whole_investigation_with_the_bearer_token(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.token = "secret-token"
    fake_tarsy.add_detailed(detailed(REACT_ID))

    session = _source(fake_tarsy).get_session(REACT_ID)

    assert [s.name for s in session.stages] == ["data-collection", "verification", "analysis"]
    assert len(session.tool_calls) == len(recorded_tool_calls(detailed(REACT_ID)))
    assert fake_tarsy.requests_to(_path(REACT_ID))[0].headers["authorization"] == "Bearer secret-token"
    assert not any(r.path.endswith("/final-analysis") for r in fake_tarsy.requests)


def test_unknown_session_is_not_found(fake_tarsy: FakeTarsy) -> None:
    with pytest.raises(SessionNotFoundError, match=UNKNOWN_ID):
        _source(fake_tarsy).get_session(UNKNOWN_ID)
    assert len(fake_tarsy.requests) == 1  # a 404 is an answer, not retried


@pytest.mark.parametrize("status", [401, 403])
def test_refused_credentials_name_the_setting_to_fix(fake_tarsy: FakeTarsy, status: int) -> None:
    fake_tarsy.script(_path(REACT_ID), TarsyReply(status, {"detail": "Not authenticated"}))

    with pytest.raises(ConfigurationError) as raised:
        _source(fake_tarsy).get_session(REACT_ID)

    assert "SCORING_TARSY_TOKEN" in raised.value.message
    assert str(status) in raised.value.message
    assert len(fake_tarsy.requests) == 1


def test_a_redirect_to_a_login_page_is_a_configuration_error(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.script(_path(REACT_ID), TarsyReply(302, {}))

    with pytest.raises(ConfigurationError, match=r"redirected .*oauth2-proxy .*SCORING_TARSY_TOKEN"):
        _source(fake_tarsy).get_session(REACT_ID)


def test_a_500_then_a_200_is_retried_and_succeeds(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.add_detailed(detailed(NATIVE_ID))
    fake_tarsy.script(_path(NATIVE_ID), TarsyReply(500, {"detail": "database is restarting"}))

    session = _source(fake_tarsy).get_session(NATIVE_ID)

    assert session.session_id == NATIVE_ID
    assert len(fake_tarsy.requests_to(_path(NATIVE_ID))) == 2


def test_5xx_until_the_retries_run_out_is_unavailable_with_the_status(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.script(_path(REACT_ID), *[TarsyReply(503, {"detail": "overloaded"})] * 3)

    with pytest.raises(SourceUnavailableError, match=r"503 .*after 3 attempts: .*overloaded"):
        _source(fake_tarsy, max_retries=2).get_session(REACT_ID)
    assert len(fake_tarsy.requests) == 3


def test_a_response_slower_than_the_read_timeout_is_unavailable(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.add_detailed(detailed(REACT_ID))
    fake_tarsy.script(_path(REACT_ID), TarsyReply(200, detailed(REACT_ID), delay_seconds=1.5))

    with pytest.raises(SourceUnavailableError, match=r"did not answer .* in time .*read timeout 0.3s"):
        _source(fake_tarsy, read_timeout_seconds=0.3, max_retries=0).get_session(REACT_ID)


def test_a_timeout_then_a_fast_answer_is_retried(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.add_detailed(detailed(REACT_ID))
    fake_tarsy.script(_path(REACT_ID), TarsyReply(200, detailed(REACT_ID), delay_seconds=1.0))

    session = _source(fake_tarsy, read_timeout_seconds=0.3, max_retries=1).get_session(REACT_ID)

    assert session.session_id == REACT_ID


def test_malformed_json_is_a_data_error_never_a_half_built_session(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.script(_path(REACT_ID), TarsyReply(200, raw='{"session_id": "x", "stages": [ {'))

    with pytest.raises(SessionDataError, match="not JSON"):
        _source(fake_tarsy).get_session(REACT_ID)


def test_json_of_the_wrong_shape_names_the_field(fake_tarsy: FakeTarsy) -> None:
    broken = detailed(REACT_ID)
    del broken["stages"][1]["execution_id"]
    fake_tarsy.script(_path(REACT_ID), TarsyReply(200, broken))

    with pytest.raises(SessionDataError, match=r"field 'stages.1.execution_id'"):
        _source(fake_tarsy).get_session(REACT_ID)


def test_an_unreachable_tarsy_is_unavailable_naming_no_address() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = TarsyHttpClient(f"http://127.0.0.1:{port}", max_retries=1, retry_base_seconds=0)

    with pytest.raises(SourceUnavailableError, match=r"cannot reach TARSy after 2 attempts") as got:
        TarsySessionSource(client).get_session(REACT_ID)
    assert "127.0.0.1" not in got.value.message


def test_the_token_can_come_from_secrets_manager(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.token = "from-the-secret"
    fake_tarsy.add_detailed(detailed(REACT_ID))
    arns: list[str] = []

    def reader(arn: str) -> str:
        arns.append(arn)
        return "from-the-secret"

    source = _source(
        fake_tarsy, token="", token_secret_arn="arn:aws:secretsmanager:x:1:secret:tarsy", secret_reader=reader
    )

    assert source.get_session(REACT_ID).session_id == REACT_ID
    assert source.get_session(REACT_ID).session_id == REACT_ID
    assert arns == ["arn:aws:secretsmanager:x:1:secret:tarsy"] * 2  # read per request (Powertools caches it)


def test_the_stack_reads_the_token_from_secrets_manager(
    make_stack: Any, tarsy_env: dict[str, str], fake_tarsy: FakeTarsy, moto_endpoint: str
) -> None:
    from devstack.aws import client

    secrets = client("secretsmanager", moto_endpoint)
    arn = secrets.create_secret(Name=f"tarsy-token-{id(fake_tarsy)}", SecretString="token-in-secrets-manager")["ARN"]
    fake_tarsy.token = "token-in-secrets-manager"
    fake_tarsy.add_detailed(detailed(NATIVE_ID))
    stack = make_stack(**{**tarsy_env, "SCORING_TARSY_TOKEN": ""}, SCORING_TARSY_TOKEN_SECRET_ARN=arn)

    assert stack.request_score(NATIVE_ID).status_code == 202
    assert fake_tarsy.requests_to(_path(NATIVE_ID))[-1].headers["authorization"] == "Bearer token-in-secrets-manager"


def test_list_pages_through_tarsy_with_its_status_filter(fake_tarsy: FakeTarsy) -> None:
    for session_id in (REACT_ID, NATIVE_ID, PARALLEL_ID, FAILED_ID):
        fake_tarsy.add_detailed(detailed(session_id))
    source = _source(fake_tarsy)

    first = source.list_sessions(1, 3)
    second = source.list_sessions(2, 3)
    completed = source.list_sessions(1, 10, statuses=["completed"])

    assert (first.total_items, first.total_pages, len(first.items), len(second.items)) == (4, 2, 3, 1)
    assert {s.session_id for s in first.items + second.items} == {REACT_ID, NATIVE_ID, PARALLEL_ID, FAILED_ID}
    assert FAILED_ID not in {s.session_id for s in completed.items}
    assert fake_tarsy.requests[-1].query["status"] == ["completed"]
    assert first.items[0].started_at is not None


def test_go_source_reads_session_and_timeline_and_lists(fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.add_go(load("go_session.json"), load("go_timeline.json"))
    client = TarsyHttpClient(fake_tarsy.base_url, retry_base_seconds=0)
    source = TarsyGoSessionSource(client)

    session = source.get_session(GO_ID)
    page = source.list_sessions(1, 20, statuses=["completed"])

    assert [c.name for c in session.tool_calls] == ["pods_list", "query", "resources_get", "latency"]
    assert [s.session_id for s in page.items] == [GO_ID]
    assert fake_tarsy.requests[-1].query["status"] == ["completed"]
    with pytest.raises(SessionNotFoundError):
        source.get_session(UNKNOWN_ID)


# --- through the local stack -------------------------------------------------------------------------------------


def test_api_answers_404_for_a_session_tarsy_does_not_know(tarsy_stack: Any) -> None:
    response = tarsy_stack.request_score(UNKNOWN_ID)

    assert response.status_code == 404
    assert response.json()["code"] == "session_not_found"
    assert "127.0.0.1" not in response.text
    assert "http://" not in response.text


def test_api_answers_503_with_the_reason_when_tarsy_is_down(tarsy_stack: Any, fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.script(_path(REACT_ID), *[TarsyReply(502, {"detail": "bad gateway"})] * 2)

    response = tarsy_stack.request_score(REACT_ID)

    assert response.status_code == 503
    body = response.json()
    assert body["code"] == "source_unavailable"
    assert "502" in body["detail"]
    assert tarsy_stack.client.get(f"/api/v1/scoring/sessions/{REACT_ID}/score").status_code == 404


def test_api_reports_refused_credentials_as_a_configuration_error(tarsy_stack: Any, fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.token = "another-token"
    fake_tarsy.add_detailed(detailed(REACT_ID))

    response = tarsy_stack.request_score(REACT_ID)

    assert response.status_code == 500
    assert "SCORING_TARSY_TOKEN" in response.json()["detail"]


def test_api_refuses_a_failed_session_by_default(tarsy_stack: Any, fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.add_detailed(detailed(FAILED_ID))

    response = tarsy_stack.request_score(FAILED_ID)

    assert response.status_code == 400
    assert response.json()["code"] == "session_not_scorable"


def test_a_setting_may_admit_failed_sessions(make_stack: Any, tarsy_env: dict[str, str], fake_tarsy: FakeTarsy) -> None:
    fake_tarsy.add_detailed(detailed(FAILED_ID))
    stack = make_stack(**tarsy_env, SCORING_SCORABLE_STATUSES="[completed, failed]")

    assert stack.request_score(FAILED_ID).status_code == 202
    stack.poller.drain()

    assert stack.score(FAILED_ID).json()["status"] == "completed"


def test_api_session_list_pages_through_tarsy(tarsy_stack: Any, fake_tarsy: FakeTarsy) -> None:
    for session_id in (REACT_ID, NATIVE_ID, PARALLEL_ID):
        fake_tarsy.add_detailed(detailed(session_id))

    first = tarsy_stack.client.get("/api/v1/scoring/sessions?page=1&page_size=2").json()
    second = tarsy_stack.client.get("/api/v1/scoring/sessions?page=2&page_size=2").json()

    assert (first["total_items"], first["total_pages"], len(first["items"]), len(second["items"])) == (3, 2, 2, 1)
    assert [r.query["page"] for r in fake_tarsy.requests_to("/api/v1/history/sessions")] == [["1"], ["2"]]


def test_judge_input_holds_every_tool_call_of_every_stage_and_the_available_tools(
    tarsy_claude_stack: Any, fake_tarsy: FakeTarsy, fake_claude: Any
) -> None:
    document = detailed(REACT_ID)
    fake_tarsy.add_detailed(document)

    assert tarsy_claude_stack.request_score(REACT_ID).status_code == 202
    tarsy_claude_stack.poller.drain()

    score = tarsy_claude_stack.score(REACT_ID).json()
    assert score["status"] == "completed", score["error_message"]
    judge_input = fake_claude.requests[0]["messages"][0]["content"]
    recorded = recorded_tool_calls(document)
    assert {r["tool_name"] for r in recorded} >= {"pods_get", "pods_log", "events_list", "query_range", "resources_get"}
    for call in recorded:
        arguments = json.dumps(call["tool_arguments"], sort_keys=True, ensure_ascii=False)
        assert f"TOOL CALL {call['server_name']}.{call['tool_name']} arguments={arguments}" in judge_input
    for stage_number, name in enumerate(["data-collection", "verification", "analysis"], start=1):
        assert f"### Stage {stage_number}: {name}" in judge_input
    tools = judge_input[judge_input.index("## AVAILABLE TOOLS") : judge_input.index("## INVESTIGATION")]
    for tool in ("pods_get", "pods_log", "events_list", "resources_get"):
        assert f"- kubernetes-server.{tool}:" in tools
    assert "- prometheus-server.query_range:" in tools
    assert score["judge"]["prompt_compacted"] is False


@pytest.mark.parametrize("session_id", [REACT_ID, NATIVE_ID])
def test_a_tarsy_session_in_either_style_scores_end_to_end(
    tarsy_claude_stack: Any, fake_tarsy: FakeTarsy, fake_claude: Any, session_id: str
) -> None:
    fake_tarsy.add_detailed(detailed(session_id))

    tarsy_claude_stack.request_score(session_id)
    assert tarsy_claude_stack.poller.drain() == 1

    score = tarsy_claude_stack.score(session_id).json()
    assert score["status"] == "completed", score["error_message"]
    assert score["total_score"] == 67
    assert score["judge"]["provider"] == "anthropic"
    assert "REASONING:" in fake_claude.requests[0]["messages"][0]["content"]


@pytest.mark.parametrize("session_id", [REACT_ID, NATIVE_ID, PARALLEL_ID])
def test_the_heuristic_judge_scores_tarsy_sessions_too(
    tarsy_stack: Any, fake_tarsy: FakeTarsy, session_id: str
) -> None:
    fake_tarsy.add_detailed(detailed(session_id))

    tarsy_stack.request_score(session_id)
    tarsy_stack.poller.drain()

    score = tarsy_stack.score(session_id).json()
    assert score["status"] == "completed", score["error_message"]
    assert 0 <= score["total_score"] <= 100


def test_compaction_is_recorded_on_the_score(
    make_stack: Any, tarsy_env: dict[str, str], fake_tarsy: FakeTarsy, fake_claude: Any
) -> None:
    document = detailed(REACT_ID)
    events = document["stages"][0]["mcp_communications"][4]["details"]
    events["tool_result"] = {"result": "Warning BackOff restarting failed container\n" * 6000}
    fake_tarsy.add_detailed(document)
    stack = make_stack(
        **tarsy_env,
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_INPUT_BUDGET_TOKENS="30000",
    )

    stack.request_score(REACT_ID)
    stack.poller.drain()

    judge = stack.score(REACT_ID).json()["judge"]
    assert judge["prompt_compacted"] is True
    assert judge["prompt_tokens_before"] > 30_000 >= judge["prompt_tokens_after"]
    assert "characters of this tool result cut here" in fake_claude.requests[0]["messages"][0]["content"]


def test_a_session_too_large_to_fit_fails_its_attempt_with_the_reason(
    make_stack: Any, tarsy_env: dict[str, str], fake_tarsy: FakeTarsy, fake_claude: Any
) -> None:
    document = detailed(REACT_ID)
    document["alert_data"]["dump"] = "x" * 200_000
    fake_tarsy.add_detailed(document)
    stack = make_stack(
        **tarsy_env,
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_INPUT_BUDGET_TOKENS="20000",
    )

    stack.request_score(REACT_ID)
    stack.poller.drain()

    score = stack.score(REACT_ID).json()
    assert score["status"] == "failed"
    assert "does not fit the judge's input budget" in score["error_message"]
    assert fake_claude.requests == []
