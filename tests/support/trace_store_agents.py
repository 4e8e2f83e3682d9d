"""Agents' traces sent to real trace stores, and what the stores hold, through the stores' own clients.

Run with the trace stores' interpreter (``.local/trace-stores-venv``, made by ``make trace-stores``), never the
service's: it imports the OpenTelemetry SDK and its OTLP exporter (Phoenix), the ``mlflow`` tracing API and
Phoenix's client, none of which the service ships. Each command prints one JSON document on stdout.

- ``send-phoenix URL PROJECT FIXTURES``: one trace per investigation of FIXTURES, exported over OTLP/HTTP to Phoenix;
  every other trace uses the OpenTelemetry GenAI conventions (``gen_ai.*``), the others OpenInference's
  (``openinference.span.kind``, ``llm.*_messages``, ``tool.*``, ``input.value``/``output.value``), as the agent
  frameworks' instrumentors write them. A failed tool call is a span with status ERROR and an ``exception`` event.
  Waits (with a deadline) until Phoenix has stored every root span.
- ``send-mlflow URL EXPERIMENT FIXTURES``: the same investigations through ``mlflow.start_span`` (AGENT, CHAT_MODEL
  and TOOL spans; a failed tool call raises inside its span).
- ``read-phoenix URL PROJECT TRACE_ID...``: the span annotations on each trace's root span (Phoenix's client).
- ``read-mlflow URL TRACE_ID...``: the assessments of each trace (``mlflow.get_trace``).
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

MS = 1_000_000
"""Nanoseconds in a millisecond."""


def _investigations(path: str) -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(Path(path).read_text(encoding="utf-8"))
    return loaded


def _tool_definitions(investigation: dict[str, Any]) -> list[dict[str, Any]]:
    names = sorted({step["tool"] for step in investigation["steps"]})
    return [{"type": "function", "function": {"name": n, "description": f"The {n} tool"}} for n in names]


def _wait_stored(store: str, trace_ids: list[str], stored: Callable[[str], bool]) -> None:
    """Poll until the store holds every trace (it stores them after the agent's call returns), with a deadline."""
    deadline = time.monotonic() + 60
    pending = set(trace_ids)
    while pending:
        pending = {trace_id for trace_id in pending if not stored(trace_id)}
        if pending and time.monotonic() > deadline:
            raise SystemExit(f"{store} did not store traces {sorted(pending)} within 60 s")
        if pending:
            time.sleep(0.2)


# ------------------------------------------------------------------------------------------------------- Phoenix

GENAI_CHAT = {"gen_ai.operation.name": "chat", "gen_ai.request.model": "gpt-4o"}
OPENINFERENCE_CHAT = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o"}


def _chat(tracer: Any, name: str, clock: int, milliseconds: int, attributes: dict[str, Any]) -> int:
    """A model call's span of ``milliseconds`` from ``clock``; the clock at its end."""
    chat = tracer.start_span(name, start_time=clock, attributes=attributes)
    clock += milliseconds * MS
    chat.end(end_time=clock)
    return clock


def _phoenix_genai(tracer: Any, investigation: dict[str, Any], start: int) -> Any:
    from opentelemetry.trace import Status, StatusCode

    agent = investigation["agent"]
    definitions = json.dumps(_tool_definitions(investigation))
    clock = start
    root = tracer.start_span(
        f"invoke_agent {agent}",
        start_time=clock,
        attributes={"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": agent},
    )
    from opentelemetry import trace

    with trace.use_span(root, end_on_exit=False):
        task = json.dumps([{"role": "user", "parts": [{"type": "text", "content": investigation["task"]}]}])
        for index, step in enumerate(investigation["steps"]):
            call_id = f"call_{index}"
            output = [
                {
                    "role": "assistant",
                    "parts": [
                        {"type": "text", "content": step["thought"]},
                        {"type": "tool_call", "id": call_id, "name": step["tool"], "arguments": step["arguments"]},
                    ],
                }
            ]
            clock = _chat(
                tracer,
                "chat gpt-4o",
                clock,
                800,
                {
                    **GENAI_CHAT,
                    "gen_ai.input.messages": task,
                    "gen_ai.output.messages": json.dumps(output),
                    "gen_ai.tool.definitions": definitions,
                },
            )
            tool = tracer.start_span(
                f"execute_tool {step['tool']}",
                start_time=clock,
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": step["tool"],
                    "gen_ai.tool.call.id": call_id,
                    "gen_ai.tool.call.arguments": json.dumps(step["arguments"]),
                },
            )
            clock += (150 + 100 * index) * MS
            if "error" in step:
                tool.set_status(Status(StatusCode.ERROR, step["error"]))
                tool.set_attribute("error.type", "ToolError")
            else:
                tool.set_attribute("gen_ai.tool.call.result", json.dumps(step["result"]))
            tool.end(end_time=clock)
        final = [{"role": "assistant", "parts": [{"type": "text", "content": investigation["answer"]}]}]
        clock = _chat(tracer, "chat gpt-4o", clock, 900, {**GENAI_CHAT, "gen_ai.output.messages": json.dumps(final)})
    root.end(end_time=clock + MS)
    return root


