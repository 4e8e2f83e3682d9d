"""A trace store's spans as a session (no I/O here: the HTTP sources are :mod:`sources.phoenix` and
:mod:`sources.mlflow`).

Phoenix's REST spans and MLflow's OTLP protobuf JSON are read into :class:`StoreSpan`, each span's attributes put in
OpenTelemetry GenAI terms by its kind (:func:`genai_attributes`), and the spans parsed as one OTLP JSON trace by the
``otel-genai`` format, exactly as an uploaded file is. The mapping is in ``docs/trace-formats.md``.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from session_scoring.errors import SessionDataError
from session_scoring.models.session import Session
from session_scoring.sources.documents import parse_trace
from session_scoring.sources.formats import TraceDocument
from session_scoring.sources.formats.common import json_decoded, parse_time

_AGENT_KINDS = {"AGENT"}
_LLM_KINDS = {"LLM", "CHAT_MODEL"}
_TOOL_KINDS = {"TOOL"}
_ERROR_CODES = {"ERROR", "STATUS_CODE_ERROR", "2", 2}
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class SpanEvent:
    name: str
    attributes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class StoreSpan:
    """One span as a store returned it, with plain attribute values (dotted keys)."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int
    attributes: Mapping[str, Any]
    status: str = "UNSET"
    """``OK``, ``ERROR`` or ``UNSET``."""
    status_message: str | None = None
    kind: str | None = None
    """The span kind the store reports beside the attributes (Phoenix's OpenInference kind), if any."""
    events: tuple[SpanEvent, ...] = ()

    @property
    def failed(self) -> bool:
        return self.status == "ERROR"

    @property
    def span_kind(self) -> str | None:
        """OpenInference or MLflow span kind, upper case."""
        kinds = (self.attributes.get("openinference.span.kind"), self.attributes.get("mlflow.spanType"), self.kind)
        return next((k.upper() for k in kinds if isinstance(k, str) and k and k.upper() != "UNKNOWN"), None)

    @property
    def error_message(self) -> str | None:
        """The status message, else the ``exception`` event's message."""
        if self.status_message:
            return self.status_message
        for event in self.events:
            if event.name == "exception":
                message = event.attributes.get("exception.message")
                kind = event.attributes.get("exception.type")
                if message:
                    return f"{kind}: {message}" if kind else str(message)
        return None


# ---------------------------------------------------------------------------------------------- reading the stores


def _nanoseconds(value: Any) -> int:
    """Nanoseconds as a number or digits, or ISO text (in whole microseconds, as ISO text has them: a float timestamp
    would round 0.2 s to 199.99... ms); 0 when there is none."""
    if isinstance(value, int | float) or (isinstance(value, str) and value.isdigit()):
        return int(value)
    moment = parse_time(value) if isinstance(value, str) else None
    return (moment - _EPOCH) // timedelta(microseconds=1) * 1_000 if moment is not None else 0


def _status(code: Any) -> str:
    if code in _ERROR_CODES:
        return "ERROR"
    if code in ("OK", "STATUS_CODE_OK", 1, "1"):
        return "OK"
    return "UNSET"


def _events(raw: Mapping[str, Any], attributes: Callable[[Any], Mapping[str, Any]]) -> tuple[SpanEvent, ...]:
    return tuple(
        SpanEvent(str(e.get("name") or ""), attributes(e.get("attributes")))
        for e in raw.get("events") or []
        if isinstance(e, Mapping)
    )


def phoenix_span(raw: Mapping[str, Any]) -> StoreSpan:
    """A span of Phoenix's ``GET /v1/projects/{project}/spans`` (attributes already flattened to dotted keys)."""
    context = raw.get("context") or {}
    attributes = raw.get("attributes") or {}
    if not isinstance(context, Mapping) or not context.get("span_id") or not isinstance(attributes, Mapping):
        raise ValueError("a Phoenix span needs context.span_id and an attributes object")
    return StoreSpan(
        trace_id=str(context.get("trace_id") or ""),
        span_id=str(context["span_id"]),
        parent_id=str(raw["parent_id"]) if raw.get("parent_id") else None,
        name=str(raw.get("name") or ""),
        start_ns=_nanoseconds(raw.get("start_time")),
        end_ns=_nanoseconds(raw.get("end_time")),
        attributes=dict(attributes),
        status=_status(raw.get("status_code")),
        status_message=str(raw.get("status_message") or "") or None,
        kind=str(raw.get("span_kind") or "") or None,
        events=_events(raw, lambda attributes: dict(attributes or {})),
    )


