"""OpenTelemetry GenAI semantic conventions: an OTLP JSON trace export (``{"resourceSpans": [...]}``, or a list of
them as the collector's file exporter writes).

One stage per ``invoke_agent`` span, ``execute_tool`` spans as tool calls, ``chat`` spans' messages as reasoning,
the task and the answer; other spans are dropped and counted. The mapping is in ``docs/trace-formats.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from session_scoring.models.session import AvailableTool, Session, Stage
from session_scoring.sources.formats.common import (
    TraceBuilder,
    TraceDocument,
    build_session,
    json_decoded,
    nested,
    parse_time,
    tool_from_definition,
    unwrap_output,
)

NAME = "otel-genai"
AGENT_OUTPUT = "agent_output"
_CHAT = {"chat", "text_completion", "generate_content"}


def _exports(content: Any) -> list[Any] | None:
    if isinstance(content, dict) and isinstance(content.get("resourceSpans"), list):
        return [content]
    if isinstance(content, list) and content and all(isinstance(e, dict) and "resourceSpans" in e for e in content):
        return content
    return None


def detect(content: Any) -> bool:
    return _exports(content) is not None


def _value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as a plain value."""
    if not isinstance(value, dict):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        return {kv.get("key"): _value(kv.get("value")) for kv in (value["kvlistValue"] or {}).get("values", [])}
    return None


@dataclass
class _Span:
    span_id: str
    parent_id: str | None
    trace_id: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    status_code: Any
    status_message: str | None

    @property
    def operation(self) -> str | None:
        op = self.attributes.get("gen_ai.operation.name")
        return str(op) if op else None

    @property
    def failed(self) -> bool:
        return self.status_code in (2, "2", "STATUS_CODE_ERROR", "ERROR") or bool(self.attributes.get("error.type"))

    @property
    def duration_ms(self) -> int | None:
        return (self.end - self.start) // 1_000_000 if self.end and self.start else None


def _spans(document: TraceDocument, exports: list[Any]) -> list[_Span]:
    spans: list[_Span] = []
    for e_index, export in enumerate(exports):
        for r_index, resource in enumerate(export.get("resourceSpans") or []):
            for s_index, scope in enumerate((resource or {}).get("scopeSpans") or []):
                for p_index, raw in enumerate((scope or {}).get("spans") or []):
                    where = (
                        f"{document.where(e_index, 'export') + '.' if len(exports) > 1 else ''}"
                        f"resourceSpans[{r_index}].scopeSpans[{s_index}].spans[{p_index}]"
                    )
                    if not isinstance(raw, dict) or not raw.get("spanId"):
                        raise document.error(where, "a span object with a 'spanId'")
                    if not isinstance(raw.get("attributes", []), list):
                        raise document.error(f"{where}.attributes", "a list of {key, value} attributes")
                    status = raw.get("status") or {}
                    spans.append(
                        _Span(
                            span_id=str(raw["spanId"]),
                            parent_id=str(raw["parentSpanId"]) if raw.get("parentSpanId") else None,
                            trace_id=str(raw.get("traceId") or ""),
                            name=str(raw.get("name") or ""),
                            start=int(raw.get("startTimeUnixNano") or 0),
                            end=int(raw.get("endTimeUnixNano") or 0),
                            attributes={
                                str(a.get("key")): _value(a.get("value"))
                                for a in raw.get("attributes") or []
                                if isinstance(a, dict)
                            },
                            status_code=status.get("code") if isinstance(status, dict) else None,
                            status_message=status.get("message") if isinstance(status, dict) else None,
                        )
                    )
    return sorted(spans, key=lambda s: s.start)  # stable: spans that start together stay in document order


def _parts(messages: Any) -> list[tuple[str, dict[str, Any]]]:
    """(role, part) of semconv messages ``[{"role", "parts": [...]}]``; plain ``content`` becomes a text part."""
    found: list[tuple[str, dict[str, Any]]] = []
    for message in json_decoded(messages) if isinstance(json_decoded(messages), list) else []:
        if not isinstance(message, dict):
            continue
        role = str(message.get("role") or "assistant")
        if isinstance(message.get("parts"), list):
            found.extend((role, p) for p in message["parts"] if isinstance(p, dict))
        elif isinstance(message.get("content"), str):
            found.append((role, {"type": "text", "content": message["content"]}))
    return found


