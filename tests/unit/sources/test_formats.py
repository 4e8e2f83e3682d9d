"""Other agents' trace formats: detection by shape, the mapping to the normalised session (what is kept, what is
dropped and said so), and errors that name the file, the line or field, and what was expected."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from session_scoring.errors import SessionDataError
from session_scoring.models.session import Session
from session_scoring.sources.documents import parse_trace
from session_scoring.sources.file import FileSessionSource
from session_scoring.sources.formats import TraceDocument, load_text
from session_scoring.sources.formats.common import DROPPED_PREFIX
from tests.support.labelled_traces import TRACES, load_trace


def parse(content: Any, origin: str = "t.json") -> tuple[str, Session]:
    return parse_trace(TraceDocument(content, origin))


def steps_of(session: Session) -> list[tuple[str, str]]:
    return [
        (s.kind, s.tool_call.qualified_name if s.tool_call else (s.text or "")[:30])
        for stage in session.stages
        for s in stage.steps
    ]


def dropped_note(session: Session) -> str:
    notes = [s.text for st in session.stages for s in st.steps if s.text and s.text.startswith(DROPPED_PREFIX)]
    assert len(notes) == 1
    return notes[0] or ""


@pytest.mark.parametrize(
    ("fixture", "trace_format", "calls", "failed"),
    [
        ("openai_chat_crashloop.json", "openai-chat", 5, ["kubernetes.secrets_get"]),
        ("openai_responses_disk.json", "openai-responses", 5, ["postgres.query"]),
        ("anthropic_checkout_latency.json", "anthropic-messages", 5, ["tracing_search"]),
        ("otel_genai_oom.json", "otel-genai", 5, ["prometheus_range_query"]),
        ("codex_cert_expiry.jsonl", "codex-jsonl", 5, ["shell"]),
        ("claude_code_node_notready.jsonl", "claude-code-jsonl", 4, ["Bash"]),
    ],
)
def test_each_fixture_maps_every_call_failure_reasoning_and_one_final_answer(
    fixture: str, trace_format: str, calls: int, failed: list[str]
) -> None:
    detected, session = load_trace(TRACES / fixture)

    assert detected == trace_format
    assert len(session.tool_calls) == calls
    assert [c.qualified_name for c in session.tool_calls if not c.success] == failed
    assert all(c.error for c in session.tool_calls if not c.success)
    assert all(c.result is not None for c in session.tool_calls if c.success)
    assert "unknown_tool" not in {c.name for c in session.tool_calls}
    assert any(s.kind == "reasoning" for st in session.stages for s in st.steps)
    assert session.final_analysis
    shown = [s.text for st in session.stages for s in st.steps if s.text]
    assert session.final_analysis not in shown, "the final answer must be shown once"
    assert session.stages[0].steps[0].text.startswith("User: ")  # type: ignore[union-attr]


def test_a_bare_list_of_openai_messages_is_accepted() -> None:
    trace_format, session = parse(
        [{"role": "user", "content": "disk full on db-3"}, {"role": "assistant", "content": "ok"}]
    )

    assert trace_format == "openai-chat"
    assert session.session_id == "t"
    assert session.final_analysis == "ok"


def test_openai_arguments_that_are_not_json_are_kept_whole() -> None:
    _, session = load_trace(TRACES / "openai_chat_crashloop.json")

    logs = session.tool_calls[1]
    assert logs.arguments == {
        "raw": '{"namespace": "payments", "name": "payments-api-7f9c6d-x2k4q", "previous": true, "tail": 50'
    }


def test_tool_messages_without_ids_match_by_name_then_order_without_duplicates() -> None:
    messages = [
        {"role": "user", "content": "check web-1"},
        {
            "type": "ai",
            "content": "",
            "tool_calls": [
                {"name": "pods_get", "args": {"pod": "web-1"}},
                {"name": "pods_log", "args": {"pod": "web-1"}},
            ],
        },
        {"type": "tool", "name": "pods_log", "content": "OOMKilled"},
        {"type": "tool", "content": "Running, 3 restarts", "status": "error"},
        {"type": "ai", "content": "web-1 is OOMKilled"},
    ]

    _, session = parse(messages)

    assert [(c.name, c.result, c.success) for c in session.tool_calls] == [
        ("pods_get", None, False),
        ("pods_log", "OOMKilled", True),
    ]
    assert session.tool_calls[0].error == "Running, 3 restarts"


def test_reasoning_content_and_thinking_blocks_are_kept_as_reasoning() -> None:
    _, session = parse(
        [
            {"role": "user", "content": "why?"},
            {
                "role": "assistant",
                "content": "checking",
                "reasoning_content": "r1 thinks",
                "thinking_blocks": [{"type": "thinking", "thinking": "t1 thinks"}],
                "tool_calls": [{"id": "c1", "function": {"name": "x.y", "arguments": "{}"}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '[{"type": "text", "text": "{\\"free\\": \\"15G\\"}"}]'},
            {"role": "assistant", "content": "15G free"},
        ]
    )

    assert [s.text for s in session.stages[0].steps if s.kind == "reasoning"] == ["r1 thinks", "t1 thinks", "checking"]
    assert session.tool_calls[0].result == {"free": "15G"}


def test_codex_output_wrapper_is_unwrapped_and_a_non_zero_exit_code_fails_the_call() -> None:
    _, session = load_trace(TRACES / "codex_cert_expiry.jsonl")

    assert session.session_id == "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
    assert session.started_at == datetime(2026, 11, 20, 10, 0, tzinfo=UTC)
    assert str(session.tool_calls[1].result).startswith("notBefore=Aug 22")
    assert session.tool_calls[2].error == "ssh: connect to host edge-2 port 22: Connection timed out"
    assert session.tool_calls[0].arguments["command"][0] == "bash"
    assert "Codex 'event_msg' line(s)" in dropped_note(session)
    assert "encrypted" not in dropped_note(session)  # reasoning with a summary is kept, not counted as dropped


def test_responses_items_keep_mcp_text_parts_and_say_what_was_dropped() -> None:
    _, session = load_trace(TRACES / "openai_responses_disk.json")

    assert session.alert["host"] == "db-3"
    assert [t.qualified_name for t in session.available_tools][:2] == ["ssh.df", "ssh.du"]
    assert (
        session.tool_calls[3].result
        == "slot_name | active | retained\nanalytics_cdc | f | 309 GB\nreplica_db4 | t | 48 MB"
    )
    note = dropped_note(session)
    assert "1 developer message(s)" in note
    assert "1 encrypted reasoning item(s)" in note


def test_anthropic_blocks_keep_thinking_tool_use_and_errors_and_drop_images_saying_so() -> None:
    _, session = load_trace(TRACES / "anthropic_checkout_latency.json")

    assert session.session_id == "anthropic-checkout-latency"
    kinds = steps_of(session)
    assert kinds[1][0] == "reasoning"
    assert session.tool_calls[0].arguments["query"].startswith("histogram_quantile")
    assert session.tool_calls[2].error == "tempo: query timed out after 30s"
    assert [t.name for t in session.available_tools] == [
        "prometheus_query",
        "kubernetes_pods_list",
        "kubernetes_pods_log",
        "tracing_search",
    ]
    assert dropped_note(session) == f"{DROPPED_PREFIX} 1 image block(s), 1 system prompt(s)]"


def test_claude_code_mcp_names_give_the_server() -> None:
    _, session = load_trace(TRACES / "claude_code_node_notready.jsonl")

    assert [c.qualified_name for c in session.tool_calls] == [
        "kubernetes.nodes_get",
        "Bash",
        "cloud.instance_describe",
        "kubernetes.pods_list",
    ]
    assert session.agent_type == "claude-code"
    assert "Claude Code 'summary' line(s)" in dropped_note(session)


def test_otel_spans_in_order_with_times_durations_and_error_status() -> None:
    _, session = load_trace(TRACES / "otel_genai_oom.json")

    assert session.session_id == "otel-oom-web-1"
    assert session.stages[0].name == "oom-investigator"
    assert session.started_at == datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    assert session.completed_at == datetime(2026, 11, 20, 9, 0, 42, tzinfo=UTC)
    calls = session.tool_calls
    assert [c.duration_ms for c in calls] == [900, 10000, 500, 2300, 400]
    assert calls[1].error == "prometheus: query exceeded 10s timeout"
    assert calls[2].result == "NAME   CPU(cores)   MEMORY(bytes)\nweb-1  212m         498Mi"
    assert [t.name for t in session.available_tools] == [
        "kubectl_describe_pod",
        "kubectl_top_pod",
        "prometheus_range_query",
        "kubectl_get_deployment",
    ]
    assert "non-GenAI span(s)" in dropped_note(session)


def test_otel_without_tool_spans_takes_calls_from_chat_messages() -> None:
    def span(sid: str, start: int, attrs: dict[str, str]) -> dict[str, Any]:
        return {
            "traceId": "t1",
            "spanId": sid,
            "name": "chat",
            "startTimeUnixNano": str(start),
            "endTimeUnixNano": str(start + 1),
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()],
        }

    out1 = [
        {"role": "assistant", "parts": [{"type": "tool_call", "id": "c1", "name": "df", "arguments": {"host": "a-1"}}]}
    ]
    in2 = [{"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "97% used"}]}]
    out2 = [{"role": "assistant", "parts": [{"type": "text", "content": "a-1 is 97% used"}]}]
    spans = [
        span("s1", 1, {"gen_ai.operation.name": "chat", "gen_ai.output.messages": json.dumps(out1)}),
        span(
            "s2",
            2,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": json.dumps(in2),
                "gen_ai.output.messages": json.dumps(out2),
            },
        ),
    ]

    _, session = parse({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})

    assert [(c.name, c.arguments, c.result) for c in session.tool_calls] == [("df", {"host": "a-1"}, "97% used")]
    assert session.final_analysis == "a-1 is 97% used"


@pytest.mark.parametrize(
    ("content", "origin", "message"),
    [
        (
            [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"arguments": "{}"}}]}],
            "a.json",
            "a.json: messages[0].tool_calls[0]: expected a tool call with a 'name'",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "tool_result", "content": "x"}]}]},
            "b.json",
            "b.json: messages[0].content[0]: expected a 'tool_result' block with the 'tool_use_id' of its call",
        ),
        (
            {"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "chat"}]}]}]},
            "c.json",
            "c.json: resourceSpans[0].scopeSpans[0].spans[0]: expected a span object with a 'spanId'",
        ),
        (
            [{"type": "function_call_output", "output": "x"}],
            "d.json",
            "d.json: items[0]: expected a 'function_call_output' item with the 'call_id' of its call",
        ),
    ],
)
def test_errors_name_the_file_the_field_and_what_was_expected(content: Any, origin: str, message: str) -> None:
    with pytest.raises(SessionDataError) as raised:
        parse(content, origin)

    assert raised.value.message == message


def test_json_lines_errors_name_the_line() -> None:
    text = (
        '{"type": "session_meta", "payload": {}}\n\n{"type": "response_item", "payload": {"type": "function_call"}}\n'
    )
    with pytest.raises(SessionDataError, match=r"^r\.jsonl: line 3: expected a 'function_call' item with a 'name'$"):
        parse_trace(load_text(text, "r.jsonl"))
    with pytest.raises(SessionDataError, match=r"^r\.jsonl: line 2: expected one JSON object per line"):
        load_text('{"a": 1}\n{"a": \n', "r.jsonl")


def test_a_type_error_deep_in_a_recognised_document_is_a_data_error() -> None:
    with pytest.raises(SessionDataError, match="looks like OpenAI chat messages"):
        parse([{"role": "assistant", "content": "x", "tool_calls": 5}])


def test_the_file_source_reads_jsonl_and_lists_unreadable_files_as_skipped(tmp_path: Path) -> None:
    (tmp_path / "codex.jsonl").write_bytes((TRACES / "codex_cert_expiry.jsonl").read_bytes())
    (tmp_path / "empty.json").write_text("")
    (tmp_path / "notes.txt").write_text("not a session")
    source = FileSessionSource(tmp_path)

    page = source.list_sessions(1, 10)

    assert [(s.session_id, s.source) for s in page.items] == [("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "file")]
    assert [(s.origin, s.error) for s in page.skipped] == [
        ("empty.json", "empty.json: the file is empty; expected a JSON document or JSON Lines")
    ]
    assert len(source.get_session("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b").tool_calls) == 5