def _phoenix_openinference(tracer: Any, investigation: dict[str, Any], start: int) -> Any:
    from opentelemetry import trace
    from opentelemetry.trace import Status, StatusCode

    agent = investigation["agent"]
    tools = {f"llm.tools.{i}.tool.json_schema": json.dumps(d) for i, d in enumerate(_tool_definitions(investigation))}
    clock = start
    root = tracer.start_span(
        agent,
        start_time=clock,
        attributes={
            "openinference.span.kind": "AGENT",
            "agent.name": agent,
            "input.value": investigation["task"],
            "output.value": investigation["answer"],
        },
    )
    with trace.use_span(root, end_on_exit=False):
        for index, step in enumerate(investigation["steps"]):
            call_id = f"call_{index}"
            prefix = "llm.output_messages.0.message"
            clock = _chat(
                tracer,
                "ChatCompletion",
                clock,
                700,
                {
                    **OPENINFERENCE_CHAT,
                    "llm.input_messages.0.message.role": "user",
                    "llm.input_messages.0.message.content": investigation["task"],
                    f"{prefix}.role": "assistant",
                    f"{prefix}.content": step["thought"],
                    f"{prefix}.tool_calls.0.tool_call.id": call_id,
                    f"{prefix}.tool_calls.0.tool_call.function.name": step["tool"],
                    f"{prefix}.tool_calls.0.tool_call.function.arguments": json.dumps(step["arguments"]),
                    **tools,
                },
            )
            tool = tracer.start_span(
                step["tool"],
                start_time=clock,
                attributes={
                    "openinference.span.kind": "TOOL",
                    "tool.name": step["tool"],
                    "tool.parameters": json.dumps(step["arguments"]),
                    "input.value": json.dumps(step["arguments"]),
                    "input.mime_type": "application/json",
                },
            )
            clock += (200 + 50 * index) * MS
            if "error" in step:
                tool.record_exception(RuntimeError(step["error"]), timestamp=clock)
                tool.set_status(Status(StatusCode.ERROR, step["error"]))
            else:
                tool.set_attribute("output.value", json.dumps(step["result"]))
                tool.set_attribute("output.mime_type", "application/json")
            tool.end(end_time=clock)
        answer = {
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": investigation["answer"],
        }
        clock = _chat(tracer, "ChatCompletion", clock, 900, {**OPENINFERENCE_CHAT, **answer})
    root.end(end_time=clock + MS)
    return root


