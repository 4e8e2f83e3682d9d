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
from session_scoring.sources.documents import parse_trace, parse_traces
from session_scoring.sources.file import FileSessionSource
from session_scoring.sources.formats import MAX_DEPTH, TraceDocument, load_text, nesting_depth
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


FACTS = TRACES / "facts"


def load_fact(name: str, submit_tools: frozenset[str] | None = None) -> tuple[str, Session]:
    path = FACTS / name
    text = path.read_text(encoding="utf-8")
    document = load_text(text, path.name) if submit_tools is None else load_text(text, path.name, submit_tools)
    return parse_trace(document)


def outcomes(session: Session) -> list[str]:
    return [
        "ok" if call.success else ("inferred" if call.failure_inferred else "recorded") for call in session.tool_calls
    ]


def reasoned_calls(session: Session) -> int:
    count, since = 0, False
    for step in (s for stage in session.stages for s in stage.steps):
        if step.kind == "reasoning":
            since = True
        elif step.tool_call is not None:
            count, since = count + since, False
    return count


def test_current_claude_code_line_types_are_skipped_and_counted_never_refused() -> None:
    trace_format, session = load_fact("claude_code_current_lines.jsonl")

    assert trace_format == "claude-code-jsonl"
    skipped = {item.what: item.count for item in session.skipped_content}
    assert skipped["Claude Code 'queue-operation' line(s)"] == 2
    for kind in ("attachment", "ai-title", "last-prompt", "summary", "system", "file-history-snapshot"):
        assert skipped[f"Claude Code '{kind}' line(s)"] == 1
    assert all(item.reason for item in session.skipped_content)
    assert "Claude Code 'queue-operation' line(s)" in dropped_note(session)
    assert len(session.tool_calls) == 5


def test_a_line_type_no_release_has_written_yet_is_skipped_too() -> None:
    lines = (FACTS / "claude_code_current_lines.jsonl").read_text().splitlines()
    lines.insert(3, json.dumps({"type": "x-future-line", "sessionId": "s", "payload": [1, 2]}))
    codex = (FACTS / "codex_rollout_narrated.jsonl").read_text()

    _, claude = parse_trace(load_text("\n".join(lines), "c.jsonl"))
    codex_format, rollout = parse_trace(load_text(codex, "r.jsonl"))

    assert {i.what: i.count for i in claude.skipped_content}["Claude Code 'x-future-line' line(s)"] == 1
    assert codex_format == "codex-jsonl"
    skipped = {i.what: i for i in rollout.skipped_content}
    assert skipped["Codex 'x_telemetry' line(s)"].reason == "a line or item type the importer does not read"
    assert skipped["'ghost_snapshot' item(s)"].count == 1
    assert skipped["Codex context message(s)"].count == 1  # <environment_context> is not the task
    assert rollout.stages[0].steps[0].text == (
        "User: Alert JobFailed: the nightly job invoice-export on host batch-3 failed at 02:00. Find out why."
    )


@pytest.mark.parametrize("shape", ["class names", "messages_to_dict", "dumpd"])
def test_langchain_messages_with_class_name_types_are_read_like_the_short_types(shape: str) -> None:
    document = json.loads((FACTS / "langchain_class_names.json").read_text())

    def reshaped(message: dict[str, Any]) -> dict[str, Any]:
        if shape == "messages_to_dict":
            short = {"SystemMessage": "system", "HumanMessage": "human", "AIMessage": "ai", "ToolMessage": "tool"}
            return {"type": short[message["type"]], "data": {**message, "type": short[message["type"]]}}
        if shape == "dumpd":
            kwargs = {k: v for k, v in message.items() if k != "type"}
            return {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", message["type"]],
                    "kwargs": kwargs}  # fmt: skip
        return message

    trace_format, session = parse({**document, "messages": [reshaped(m) for m in document["messages"]]})

    assert trace_format == "openai-chat"
    assert [c.name for c in session.tool_calls] == ["ssh_exec", "ssh_exec", "prometheus_query"]
    assert session.tool_calls[0].arguments == {"host": "cache-2", "command": "ps aux --sort=-rss | head -n 3"}
    assert outcomes(session) == ["ok", "recorded", "inferred"]
    assert session.final_analysis is not None
    assert session.final_analysis.startswith("memcached on cache-2")
    assert reasoned_calls(session) == 2


