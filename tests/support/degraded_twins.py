"""A corpus of SRE investigations in six trace formats and, for each, three degraded twins built by code.

The corpus (``tests/fixtures/traces/corpus``) holds complete investigations as their agents would save them: Codex
and Claude Code session logs, OpenAI chat (plain, LangChain class names, HolmesGPT with duplicated reasoning), OpenAI
Responses items, Anthropic messages and OpenTelemetry GenAI traces. Each is read through the importer
(:func:`sources.documents.parse_trace`), then twinned three ways, each a failure a reviewer must rank below the
original:

- ``cut``: everything after the first tool call dropped, the final analysis unchanged;
- ``errors as text``: every tool result replaced by an error written as text, as a framework that records no failure
  would save it (the call still marked successful), the final analysis unchanged;
- ``wrong conclusion``: the final analysis replaced by another investigation's (fluent, specific and actionable, but
  about something none of this session's tools returned).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from session_scoring.models.session import Session, Step
from session_scoring.sources.documents import read_traces
from session_scoring.sources.formats import load_text
from tests.support.labelled_traces import TRACES, loaded_traces, truncated, with_steps

CORPUS = TRACES / "corpus"
FAMILIES = TRACES / "families"
"""Investigations in the shapes of the second sample's families (SWE-agent, mini-swe-agent, OpenHands V0 and V1,
Inspect AI, LiteLLM, AIOpsLab, a Stratus-like LangGraph log): ``tuned`` may inform the offline judge's rules,
``held_out`` (a third of them) never does; it only measures them."""
SPLITS = ("tuned", "held_out")

ERRORS_AS_TEXT = (
    "Error: context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
    "error: request timed out after 30s",
    'Traceback (most recent call last):\n  File "/app/tools/run.py", line 88, in call\n    raise TimeoutError("tool '
    'call timed out after 30 seconds")\nTimeoutError: tool call timed out after 30 seconds',
    "Process exited with code 124\nOutput:\ntimeout: the monitored command timed out after 30s",
    "HTTP/1.1 504 Gateway Timeout\ncontent-type: text/plain\n\nupstream request timeout",
    "Error from server (Timeout): the server was unable to return a response in the time allotted",
)


def errors_as_text(session: Session) -> Session:
    count = 0

    def replace(step: Step) -> Step:
        nonlocal count
        if step.tool_call is None:
            return step
        text = ERRORS_AS_TEXT[count % len(ERRORS_AS_TEXT)]
        count += 1
        call = step.tool_call.model_copy(update={"result": text, "success": True, "error": None})
        return step.model_copy(update={"tool_call": call})

    return with_steps(session, lambda stage: [replace(step) for step in stage.steps])


@dataclass(frozen=True)
class Investigation:
    name: str
    trace_format: str
    session: Session


def corpus() -> list[Investigation]:
    return [Investigation(path.stem, trace_format, session) for path, trace_format, session in loaded_traces(CORPUS)]


def family_investigations(split: str, directory: Path = FAMILIES) -> list[Investigation]:
    """Every session of the ``split``'s fixtures, read as an upload is (one per Inspect sample)."""
    found: list[Investigation] = []
    for path in sorted(p for p in (directory / split).iterdir() if p.suffix in (".json", ".jsonl", ".traj")):
        for read in read_traces(load_text(path.read_text(encoding="utf-8"), path.name)):
            found.append(Investigation(path.name.split(".")[0], read.trace_format, read.session))
    return found


def wrong_conclusion(investigations: list[Investigation], index: int) -> Session:
    """The ``index``-th investigation with the conclusion of one half the corpus away (another incident)."""
    other = investigations[(index + len(investigations) // 2) % len(investigations)]
    return investigations[index].session.model_copy(update={"final_analysis": other.session.final_analysis})


TWINS: dict[str, Callable[[list[Investigation], int], Session]] = {
    "cut after the first call": lambda items, index: truncated(items[index].session),
    "errors as text": lambda items, index: errors_as_text(items[index].session),
    "wrong conclusion": wrong_conclusion,
}


@dataclass(frozen=True)
class TwinPair:
    investigation: str
    trace_format: str
    twin: str
    original: Session
    degraded: Session


def twin_pairs(investigations: list[Investigation] | None = None) -> list[TwinPair]:
    """Each investigation (the corpus unless given) against each of its three twins."""
    investigations = corpus() if investigations is None else investigations
    return [
        TwinPair(item.name, item.trace_format, twin, item.session, make(investigations, index))
        for twin, make in TWINS.items()
        for index, item in enumerate(investigations)
    ]