def _get_json(url: str) -> Any:
    """The answer's JSON; None for a 404 (Phoenix makes the project when it stores the first span)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise


def send_phoenix(url: str, project: str, fixtures: str) -> list[dict[str, Any]]:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    provider = TracerProvider(
        resource=Resource.create({"service.name": "sre-agents", "openinference.project.name": project})
    )
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{url}/v1/traces", timeout=10)))
    tracer = provider.get_tracer("trace-store-agents")
    sent = []
    start = time.time_ns() - 3_600_000 * MS
    for index, investigation in enumerate(_investigations(fixtures)):
        convention = "genai" if index % 2 == 0 else "openinference"
        send = _phoenix_genai if convention == "genai" else _phoenix_openinference
        root = send(tracer, investigation, start + index * 60_000 * MS)
        trace_id = format(root.get_span_context().trace_id, "032x")
        sent.append({"key": investigation["key"], "trace_id": trace_id, "convention": convention})
    provider.shutdown()

    def stored(trace_id: str) -> bool:
        page = _get_json(f"{url}/v1/projects/{project}/spans?trace_id={trace_id}&parent_id=null&limit=1")
        return bool(page and page.get("data"))

    _wait_stored("Phoenix", [item["trace_id"] for item in sent], stored)
    return sent


def read_phoenix(url: str, project: str, trace_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    from phoenix.client import Client

    client = Client(base_url=url)
    found: dict[str, list[dict[str, Any]]] = {}
    for trace_id in trace_ids:
        roots = client.spans.get_spans(project_identifier=project, trace_ids=[trace_id], parent_id="null", limit=5)
        span_ids = [root["context"]["span_id"] for root in roots]
        annotations = client.spans.get_span_annotations(span_ids=span_ids, project_identifier=project)
        found[trace_id] = [
            {
                "name": a["name"],
                "label": (a.get("result") or {}).get("label"),
                "score": (a.get("result") or {}).get("score"),
                "explanation": (a.get("result") or {}).get("explanation"),
                "annotator_kind": a.get("annotator_kind"),
                "identifier": a.get("identifier"),
                "metadata": a.get("metadata") or {},
            }
            for a in annotations
        ]
    return found


# -------------------------------------------------------------------------------------------------------- MLflow


class ToolError(RuntimeError):
    pass


def send_mlflow(url: str, experiment: str, fixtures: str) -> dict[str, Any]:
    import mlflow
    from mlflow.entities import SpanType

    mlflow.set_tracking_uri(url)
    experiment_id = mlflow.set_experiment(experiment).experiment_id
    sent = []
    for investigation in _investigations(fixtures):
        definitions = _tool_definitions(investigation)
        with mlflow.start_span(name=investigation["agent"], span_type=SpanType.AGENT) as root:
            history: list[dict[str, Any]] = [{"role": "user", "content": investigation["task"]}]
            root.set_inputs({"messages": list(history)})
            for index, step in enumerate(investigation["steps"]):
                call_id = f"call_{index}"
                message = {
                    "role": "assistant",
                    "content": step["thought"],
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": step["tool"], "arguments": json.dumps(step["arguments"])},
                        }
                    ],
                }
                with mlflow.start_span(name="chat gpt-4o", span_type=SpanType.CHAT_MODEL) as chat:
                    chat.set_inputs({"messages": list(history), "tools": definitions})
                    chat.set_attribute("mlflow.chat.tools", definitions)
                    chat.set_outputs({"choices": [{"index": 0, "message": message}]})
                history.append(message)
                try:
                    with mlflow.start_span(name=step["tool"], span_type=SpanType.TOOL) as tool:
                        tool.set_inputs(step["arguments"])
                        if "error" in step:
                            raise ToolError(step["error"])
                        tool.set_outputs(step["result"])
                    content = json.dumps(step["result"])
                except ToolError as exc:
                    content = f"error: {exc}"
                history.append({"role": "tool", "tool_call_id": call_id, "content": content})
            with mlflow.start_span(name="chat gpt-4o", span_type=SpanType.CHAT_MODEL) as chat:
                chat.set_inputs({"messages": list(history)})
                answer = {"role": "assistant", "content": investigation["answer"]}
                chat.set_outputs({"choices": [{"index": 0, "message": answer}]})
            root.set_outputs(investigation["answer"])
        sent.append({"key": investigation["key"], "trace_id": root.trace_id})
    flush = getattr(mlflow, "flush_trace_async_logging", None)
    if flush is not None:
        flush()
    _wait_stored("MLflow", [item["trace_id"] for item in sent], lambda trace_id: mlflow.get_trace(trace_id) is not None)
    return {"experiment_id": experiment_id, "traces": sent}


def read_mlflow(url: str, trace_ids: list[str]) -> dict[str, list[dict[str, Any]]]:
    import mlflow

    mlflow.set_tracking_uri(url)
    found: dict[str, list[dict[str, Any]]] = {}
    for trace_id in trace_ids:
        trace = mlflow.get_trace(trace_id)
        found[trace_id] = [
            {
                "name": a.name,
                "value": a.value,
                "rationale": a.rationale,
                "source_type": a.source.source_type,
                "metadata": dict(a.metadata or {}),
            }
            for a in (trace.info.assessments if trace is not None else [])
        ]
    return found


def main(argv: list[str]) -> None:
    command, *args = argv
    if command == "send-phoenix":
        result: Any = send_phoenix(*args)
    elif command == "send-mlflow":
        result = send_mlflow(*args)
    elif command == "read-phoenix":
        result = read_phoenix(args[0], args[1], args[2:])
    elif command == "read-mlflow":
        result = read_mlflow(args[0], args[1:])
    else:
        raise SystemExit(f"unknown command {command!r}")
    print(json.dumps(result, default=str))


if __name__ == "__main__":
    main(sys.argv[1:])