def _otlp_id(value: Any) -> str:
    """An OTLP id as hex: protobuf JSON sends bytes as base64 (MLflow), OTLP/JSON as hex already."""
    text = str(value or "")
    if not text:
        return ""
    if all(c in "0123456789abcdefABCDEF" for c in text) and len(text) in (16, 32):
        return text.lower()
    try:
        return base64.b64decode(text, validate=True).hex()
    except (binascii.Error, ValueError):
        return text


def any_value(value: Any) -> Any:
    """An OTLP ``AnyValue`` (protobuf JSON ``string_value`` or OTLP/JSON ``stringValue``) as a plain value."""
    if not isinstance(value, Mapping):
        return value
    for kind in ("string", "bool", "double", "int", "array", "kvlist", "bytes"):
        key = next((k for k in (f"{kind}_value", f"{kind}Value") if k in value), None)
        if key is None:
            continue
        if kind == "int":
            return int(value[key])
        if kind == "array":
            return [any_value(v) for v in (value[key] or {}).get("values", [])]
        if kind == "kvlist":
            return {kv.get("key"): any_value(kv.get("value")) for kv in (value[key] or {}).get("values", [])}
        return value[key]
    return None


def _key_values(items: Any) -> dict[str, Any]:
    return {
        str(item.get("key")): any_value(item.get("value"))
        for item in items or []
        if isinstance(item, Mapping) and item.get("key")
    }


def otlp_span(raw: Mapping[str, Any]) -> StoreSpan:
    """An OTLP span as protobuf JSON (MLflow's ``GET /api/3.0/mlflow/traces/get``) or OTLP/JSON."""
    span_id = raw.get("span_id") or raw.get("spanId")
    if not span_id:
        raise ValueError("an OTLP span needs a span_id")
    parent = raw.get("parent_span_id") or raw.get("parentSpanId")
    status = raw.get("status") or {}
    return StoreSpan(
        trace_id=_otlp_id(raw.get("trace_id") or raw.get("traceId")),
        span_id=_otlp_id(span_id),
        parent_id=_otlp_id(parent) or None,
        name=str(raw.get("name") or ""),
        start_ns=_nanoseconds(raw.get("start_time_unix_nano") or raw.get("startTimeUnixNano")),
        end_ns=_nanoseconds(raw.get("end_time_unix_nano") or raw.get("endTimeUnixNano")),
        attributes=_key_values(raw.get("attributes")),
        status=_status(status.get("code") if isinstance(status, Mapping) else None),
        status_message=(str(status.get("message") or "") or None) if isinstance(status, Mapping) else None,
        events=_events(raw, _key_values),
    )


# ---------------------------------------------------------------------------------------- attributes in GenAI terms


def _decoded(value: Any) -> Any:
    """JSON text decoded (MLflow keeps inputs and outputs as JSON strings in older traces); anything else as is."""
    return json_decoded(value, ("{", "[", '"'))


def _nest(attributes: Mapping[str, Any], prefix: str) -> Any:
    """The value under ``prefix``: the attribute itself, or the structure of its flattened keys (Phoenix flattens
    ``llm.input_messages.0.message.role``); number segments become list positions."""
    if prefix in attributes:
        return _decoded(attributes[prefix])
    start = prefix + "."
    tree: dict[str, Any] = {}
    for key, value in attributes.items():
        if not key.startswith(start):
            continue
        node = tree
        parts = key[len(start) :].split(".")
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                break
            node = child
        else:
            node[parts[-1]] = value
    return _listify(tree) if tree else None


def _listify(node: Any) -> Any:
    if not isinstance(node, dict):
        return node
    converted = {key: _listify(value) for key, value in node.items()}
    if converted and all(key.isdigit() for key in converted):
        return [converted[key] for key in sorted(converted, key=int)]
    return converted


def _text(value: Any) -> str | None:
    """Readable text of an input or output value."""
    value = _decoded(value)
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _content_parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "content": content}] if content else []
    if isinstance(content, list):
        texts = [
            str(part.get("text") or part.get("content") or "")
            for part in content
            if isinstance(part, Mapping) and part.get("type") in ("text", "input_text", "output_text")
        ]
        return [{"type": "text", "content": "\n".join(t for t in texts if t)}] if any(texts) else []
    return []


def _tool_call_part(call: Mapping[str, Any]) -> dict[str, Any]:
    function = call.get("function") if isinstance(call.get("function"), Mapping) else call
    assert isinstance(function, Mapping)
    return {
        "type": "tool_call",
        "id": str(call.get("id") or "") or None,
        "name": str(function.get("name") or "unknown_tool"),
        "arguments": _decoded(function.get("arguments")),
    }


