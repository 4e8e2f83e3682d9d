"""Normalising TARSy documents: tarsy-bot DetailedSession, final-analysis response, Go session, chat transcripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from session_scoring.errors import SessionDataError, SessionNotFoundError
from session_scoring.sources.documents import parse_session_document
from session_scoring.sources.file import FileSessionSource
from session_scoring.sources.tarsy_go import parse_go_session
from tests.support.tarsy_fixtures import (
    FAILED_ID,
    FINAL_ANALYSIS_ID,
    GO_ID,
    NATIVE_ID,
    PARALLEL_ID,
    REACT_CHAT_ID,
    REACT_ID,
    TRANSCRIPT_ID,
    detailed,
    load,
    recorded_tool_calls,
)


def test_react_multistage_keeps_every_recorded_call_in_its_stage_with_arguments_and_results() -> None:
    document = detailed(REACT_ID)

    session = parse_session_document(document, "react.json")

    assert [s.name for s in session.stages] == ["data-collection", "verification", "analysis"]
    recorded = recorded_tool_calls(document)
    assert [(c.server, c.name, c.arguments) for c in session.tool_calls] == [
        (r["server_name"], r["tool_name"], r["tool_arguments"]) for r in recorded
    ]
    failed = [c for c in session.tool_calls if not c.success]
    assert [c.name for c in failed] == ["pods_log"]
    assert "previous terminated container not found" in (failed[0].error or "")
    assert [c.name for c in session.tool_calls if c.result_summarized] == ["events_list"]
    first_stage = session.stages[0]
    assert first_stage.steps[0].kind == "reasoning"
    assert first_stage.steps[-1].kind == "answer"
    assert first_stage.output == "OOM kill at the 1Gi limit; memory grows ~40Mi/min."
    assert {t.qualified_name for t in session.all_available_tools} >= {
        "kubernetes-server.pods_log",
        "prometheus-server.query_range",
    }
    assert session.started_at is not None
    assert session.started_at.year == 2025
    assert session.alert["namespace"] == "checkout"
    assert session.final_analysis
    assert "Xmx" in session.final_analysis


def test_native_thinking_reasoning_comes_from_thinking_content_in_order() -> None:
    session = parse_session_document(detailed(NATIVE_ID), "native.json")

    kinds = [s.kind for s in session.stages[0].steps]
    assert kinds == [
        "reasoning",
        "tool_call",
        "reasoning",
        "tool_call",
        "reasoning",
        "tool_call",
        "reasoning",
        "answer",
    ]
    calls = session.tool_calls
    assert calls[1].arguments == {"namespace": "checkout", "name": "checkout-api-7d9f", "previous": True}
    assert "DATABASE_URL is not set" in str(calls[1].result)
    assert not calls[2].success
    assert "not found" in (calls[2].error or "")


def test_parallel_agents_become_stages_of_one_parallel_group() -> None:
    session = parse_session_document(detailed(PARALLEL_ID), "parallel.json")

    parallel = [s for s in session.stages if s.parallel_group]
    assert [s.agent for s in parallel] == ["KubernetesAgent", "MetricsAgent"]
    assert len({s.parallel_group for s in parallel}) == 1
    assert [c.name for c in session.tool_calls] == ["pods_get", "query_range"]
    assert session.stages[-1].name == "synthesis"


def test_failed_stage_keeps_its_status_and_errors() -> None:
    session = parse_session_document(detailed(FAILED_ID), "failed.json")

    assert session.status == "failed"
    stage = session.stages[0]
    assert stage.status == "failed"
    assert "timed out" in (stage.error or "")
    assert "LLM request timed out after 120s" in (stage.error or "")
    assert not session.tool_calls[0].success
    assert session.error
    assert "kubernetes API unreachable" in session.error
    assert session.final_analysis is None


def test_a_tarsy_call_recorded_as_successful_whose_output_reports_a_failure_is_a_failure_inferred() -> None:
    document = detailed(REACT_ID)
    refused = 'Error from server (NotFound): pods "checkout-api-7d9f" not found'
    recorded_tool_calls(document)[0]["tool_result"] = {"result": refused}

    calls = parse_session_document(document, "react.json").tool_calls

    assert (calls[0].success, calls[0].failure_inferred, calls[0].error) == (False, True, refused)
    assert calls[0].result == refused
    # the calls the agent's framework recorded stay as recorded: a failure it recorded is not called inferred
    assert [(c.name, c.failure_inferred) for c in calls if not c.success] == [("pods_get", True), ("pods_log", False)]


def test_a_go_tarsy_call_not_marked_as_an_error_whose_output_reports_one_is_a_failure_inferred() -> None:
    timeline = load("go_timeline.json")
    first_call = next(event for event in timeline if event["event_type"] == "llm_tool_call")
    first_call["content"] = "Process exited with code 1\nerror: the server doesn't have a resource type pods"

    calls = parse_go_session(load("go_session.json"), timeline, "go").tool_calls

    assert (calls[0].success, calls[0].failure_inferred, calls[0].error) == (False, True, "Process exited with code 1")
    assert (calls[1].success, calls[1].failure_inferred) == (False, False)


@pytest.mark.parametrize("include_chat", [False, True])
def test_chat_follow_ups_are_included_only_when_asked(include_chat: bool) -> None:
    session = parse_session_document(detailed(REACT_CHAT_ID), "chat.json", include_chat=include_chat)

    chats = [s for s in session.stages if s.is_chat]
    assert len(chats) == (1 if include_chat else 0)
    if include_chat:
        assert chats[0].steps[0].text == "User question: Is the pod still restarting?"
        assert chats[0].tool_calls[0].result == "status: Running\nrestartCount: 15"


def test_final_analysis_response_keeps_earlier_stages_as_results_only() -> None:
    session = parse_session_document(load("final_analysis_response.json"), "fa.json", include_chat=True)

    assert session.session_id == FINAL_ANALYSIS_ID
    assert [s.name for s in session.stages] == ["data-collection", "verification", "analysis", "chat"]
    assert session.stages[0].output == "Final Answer: OOM kill at the 1Gi limit."
    assert "only the stage's result" in (session.stages[0].steps[0].text or "")
    assert [c.name for c in session.tool_calls] == ["pods_get"]


def test_chat_transcript_of_another_agent() -> None:
    session = parse_session_document(load("openai_chat_transcript.json"), "t.json")

    assert session.session_id == TRANSCRIPT_ID
    assert [c.qualified_name for c in session.tool_calls] == ["ssh.df", "ssh.du"]
    assert [t.qualified_name for t in session.available_tools] == ["ssh.df", "ssh.du", "ssh.journalctl"]
    assert session.final_analysis
    assert "pg_wal" in session.final_analysis
    assert session.stages[0].steps[0].text == "User: Disk on db-3 is 97% full. Investigate."


def test_go_session_and_timeline() -> None:
    session = parse_go_session(load("go_session.json"), load("go_timeline.json"), "go")

    assert session.session_id == GO_ID
    assert session.alert == {"alertname": "PodOOMKilled", "pod": "web-1", "namespace": "shop"}
    assert [(s.name, s.agent) for s in session.stages] == [
        ("investigation", "KubernetesAgent"),
        ("validation", "ConfigValidator"),
        ("validation", "LatencyValidator"),
    ]
    assert session.stages[1].parallel_group == session.stages[2].parallel_group is not None
    calls = session.tool_calls
    assert [(c.qualified_name, c.arguments) for c in calls[:2]] == [
        ("kubernetes.pods_list", {"namespace": "shop"}),
        ("prometheus.query", {"pod": "web-1"}),
    ]
    assert calls[0].result_summarized
    assert not calls[1].success
    assert calls[1].error == "metrics server unavailable"
    answers = [s for s in session.stages[0].steps if s.kind == "answer"]
    assert len(answers) == 1
    with_chat = parse_go_session(load("go_session.json"), load("go_timeline.json"), "go", include_chat=True)
    assert with_chat.stages[-1].is_chat
    assert with_chat.stages[-1].steps[0].text == "User question: Did it recover?"


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d["stages"][0].pop("stage_name"), "stages.0.stage_name"),
        (lambda d: d["stages"][0]["mcp_communications"][1]["details"].update(success="maybe"), "success"),
        (lambda d: d.update(status=None), "status"),
    ],
)
def test_a_malformed_detailed_session_names_the_field(mutate: Any, field: str) -> None:
    document = detailed(REACT_ID)
    mutate(document)

    with pytest.raises(SessionDataError) as raised:
        parse_session_document(document, "bad.json")

    assert field in raised.value.message
    assert "bad.json" in raised.value.message


def test_the_file_source_names_the_missing_field_of_a_broken_detailed_session(tmp_path: Path) -> None:
    document = detailed(REACT_ID)
    del document["stages"][2]["execution_id"]
    (tmp_path / f"{REACT_ID}.json").write_text(json.dumps(document))

    with pytest.raises(SessionDataError, match=r"DetailedSession: field 'stages.2.execution_id': Field required"):
        FileSessionSource(tmp_path).get_session(REACT_ID)


def test_a_malformed_go_timeline_names_the_event() -> None:
    with pytest.raises(SessionDataError, match="event 1 is not valid: field 'event_type'"):
        parse_go_session(load("go_session.json"), [{"event_type": "llm_thinking"}, {"content": "x"}], "go")


def test_file_source_reads_every_shape(tmp_path: Path) -> None:
    for name in ("react_multistage.json", "final_analysis_response.json", "openai_chat_transcript.json"):
        (tmp_path / name).write_text(json.dumps(load(name)))
    source = FileSessionSource(tmp_path)

    assert source.get_session(REACT_ID).stages[0].name == "data-collection"
    assert source.get_session(TRANSCRIPT_ID).agent_type == "OpsBot"
    assert source.list_sessions(1, 10).total_items == 3
    assert [s.session_id for s in source.list_sessions(1, 10, statuses=["failed"]).items] == []
    with pytest.raises(SessionNotFoundError):
        source.get_session(FAILED_ID)


def test_unrecognised_document_says_what_is_expected() -> None:
    with pytest.raises(SessionDataError, match="unrecognised session document"):
        parse_session_document({"hello": "world"}, "x.json")
