"""OpenHands recordings: the V0 event list and the V1 SDK's event stream.

V0 (``trajectory.json``; or an evaluation output record, ``{"instance_id", "history": [...], "metrics", ...}``, one
per line of ``output.jsonl``): a JSON list of events, each an ``action`` (``run``,
``read``, ``edit``, ``browse``, ``message``, ``think``, ``finish``...) or an ``observation`` tied to its action by
``cause``; a command's exit code is in ``extras.metadata.exit_code`` and in its text; editor failures are text
(``Ran into [Errno 2] ...``); ``finish`` holds the final message.

V1 (the SDK, JSON Lines or a list): typed events with a ``kind`` (``ActionEvent`` with ``tool_name``,
``tool_call_id``, ``action`` and ``thought``; ``ObservationEvent`` with ``observation.is_error``; ``MessageEvent``;
``AgentErrorEvent``, an error of its own); a ``finish`` action's message is the final answer.
"""

from __future__ import annotations

from typing import Any

from session_scoring.models.session import Session
from session_scoring.sources.formats.common import ToolOutput, TraceBuilder, TraceDocument, build_session, unwrap_output
from session_scoring.sources.formats.openai_chat import text_of

V0 = "openhands-events"
V1 = "openhands-sdk-events"
_FINISH = "finish action"
_NOT_CALLS = {
    "message",
    "finish",
    "think",
    "system",
    "recall",
    "agent_state_changed",
    "change_agent_state",
    "null",
    "condensation",
}
_STATE = "OpenHands' own state and bookkeeping, not the investigation"
_V1_KINDS = {"ActionEvent", "ObservationEvent", "MessageEvent", "AgentErrorEvent", "UserRejectObservation"}


def _events(content: Any) -> list[dict[str, Any]] | None:
    if isinstance(content, list) and content and all(isinstance(e, dict) for e in content):
        return content
    return None


def _v0_events(content: Any) -> list[dict[str, Any]] | None:
    """The event list itself, or an evaluation output record's ``history``."""
    return _events(content.get("history") if isinstance(content, dict) else content)


def detect_v0(content: Any) -> bool:
    """A list of events with ``source`` (or an evaluation output record holding one), at least one an ``action``
    and none a V1 ``kind``."""
    events = _v0_events(content)
    if events is None or any("kind" in e for e in events):
        return False
    return any(isinstance(e.get("action"), str) and "source" in e for e in events) and all(
        "action" in e or "observation" in e for e in events
    )


def detect_v1(content: Any) -> bool:
    """A list (JSON Lines) of events with a ``kind``, at least one an action, observation or message event."""
    events = _events(content)
    return events is not None and any(e.get("kind") in _V1_KINDS for e in events) and all("kind" in e for e in events)


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _v0_arguments(event: dict[str, Any]) -> dict[str, Any]:
    args = event.get("args")
    if not isinstance(args, dict):
        return {}
    return {
        k: v
        for k, v in args.items()
        if k not in ("thought", "security_risk", "confirmation_state") and v not in (None, "")
    }


def _v0_failed(event: dict[str, Any]) -> bool:
    extras = event.get("extras")
    metadata = extras.get("metadata") if isinstance(extras, dict) else None
    exit_code = metadata.get("exit_code") if isinstance(metadata, dict) else None
    if isinstance(extras, dict) and isinstance(extras.get("exit_code"), int):
        exit_code = extras["exit_code"]
    # -1 alone is a command still running when OpenHands stopped waiting (a server started in the foreground), not
    # a failure; the observation's own ``success: false`` says when it was one.
    return (
        event.get("observation") == "error"
        or event.get("success") is False
        or (isinstance(exit_code, int) and exit_code not in (0, -1))
    )


