"""SWE-agent trajectories (``*.traj``) and mini-swe-agent trajectories (``*.traj.json``).

SWE-agent: an object with ``trajectory`` (steps of ``thought``, ``action``, ``observation``), ``history`` (the chat;
with function calling its assistant turns carry ``tool_calls``, and demonstrations are marked ``is_demo``) and
``info`` (``exit_status``, ``submission``: the patch or answer). The steps are read when present, else the chat.

mini-swe-agent: ``messages`` whose assistant turns hold one bash code block (or, in newer versions, ``tool_calls``)
and whose results are the next user (or tool) turn, starting ``<returncode>N</returncode>``; a last message with role
``exit``; ``info.exit_status`` and ``info.submission``. Older versions saved the bare message list. Its submit is a
command echoing ``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` (see ``common.SUBMIT_MARKERS``). A run that stopped on an
exception (an API error, a crash) says so in its exit: the exception's class as ``exit_status``, an empty
``submission`` and ``exception_str`` (or ``traceback``); the exit message is then that exception's text, never the
answer, and the session is ``failed`` with it as its error.
"""

from __future__ import annotations

from typing import Any

from session_scoring.models.session import Session
from session_scoring.sources.formats import openai_chat
from session_scoring.sources.formats.common import (
    SUBMIT_MARKERS,
    TraceBuilder,
    TraceDocument,
    build_session,
    messages_of,
)

SWE_AGENT = "swe-agent-trajectory"
MINI_SWE_AGENT = "mini-swe-agent-trajectory"
_SUBMISSION = "info.submission"
_EXIT_MESSAGE = "exit_message"
_SYSTEM = "system prompts are instructions, not the investigation"


_SUBMITTED = "submitted"
"""An exit status that ended the run with its answer (``Submitted``; any case, a reason may follow)."""


def _info(content: Any) -> dict[str, Any]:
    info = content.get("info") if isinstance(content, dict) else None
    return info if isinstance(info, dict) else {}


def _stopped_on(exit_info: dict[str, Any]) -> str | None:
    """The exception a mini-swe-agent run stopped on, as the session's error; None when it ended as designed
    (submitted, or a limit reached)."""
    status = exit_info.get("exit_status")
    if not isinstance(status, str) or not ("exception_str" in exit_info or "traceback" in exit_info):
        return None
    text = exit_info.get("exception_str")
    return f"the agent stopped on {status}" + (f": {text}" if isinstance(text, str) and text.strip() else "")


def detect_swe_agent(content: Any) -> bool:
    """``trajectory`` steps with an ``action``, or a ``history`` of SWE-agent messages (``agent``/``message_type``)."""
    if not isinstance(content, dict):
        return False
    steps = content.get("trajectory")
    if isinstance(steps, list) and steps and all(isinstance(s, dict) and "action" in s for s in steps):
        return True
    history = content.get("history")
    return (
        isinstance(history, list)
        and bool(history)
        and all(isinstance(m, dict) and "role" in m for m in history)
        and any("agent" in m or "message_type" in m for m in history)
    )


def _mini_text(message: Any) -> bool:
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, str) and (
        "```mswea_bash_command" in content
        or content.lstrip().startswith("<returncode>")
        or any(marker in content for marker in SUBMIT_MARKERS)
    )


def detect_mini_swe_agent(content: Any) -> bool:
    """``messages`` with ``info.exit_status``/``submission`` or an ``exit`` message (or a mini-swe-agent
    ``trajectory_format``), or a bare message list in its text protocol."""
    messages = messages_of(content)
    if not isinstance(messages, list) or not messages or not all(isinstance(m, dict) for m in messages):
        return False
    if isinstance(content, dict):
        marked = str(content.get("trajectory_format", "")).startswith("mini-swe-agent")
        info = _info(content)
        if marked or "exit_status" in info or "submission" in info:
            return True
    return any(m.get("role") == "exit" for m in messages) or sum(1 for m in messages if _mini_text(m)) >= 2


def _content(message: dict[str, Any], builder: TraceBuilder) -> str:
    return openai_chat.text_of(message.get("content"), builder)


def parse_swe_agent(document: TraceDocument) -> Session:
    content = document.content
    builder = TraceBuilder()
    steps = content.get("trajectory")
    history = [m for m in content.get("history") or [] if isinstance(m, dict)]
    task = next(
        (m for m in history if m.get("role") == "user" and not m.get("is_demo") and m.get("message_type") != "demo"),
        None,
    )
    demos = sum(1 for m in history if m.get("is_demo"))
    if demos:
        builder.drop("demonstration message(s)", demos, "SWE-agent's worked example, not this run")
    if isinstance(steps, list) and steps:
        if task is not None:
            builder.user(_content(task, builder))
        for step in steps:
            builder.text("reasoning", str(step.get("thought") or ""))
            action = str(step.get("action") or "").strip()
            if not action:
                continue
            builder.call(action.split()[0], {"command": action})
            builder.text_result(str(step.get("observation") or ""))
    else:
        chat = [m for m in history if not m.get("is_demo")]
        openai_chat.fill(chat, builder, document)
    info = _info(content)
    submission = info.get("submission")
    beside = (submission, _SUBMISSION) if isinstance(submission, str) and submission.strip() else None
    return build_session(document, builder, agent="swe-agent", beside=beside)


def parse_mini_swe_agent(document: TraceDocument) -> Session:
    content = document.content
    messages = [m for m in messages_of(content) if isinstance(m, dict)]
    builder = TraceBuilder()
    exit_text: str | None = None
    exit_extra: dict[str, Any] = {}
    for message in messages:
        role = message.get("role")
        text = _content(message, builder)
        builder.seen_at(
            (message.get("extra") or {}).get("timestamp") if isinstance(message.get("extra"), dict) else None
        )
        if role == "system":
            builder.drop("system message(s)", reason=_SYSTEM)
        elif role == "exit":
            exit_text = text
            extra = message.get("extra")
            exit_extra = extra if isinstance(extra, dict) else {}
        elif role == "assistant" and message.get("tool_calls"):
            openai_chat.fill([message], builder, document)
        elif role == "assistant":
            builder.text_turn(text)
        elif role == "tool":
            call_id = message.get("tool_call_id")
            builder.text_result(text, call_id=str(call_id) if call_id else None)
        elif role == "user" and (text.lstrip().startswith("<returncode>") or builder.waiting):
            builder.text_result(text)
        elif role == "user":
            builder.user(text)
        else:
            builder.drop(f"'{role}' message(s)")
    exit_info = {**exit_extra, **_info(content)}
    submission = exit_info.get("submission")
    # Under another exit status the exit message says why the run ended, not what it found.
    submitted = str(exit_info.get("exit_status", _SUBMITTED)).lower().startswith(_SUBMITTED)
    beside: tuple[str, str] | None = None
    if isinstance(submission, str) and submission.strip():
        beside = (submission, _SUBMISSION)
    elif exit_text and exit_text.strip() and submitted:
        beside = (exit_text, _EXIT_MESSAGE)
    session_id = str(content.get("instance_id")) if isinstance(content, dict) and content.get("instance_id") else None
    return build_session(
        document,
        builder,
        agent="mini-swe-agent",
        session_id=session_id,
        beside=beside,
        stopped_on=_stopped_on(exit_info),
    )