def openai_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI-style chat message (MLflow's chat spans) as a GenAI semconv message."""
    role = str(message.get("role") or "assistant")
    if role == "tool":
        return {
            "role": "tool",
            "parts": [
                {
                    "type": "tool_call_response",
                    "id": str(message.get("tool_call_id") or "") or None,
                    "response": _decoded(message.get("content")),
                }
            ],
        }
    parts = _content_parts(message.get("content"))
    parts += [_tool_call_part(c) for c in message.get("tool_calls") or [] if isinstance(c, Mapping)]
    return {"role": role, "parts": parts}


def openinference_message(entry: Any) -> dict[str, Any] | None:
    """One ``llm.*_messages`` entry (``{"message": {"role", "content", "contents", "tool_calls", ...}}``)."""
    message = entry.get("message") if isinstance(entry, Mapping) else None
    if not isinstance(message, Mapping):
        return None
    contents = [
        {"type": c.get("message_content", {}).get("type"), "text": c.get("message_content", {}).get("text")}
        for c in message.get("contents") or []
        if isinstance(c, Mapping) and isinstance(c.get("message_content"), Mapping)
    ]
    calls = [c["tool_call"] for c in message.get("tool_calls") or [] if isinstance(c, Mapping) and "tool_call" in c]
    return openai_message(
        {
            "role": message.get("role"),
            "content": message.get("content") if message.get("content") is not None else contents,
            "tool_calls": calls,
            "tool_call_id": message.get("tool_call_id"),
        }
    )


def _messages_of(value: Any, text_role: str = "assistant") -> list[dict[str, Any]]:
    """Chat messages in an MLflow span's inputs or outputs: ``{"messages": [...]}``, an OpenAI completion
    (``{"choices": [{"message": ...}]}``), one message, a list of messages, or plain text (``text_role``'s)."""
    value = _decoded(value)
    if isinstance(value, Mapping):
        if isinstance(value.get("messages"), list):
            return [openai_message(m) for m in value["messages"] if isinstance(m, Mapping)]
        if isinstance(value.get("choices"), list):
            return [
                openai_message(c["message"])
                for c in value["choices"]
                if isinstance(c, Mapping) and isinstance(c.get("message"), Mapping)
            ]
        if "role" in value:
            return [openai_message(value)]
        if isinstance(value.get("prompt"), str):
            return [{"role": "user", "parts": [{"type": "text", "content": value["prompt"]}]}]
        return []
    if isinstance(value, list):
        return [openai_message(m) for m in value if isinstance(m, Mapping) and "role" in m]
    text = _text(value)
    return [{"role": text_role, "parts": [{"type": "text", "content": text}]}] if text else []


def _tool_definitions(value: Any) -> list[dict[str, Any]]:
    definitions: list[dict[str, Any]] = []
    for item in _decoded(value) or []:
        item = _decoded(item)
        if isinstance(item, Mapping) and isinstance(item.get("tool"), Mapping):  # OpenInference llm.tools.N.tool
            item = _decoded(item["tool"].get("json_schema"))
        if isinstance(item, Mapping):
            function = item.get("function") if isinstance(item.get("function"), Mapping) else item
            if isinstance(function, Mapping) and function.get("name"):
                definitions.append({"name": function["name"], "description": function.get("description")})
    return definitions


def _chat(span: StoreSpan) -> dict[str, Any]:
    attrs = span.attributes
    inputs = [m for e in _nest(attrs, "llm.input_messages") or [] if (m := openinference_message(e))]
    outputs = [m for e in _nest(attrs, "llm.output_messages") or [] if (m := openinference_message(e))]
    if not inputs:
        inputs = _messages_of(attrs.get("mlflow.spanInputs", _nest(attrs, "input.value")), text_role="user")
    if not outputs:
        outputs = _messages_of(attrs.get("mlflow.spanOutputs", _nest(attrs, "output.value")))
    tools = _tool_definitions(_nest(attrs, "llm.tools") or attrs.get("mlflow.chat.tools"))
    messages = {"gen_ai.input.messages": inputs, "gen_ai.output.messages": outputs, "gen_ai.tool.definitions": tools}
    return {"gen_ai.operation.name": "chat", **{key: value for key, value in messages.items() if value}}


def _tool(span: StoreSpan) -> dict[str, Any]:
    attrs = span.attributes
    arguments = _nest(attrs, "tool.parameters")
    if arguments is None:
        arguments = _decoded(attrs.get("mlflow.spanInputs", _nest(attrs, "input.value")))
    result = _decoded(attrs.get("mlflow.spanOutputs", _nest(attrs, "output.value")))
    genai: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": str(attrs.get("tool.name") or span.name or "unknown_tool"),
        "gen_ai.tool.call.arguments": arguments if arguments is not None else {},
    }
    if result is not None:
        genai["gen_ai.tool.call.result"] = result
    if attrs.get("tool_call.id"):
        genai["gen_ai.tool.call.id"] = attrs["tool_call.id"]
    if attrs.get("tool.description"):
        genai["gen_ai.tool.description"] = attrs["tool.description"]
    return genai