class _Trace:
    def __init__(self, spans: list[_Span]) -> None:
        self.spans = spans
        self.by_id = {s.span_id: s for s in spans}
        self.has_tool_spans = any(s.operation == "execute_tool" for s in spans)
        self.tools: dict[str, AvailableTool] = {}
        self.task_seen = False
        self.answer: str | None = None

    def agent_of(self, span: _Span) -> _Span | None:
        current = self.by_id.get(span.parent_id) if span.parent_id else None
        while current is not None:
            if current.operation == "invoke_agent":
                return current
            current = self.by_id.get(current.parent_id) if current.parent_id else None
        return None

    def chat(self, span: _Span, builder: TraceBuilder) -> None:
        for definition in json_decoded(span.attributes.get("gen_ai.tool.definitions")) or []:
            if isinstance(definition, dict):
                fn = nested(definition, "function")
                if isinstance(fn.get("name"), str):
                    self.tools.setdefault(fn["name"], tool_from_definition(fn["name"], fn.get("description")))
        for role, part in _parts(span.attributes.get("gen_ai.input.messages")):
            if role == "user" and part.get("type") == "text" and not self.task_seen:
                self.task_seen = True
                builder.user(str(part.get("content", "")))
            if part.get("type") == "tool_call_response" and not self.has_tool_spans:
                builder.result(unwrap_output(part.get("response")), str(part.get("id") or "") or None)
        outputs = _parts(span.attributes.get("gen_ai.output.messages"))
        calls = any(p.get("type") == "tool_call" for _, p in outputs)
        for _, part in outputs:
            kind = part.get("type")
            if kind == "reasoning":
                builder.text("reasoning", str(part.get("content", "")))
            elif kind == "text":
                text = str(part.get("content", ""))
                builder.text("reasoning" if calls else "message", text)
            elif kind == "tool_call" and not self.has_tool_spans:
                builder.call(
                    str(part.get("name") or "unknown_tool"), part.get("arguments"), str(part.get("id") or "") or None
                )
            elif kind != "tool_call":
                builder.drop(f"{kind} output part(s)", reason="output parts other than text, reasoning and tool calls")

    def tool(self, span: _Span, builder: TraceBuilder) -> None:
        attrs = span.attributes
        name = str(attrs.get("gen_ai.tool.name") or span.name.removeprefix("execute_tool ").strip() or "unknown_tool")
        if attrs.get("gen_ai.tool.description"):
            self.tools.setdefault(name, tool_from_definition(name, attrs.get("gen_ai.tool.description")))
        call_id = str(attrs.get("gen_ai.tool.call.id") or span.span_id)
        builder.call(name, json_decoded(attrs.get("gen_ai.tool.call.arguments")), call_id)
        if span.failed:
            error = span.status_message or str(attrs.get("error.type") or "") or "the call failed"
            result = attrs.get("gen_ai.tool.call.result")
            detail = f"{error}: {result}" if result and str(result) not in error else error
            builder.result(unwrap_output(detail, failed=True), call_id, duration_ms=span.duration_ms)
        else:
            builder.result(unwrap_output(attrs.get("gen_ai.tool.call.result")), call_id, duration_ms=span.duration_ms)


def parse(document: TraceDocument) -> Session:
    exports = _exports(document.content)
    if exports is None:
        raise document.error("resourceSpans", "an OTLP JSON trace export with a 'resourceSpans' list")
    spans = _spans(document, exports)
    if not spans:
        raise document.error("resourceSpans", "at least one span")
    trace = _Trace(spans)
    builders: dict[str, TraceBuilder] = {}
    agents: dict[str, _Span | None] = {}
    for span in spans:
        operation = span.operation
        agent = span if operation == "invoke_agent" else trace.agent_of(span)
        key = agent.span_id if agent is not None else ""
        builder = builders.setdefault(key, TraceBuilder())
        agents.setdefault(key, agent)
        if operation == "invoke_agent":
            continue
        if operation in _CHAT:
            trace.chat(span, builder)
        elif operation == "execute_tool":
            trace.tool(span, builder)
        else:
            builder.drop(
                f"non-GenAI span(s) ({span.name or 'unnamed'})" if not operation else f"'{operation}' span(s)",
                reason="spans other than agents, model calls and tool calls are not part of the transcript",
            )
    stages: list[Stage] = []
    answer: str | None = None
    answer_source: str | None = None
    dropped = TraceBuilder()
    for key, builder in builders.items():
        agent = agents[key]
        finished = builder.finish(submit_tools=document.submit_tools)
        for what, count in builder.dropped.items():
            dropped.drop(what, count, builder.reasons[what])
        steps, stage_answer, stage_source = finished.steps, finished.answer, finished.answer_source
        name = str(agent.attributes.get("gen_ai.agent.name") or agent.name) if agent is not None else "trace"
        if agent is not None and agent.attributes.get("gen_ai.output.messages") and stage_answer is None:
            texts = [str(p.get("content", "")) for _, p in _parts(agent.attributes["gen_ai.output.messages"])]
            stage_answer = "\n".join(t for t in texts if t) or None
            stage_source = AGENT_OUTPUT
        failed = agent is not None and agent.failed
        stages.append(
            Stage(
                name=name,
                agent=name if agent is not None else None,
                status="failed" if failed else "completed",
                steps=steps,
                error=(agent.status_message or "the agent span ended with an error") if failed and agent else None,
            )
        )
        if stage_answer:
            answer, answer_source = stage_answer, stage_source
    conversation = next(
        (s.attributes.get("gen_ai.conversation.id") for s in spans if s.attributes.get("gen_ai.conversation.id")), None
    )
    agent_name = next(
        (str(s.attributes.get("gen_ai.agent.name")) for s in spans if s.attributes.get("gen_ai.agent.name")), None
    )
    return build_session(
        document,
        dropped,
        stages=stages,
        agent=agent_name,
        tools=list(trace.tools.values()),
        session_id=str(conversation or spans[0].trace_id or "") or None,
        started_at=parse_time(min((s.start for s in spans if s.start), default=None)),
        completed_at=parse_time(max(s.end for s in spans) or None),
        final_analysis=answer,
        final_answer_source=answer_source,
        agent_models=[
            str(s.attributes[key])
            for s in spans
            for key in ("gen_ai.request.model", "gen_ai.response.model")
            if s.attributes.get(key)
        ],
    )