def test_the_answer_before_a_simulated_users_stop_is_the_final_answer() -> None:
    _, session = load_fact("tau_bench_stop.json")

    assert session.final_answer_source == "last_assistant_text"
    assert session.final_analysis is not None
    assert session.final_analysis.startswith("Your return for the Water Bottle (item 4579334072) is requested")
    assert steps_of(session)[-2] == ("message", "User: ###STOP###")


def test_a_submit_tools_arguments_are_the_final_answer_and_configuration_names_the_tools() -> None:
    _, submitted = load_fact("submit_tool_answer.json")
    _, not_configured = load_fact("submit_tool_answer.json", submit_tools=frozenset())

    assert submitted.final_answer_source == "submit_tool:submit"
    assert submitted.final_analysis is not None
    assert submitted.final_analysis.startswith("checkout-web (gunicorn, PID 4412) listens on 127.0.0.1:8081")
    assert [c.name for c in submitted.tool_calls] == ["systemctl_status", "read_file", "run_command"]
    assert not_configured.final_analysis is None
    assert [c.name for c in not_configured.tool_calls][-1] == "submit"


def test_failures_written_as_text_are_marked_failed_as_inferred_beside_recorded_ones() -> None:
    _, session = load_fact("failures_as_text.json")

    assert outcomes(session) == ["inferred"] * 5 + ["ok", "ok", "recorded"]
    inferred = [c for c in session.tool_calls if c.failure_inferred]
    assert [c.error for c in inferred] == [
        "error: You must be logged in to the server (Unauthorized)",
        'Error from server (Forbidden): pods is forbidden: User "agent" cannot list resource "pods" in API group "" '
        'in the namespace "web"',
        "ModuleNotFoundError: No module named 'gateway_client' (a Python traceback)",
        "bash: stern: command not found",
        "HTTP/1.1 503 Service Unavailable",
    ]
    assert inferred[0].result == "error: You must be logged in to the server (Unauthorized)"  # the output is kept
    recorded = session.tool_calls[-1]
    assert (recorded.failure_inferred, recorded.error, recorded.result) == (False, "connection reset by peer", None)


def test_narration_written_as_its_own_item_is_the_reasoning_that_led_to_the_call() -> None:
    _, codex = load_fact("codex_rollout_narrated.jsonl")
    _, claude = load_fact("claude_code_current_lines.jsonl")

    assert reasoned_calls(codex) == len(codex.tool_calls) == 4
    assert steps_of(codex)[1] == ("reasoning", "Checking the job's log on batc")
    assert reasoned_calls(claude) == 4  # the fifth call followed its result directly
    assert not any(s.kind == "message" and not (s.text or "").startswith(("User:", DROPPED_PREFIX))
                   for st in claude.stages for s in st.steps)  # fmt: skip


def test_reasoning_in_both_reasoning_content_and_thinking_blocks_is_shown_once() -> None:
    _, session = load_fact("holmes_duplicated_reasoning.json")

    reasoning = [s.text for st in session.stages for s in st.steps if s.kind == "reasoning"]
    assert len(reasoning) == 2
    assert reasoning[0] is not None
    assert reasoning[0].startswith("The alert says the PVC is almost full")


def test_a_calls_duration_is_derived_from_the_timestamps_of_its_lines() -> None:
    _, claude = load_fact("claude_code_current_lines.jsonl")
    _, codex = load_fact("codex_rollout_narrated.jsonl")

    assert [c.duration_ms for c in claude.tool_calls] == [1250, 800, 700, 1500, 800]
    assert [c.duration_ms for c in codex.tool_calls] == [1200, 250, 800, 800]
    assert claude.started_at == datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
    assert claude.completed_at == datetime(2026, 11, 21, 9, 0, 16, tzinfo=UTC)