def _agent(span: StoreSpan) -> dict[str, Any]:
    attrs = span.attributes
    genai: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": str(attrs.get("agent.name") or attrs.get("gen_ai.agent.name") or span.name or "agent"),
    }
    answer = _messages_of(attrs.get("mlflow.spanOutputs", _nest(attrs, "output.value")))
    texts = [p for m in answer if m["role"] == "assistant" for p in m["parts"] if p.get("type") == "text"]
    if texts:
        genai["gen_ai.output.messages"] = [{"role": "assistant", "parts": texts}]
    return genai


def genai_attributes(span: StoreSpan, *, as_agent: bool = False) -> dict[str, Any]:
    """The span's attributes in GenAI terms (see the module's docstring); ``as_agent``: the trace's root, read as
    the agent when the trace has no agent span."""
    attrs = dict(span.attributes)
    if attrs.get("gen_ai.operation.name"):
        return attrs
    kind = span.span_kind
    if kind in _TOOL_KINDS:
        return {**attrs, **_tool(span)}
    if kind in _LLM_KINDS:
        return {**attrs, **_chat(span)}
    if kind in _AGENT_KINDS or as_agent:
        return {**attrs, **_agent(span)}
    return attrs


# ------------------------------------------------------------------------------------------------ the OTLP document


def _otlp_value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    return {"stringValue": json.dumps(value, ensure_ascii=False, default=str)}


def otlp_document(spans: Iterable[StoreSpan]) -> dict[str, Any]:
    """The spans, attributes in GenAI terms, as one OTLP JSON export."""
    listed = list(spans)
    roots = _roots(listed)
    has_agent = any(
        s.span_kind in _AGENT_KINDS or s.attributes.get("gen_ai.operation.name") == "invoke_agent" for s in listed
    )
    agent_root = None
    if not has_agent and len(roots) == 1 and roots[0].span_kind not in _LLM_KINDS | _TOOL_KINDS:
        agent_root = roots[0].span_id
    exported = []
    for span in listed:
        attributes = genai_attributes(span, as_agent=span.span_id == agent_root)
        status: dict[str, Any] = {"code": 2 if span.failed else 0}
        if span.failed and span.error_message:
            status["message"] = span.error_message
        exported.append(
            {
                "traceId": span.trace_id,
                "spanId": span.span_id,
                **({"parentSpanId": span.parent_id} if span.parent_id else {}),
                "name": span.name,
                "startTimeUnixNano": str(span.start_ns),
                "endTimeUnixNano": str(span.end_ns),
                "attributes": [{"key": k, "value": _otlp_value(v)} for k, v in attributes.items() if v is not None],
                "status": status,
            }
        )
    return {"resourceSpans": [{"scopeSpans": [{"spans": exported}]}]}


def _roots(spans: list[StoreSpan]) -> list[StoreSpan]:
    """Spans without a parent in the trace."""
    ids = {s.span_id for s in spans}
    return [s for s in spans if not s.parent_id or s.parent_id not in ids]


def root_of(spans: Iterable[StoreSpan]) -> StoreSpan | None:
    """The trace's root span: the earliest span without a parent in the trace."""
    roots = sorted(_roots(list(spans)), key=lambda s: s.start_ns)
    return next((s for s in roots if not s.parent_id), roots[0] if roots else None)


def session_status(root: StoreSpan | None) -> str:
    return "failed" if root is not None and root.failed else "completed"


def session_from_spans(spans: list[StoreSpan], trace_id: str, origin: str, status: str | None = None) -> Session:
    """The trace as a session whose id is ``trace_id`` (``status`` when the store says it; else from the root)."""
    if not spans:
        raise SessionDataError(f"{origin}: the trace has no spans")
    root = root_of(spans)
    _, session = parse_trace(TraceDocument(otlp_document(spans), origin))
    agent = session.agent_type or (root.name if root is not None else None)
    return session.model_copy(
        update={"session_id": trace_id, "status": status or session_status(root), "agent_type": agent}
    )
