"""AIOpsLab session results (``results/<session>_<time>.json``): ``trace`` (turns ``{"role", "content"}``: the
agent's turns write their action as text, ``exec_shell("kubectl ...")`` or ``submit([...])``, alone or in a code
block; the environment's turns are the results) and ``results`` (the benchmark's grading: success, localisation
accuracy, steps, tokens), with ``problem_id``, ``agent``, ``start_time`` and ``end_time``.
"""

from __future__ import annotations

from typing import Any

from session_scoring.models.session import Session
from session_scoring.sources.formats.common import SUBMIT_TOOL, TraceBuilder, TraceDocument, build_session, parse_time

NAME = "aiopslab-result"


def detect(content: Any) -> bool:
    """``trace`` turns with a role and ``results`` (or ``problem_id``)."""
    if not isinstance(content, dict) or not isinstance(content.get("trace"), list):
        return False
    turns = content["trace"]
    return all(isinstance(t, dict) and "role" in t for t in turns) and ("results" in content or "problem_id" in content)


def _answer_text(value: Any) -> Any:
    """``submit(["svc-a", "svc-b"])``'s argument as text."""
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return value


def parse(document: TraceDocument) -> Session:
    content = document.content
    builder = TraceBuilder()
    for turn in content["trace"]:
        role = str(turn.get("role"))
        text = turn.get("content") if isinstance(turn.get("content"), str) else ""
        if role == "assistant":
            builder.text_turn(text, shell_tool="exec_shell", any_call=True)
        elif role == "system":
            builder.drop("system turn(s)", reason="system prompts are instructions, not the investigation")
        elif builder.waiting:
            builder.text_result(text)
        else:
            builder.user(text)
    beside = _submission(builder)
    results = content.get("results")
    if isinstance(results, dict) and results:
        builder.drop("AIOpsLab result field(s)", len(results), "the benchmark's own grading, not the agent's work")
    return build_session(
        document,
        builder,
        agent=str(content.get("agent") or "aiopslab"),
        session_id=str(content.get("session_id") or "") or None,
        started_at=parse_time(content.get("start_time")),
        completed_at=parse_time(content.get("end_time")),
        beside=beside,
    )


def _submission(builder: TraceBuilder) -> tuple[str, str] | None:
    """The last ``submit(...)``'s argument, with the reasoning the agent wrote in the same turn: a submission is a
    list of names (``["geo"]``), and the turn says why."""
    for index in range(len(builder.steps) - 1, -1, -1):
        call = builder.steps[index].tool_call
        if call is None or call.name != "submit":
            continue
        answer = _answer_text(call.arguments.get("answer", call.arguments.get("args", "")))
        before = builder.steps[index - 1] if index else None
        why = before.text if before is not None and before.kind == "reasoning" and before.text else ""
        text = f"{answer}\n\n{why}".strip() if answer else why
        return (text, f"{SUBMIT_TOOL}:submit") if text else None
    return None