def parse_v0(document: TraceDocument) -> Session:
    builder = TraceBuilder()
    finish: str | None = None
    for event in _v0_events(document.content) or []:
        builder.seen_at(event.get("timestamp"))
        action = event.get("action")
        args = _object(event.get("args"))
        text = str(event.get("message") or args.get("content") or "")
        if isinstance(action, str):
            thought = args.get("thought")
            if isinstance(thought, str) and action not in ("finish",):
                builder.text("reasoning", thought)
            if action == "message":
                (builder.user if event.get("source") == "user" else lambda t: builder.text("message", t))(text)
            elif action == "finish":
                outputs = _object(args.get("outputs"))
                finish = str(args.get("final_thought") or outputs.get("content") or "") or text
            elif action == "think":
                builder.text("reasoning", str(args.get("thought") or text))
            elif action in _NOT_CALLS or event.get("source") == "environment":
                builder.drop(f"OpenHands '{action}' event(s)", reason=_STATE)
            else:
                builder.call(action, _v0_arguments(event), call_id=str(event.get("id")))
        elif isinstance(event.get("observation"), str):
            kind = event["observation"]
            cause = event.get("cause")
            if kind == "error" and cause is None:
                # A call OpenHands refused before it ran (its arguments did not validate): a failed call of its own.
                # Paired by its own event id: a call still waiting for its observation must not take this result.
                name = _object(event.get("tool_call_metadata")).get("function_name")
                refused = f"refused-{event.get('id')}"
                builder.call(name if isinstance(name, str) and name else "unknown_tool", call_id=refused)
                builder.result(unwrap_output(event.get("content") or text, failed=True), call_id=refused)
                continue
            if cause is None or kind in _NOT_CALLS:
                builder.drop(f"OpenHands '{kind}' observation(s)", reason=_STATE)
                continue
            content = event.get("content")
            output = unwrap_output(content if content is not None else text, failed=_v0_failed(event))
            builder.result(output, call_id=str(cause))
    beside = (finish, _FINISH) if finish else None
    record = document.content if isinstance(document.content, dict) else {}
    instance = record.get("instance_id")
    return build_session(
        document,
        builder,
        agent="openhands",
        beside=beside,
        session_id=str(instance) if isinstance(instance, (str, int)) and str(instance) else None,
    )


def _parts_text(value: Any, builder: TraceBuilder) -> str:
    if isinstance(value, dict):
        value = value.get("content", value.get("text", ""))
    return text_of(value, builder)


def parse_v1(document: TraceDocument) -> Session:
    builder = TraceBuilder()
    finish: str | None = None
    for event in _events(document.content) or []:
        builder.seen_at(event.get("timestamp"))
        kind = event.get("kind")
        call_id = str(event["tool_call_id"]) if event.get("tool_call_id") else None
        if kind == "MessageEvent":
            message = _object(event.get("llm_message"))
            text = _parts_text(message, builder)
            (builder.user if event.get("source") == "user" else lambda t: builder.text("message", t))(text)
        elif kind == "ActionEvent":
            reasoning = event.get("reasoning_content")
            builder.text(
                "reasoning",
                reasoning
                if isinstance(reasoning, str) and reasoning.strip()
                else _parts_text(event.get("thought"), builder),
            )
            action = _object(event.get("action"))
            name = str(event.get("tool_name") or action.get("kind") or "unknown_tool")
            arguments = {k: v for k, v in action.items() if k != "kind"}
            if name == "finish":
                finish = str(arguments.get("message") or "")
                continue
            builder.call(name, arguments, call_id=call_id)
        elif kind in ("ObservationEvent", "UserRejectObservation"):
            observation = _object(event.get("observation"))
            if event.get("tool_name") == "finish":
                continue
            failed = observation.get("is_error") is True or kind == "UserRejectObservation"
            text = _parts_text(observation, builder) or str(event.get("rejection_reason") or "")
            builder.result(unwrap_output(text, failed=failed), call_id=call_id, name=event.get("tool_name"))
        elif kind == "AgentErrorEvent":
            builder.result(
                ToolOutput(None, True, str(event.get("error") or "the agent's call failed")),
                call_id=call_id,
                name=event.get("tool_name"),
            )
        else:
            builder.drop(f"OpenHands '{kind}' event(s)", reason=_STATE)
    beside = (finish, _FINISH) if finish else None
    return build_session(document, builder, agent="openhands", beside=beside)
