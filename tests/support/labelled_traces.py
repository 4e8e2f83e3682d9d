"""A labelled set for the offline judge: each trace fixture in full vs the same investigation degraded.

The fixtures (tests/fixtures/traces) are complete investigations in six formats. Each degradation keeps the
session's identity and changes one thing a reviewer would mark down:

- ``truncated``: cut after the first tool call, the final analysis unchanged (it now cites values never gathered);
- ``evidence removed``: every other successful tool call dropped;
- ``conclusion unsupported``: the final analysis replaced by a confident verdict citing nothing the tools returned;
- ``failure not retried``: everything after the first failed call dropped (the agent gave up on it);
- ``repeats instead of evidence``: every call after the first replaced by a copy of the first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from session_scoring.models.session import Session, Stage, Step
from session_scoring.sources.documents import parse_trace
from session_scoring.sources.formats import load_text

TRACES = Path(__file__).resolve().parent.parent / "fixtures" / "traces"

UNSUPPORTED_CONCLUSION = (
    "The root cause is a configuration problem in the affected service. Confidence: high. Restart the service and "
    "monitor it."
)


def trace_paths(directory: Path = TRACES) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.suffix in (".json", ".jsonl"))


def load_trace(path: Path) -> tuple[str, Session]:
    return parse_trace(load_text(path.read_text(encoding="utf-8"), path.name))


def loaded_traces(directory: Path = TRACES) -> list[tuple[Path, str, Session]]:
    """Each trace of ``directory`` with its format and its session, by file name."""
    return [(path, *load_trace(path)) for path in trace_paths(directory)]


def with_steps(session: Session, keep: Callable[[Stage], list[Step]]) -> Session:
    return session.model_copy(update={"stages": [s.model_copy(update={"steps": keep(s)}) for s in session.stages]})


def truncated(session: Session) -> Session:
    done = False

    def keep(stage: Stage) -> list[Step]:
        nonlocal done
        steps: list[Step] = []
        for step in stage.steps:
            if done:
                break
            steps.append(step)
            done = step.tool_call is not None
        return steps

    return with_steps(session, keep)


def evidence_removed(session: Session) -> Session:
    seen = 0

    def keep(stage: Stage) -> list[Step]:
        nonlocal seen
        steps: list[Step] = []
        for step in stage.steps:
            call = step.tool_call
            if call is not None and call.success:
                seen += 1
                if seen % 2 == 0:
                    continue
            steps.append(step)
        return steps

    return with_steps(session, keep)


def conclusion_unsupported(session: Session) -> Session:
    return session.model_copy(update={"final_analysis": UNSUPPORTED_CONCLUSION})


def failure_not_retried(session: Session) -> Session:
    failed = False

    def keep(stage: Stage) -> list[Step]:
        nonlocal failed
        steps: list[Step] = []
        for step in stage.steps:
            if failed:
                break
            steps.append(step)
            failed = step.tool_call is not None and not step.tool_call.success
        return steps

    return with_steps(session, keep)


def repeats_instead_of_evidence(session: Session) -> Session:
    first = next(step for stage in session.stages for step in stage.steps if step.tool_call is not None)

    def keep(stage: Stage) -> list[Step]:
        return [first if step.tool_call is not None else step for step in stage.steps]

    return with_steps(session, keep)


DEGRADATIONS: dict[str, Callable[[Session], Session]] = {
    "truncated": truncated,
    "evidence removed": evidence_removed,
    "conclusion unsupported": conclusion_unsupported,
    "failure not retried": failure_not_retried,
    "repeats instead of evidence": repeats_instead_of_evidence,
}


@dataclass(frozen=True)
class LabelledPair:
    fixture: str
    trace_format: str
    degradation: str
    better: Session
    worse: Session


def labelled_pairs() -> list[LabelledPair]:
    return [
        LabelledPair(path.name, trace_format, name, session, degrade(session))
        for path, trace_format, session in loaded_traces()
        for name, degrade in DEGRADATIONS.items()
    ]