def test_a_document_of_many_trajectories_is_read_as_one_session_each_or_refused_as_one() -> None:
    document = load_text((FACTS / "benchmark_results.json").read_text(), "results.json")

    sessions = parse_traces(document)
    with pytest.raises(SessionDataError) as refused:
        parse_trace(document)

    assert [(fmt, s.session_id) for fmt, s in sessions] == [("openai-chat", str(n)) for n in (100, 101, 102)]
    assert [outcomes(s) for _, s in sessions] == [["ok", "ok"], ["ok", "inferred"], ["ok", "ok"]]
    assert sessions[1][1].final_analysis == "Reservation 8JX2WO is not cancellable under the policy."
    assert "holds 3 trajectories" in refused.value.message
    assert "POST /api/v1/scoring/sessions:import" in refused.value.message


def test_a_file_holding_many_trajectories_is_listed_as_skipped_saying_how_to_import_it(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_bytes((FACTS / "benchmark_results.json").read_bytes())

    page = FileSessionSource(tmp_path).list_sessions(1, 10)

    assert page.items == []
    assert "holds 3 trajectories" in page.skipped[0].error
    assert "sessions:import" in page.skipped[0].error


@pytest.mark.parametrize("depth", [101, 300, 900, 100_000])
@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_nesting_beyond_the_limit_is_refused_before_parsing_naming_the_limit(depth: int, suffix: str) -> None:
    deep = '{"messages": ' + "[" * depth + "]" * depth + "}"
    text = deep if suffix == ".json" else '{"role": "user", "content": "hi"}\n' + deep + "\n"

    with pytest.raises(SessionDataError) as refused:
        load_text(text, f"deep{suffix}")

    assert f"{depth + 1} levels deep" in refused.value.message
    assert f"the limit is {MAX_DEPTH} levels" in refused.value.message
    if suffix == ".jsonl":
        assert "(line 2)" in refused.value.message


def test_nesting_up_to_the_limit_and_brackets_inside_strings_are_accepted() -> None:
    within = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    brackets = json.dumps({"messages": [{"role": "user", "content": "[[[[" * 500}]})

    assert load_text(within, "ok.json").content == load_text(within, "ok.json").content
    assert nesting_depth(brackets) == 3
    assert load_text(brackets, "b.json").content["messages"][0]["content"] == "[[[[" * 500


def test_a_nul_character_in_any_string_is_refused_naming_its_line_and_path() -> None:
    chat = json.dumps({"messages": [{"role": "user", "content": "ok"}, {"role": "tool", "content": "a\u0000b"}]})
    lines = '{"type": "user", "message": {"role": "user", "content": "x"}}\n{"type": "x", "payload": {"k\\u0000": 1}}\n'

    with pytest.raises(SessionDataError) as in_json:
        load_text(chat, "chat.json")
    with pytest.raises(SessionDataError) as in_lines:
        load_text(lines, "log.jsonl")

    assert "chat.json: $.messages[1].content: a string holds a NUL character" in in_json.value.message
    assert "log.jsonl: line 2: $.payload (the key 'k<NUL>')" in in_lines.value.message


def test_a_chat_log_with_a_header_line_and_an_unknown_role_is_read_skipping_them() -> None:
    text = "\n".join(
        json.dumps(line)
        for line in [
            {"session": "s-9", "exported_by": "agent-cli 1.4"},
            {"role": "user", "content": "db-3 is slow"},
            {"role": "ipython", "content": "In [1]: ..."},
            {"role": "assistant", "content": "Checking.", "tool_calls": [{"id": "c", "function": {"name": "top"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "load average: 31.2"},
            {"role": "assistant", "content": "Load 31.2 on db-3."},
        ]
    )

    trace_format, session = parse_trace(load_text(text, "chat.jsonl"))

    assert trace_format == "openai-chat"
    assert {i.what: i.count for i in session.skipped_content} == {
        "item(s) with neither a role nor a type": 1,
        "'ipython' message(s)": 1,
    }
    assert session.final_analysis == "Load 31.2 on db-3."
