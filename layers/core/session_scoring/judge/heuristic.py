"""The heuristic judge: an offline, deterministic judge with no LLM.

It is the embedded default of the local stack when no LLM credentials are configured, so the whole service runs
and can be demonstrated on a laptop. It is NOT an LLM judgement: it applies the fixed rules below to the normalised
session and explains, in its reasoning, each rule that fired. Its scores carry provider ``heuristic`` and, because
the provider is part of the criteria, their own criteria hash.

Each dimension starts at 20 of 25 (the prompt's "typical" ceiling) and loses points per finding:

1. Available tools never called (tool relevance, -2 each, at most -10). Forensic tools (logs, files, processes,
   events, describe) become missing tools.
2. Failed calls never worked around: a failed call with no later successful call (logical flow -3, tool relevance -2
   each).
3. Repeated identical calls: the same tool with the same arguments again (logical flow -2 each).
4. High confidence on little evidence: the final analysis claims high confidence or certainty while fewer than three
   calls succeeded (consistency -8).
5. A final analysis that cites none of the gathered evidence: no distinctive value from any successful result
   appears in it (synthesis -10); conclusions with no evidence gathered at all (synthesis -10, consistency -6);
   no final analysis at all (synthesis -15).
6. No tool call at all (logical flow -10, tool relevance -15).
A thorough investigation (several successful calls, evidence cited, nothing above) gains +2 in each dimension.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from dataclasses import dataclass, field

from session_scoring.judge.base import JudgeRequest
from session_scoring.models.judge import (
    JudgeAlternativeApproach,
    JudgeMissingTool,
    JudgeOutputSchema,
    JudgeVerdict,
    ScoreBreakdown,
)
from session_scoring.models.scores import DIMENSION_MAX
from session_scoring.models.session import AvailableTool, Session, ToolCall

HEURISTIC_MODEL = "heuristic-rules-v1"
_START = 20
_FORENSIC = re.compile(r"log|file|process|event|describe|read|grep|history|exec|top|network", re.IGNORECASE)
_CONFIDENT = re.compile(
    r"\bhigh confidence\b|\bconfidence:\s*high\b|\bdefinitely\b|\bcertain(ly)?\b|\bconfirmed\b|\bwithout doubt\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{3,}")
_COMMON = {
    "true",
    "false",
    "null",
    "none",
    "name",
    "status",
    "type",
    "data",
    "items",
    "result",
    "value",
    "running",
    "kind",
    "metadata",
    "namespace",
    "error",
    "message",
    "reason",
    "spec",
    "time",
    "count",
}


@dataclass
class _Findings:
    logical_flow: int = _START
    consistency: int = _START
    tool_relevance: int = _START
    synthesis_quality: int = _START
    notes: dict[str, list[str]] = field(
        default_factory=lambda: {k: [] for k in ("flow", "consistency", "tools", "synthesis")}
    )
    missing: list[JudgeMissingTool] = field(default_factory=list)


def _clamp(value: int) -> int:
    return max(0, min(DIMENSION_MAX, value))


def _signature(call: ToolCall) -> str:
    return f"{call.qualified_name} {json.dumps(call.arguments, sort_keys=True, default=str)}"


def _failed(call: ToolCall) -> bool:
    return not call.success or bool(call.error)


def _evidence_tokens(calls: list[ToolCall]) -> set[str]:
    tokens: set[str] = set()
    for call in calls:
        if _failed(call) or call.result is None:
            continue
        text = call.result if isinstance(call.result, str) else json.dumps(call.result, default=str)
        tokens.update(t.lower() for t in _TOKEN.findall(text) if t.lower() not in _COMMON)
    return tokens


class HeuristicJudge:
    """Deterministic rules over the session; the same session always gets the same verdict."""

    provider = "heuristic"

    def __init__(self, model: str = HEURISTIC_MODEL) -> None:
        self.model = model

    def evaluate(self, request: JudgeRequest) -> JudgeVerdict:
        started = time.monotonic()
        output = assess(request.session)
        return JudgeVerdict(
            output=output, provider=self.provider, model=self.model, latency_ms=int((time.monotonic() - started) * 1000)
        )


def assess(session: Session) -> JudgeOutputSchema:
    f = _Findings()
    calls = session.tool_calls
    succeeded = [c for c in calls if not _failed(c)]
    available = session.all_available_tools
    called = {c.name for c in calls} | {c.qualified_name for c in calls}
    unused = [t for t in available if t.name not in called and t.qualified_name not in called]

    if not calls:
        f.logical_flow -= 10
        f.tool_relevance -= 15
        f.notes["flow"].append(
            "The agent never called a single tool, so every conclusion rests on the alert text alone."
        )
    _rule_unused_tools(f, unused)
    _rule_failures(f, calls)
    _rule_repeats(f, calls)
    _rule_confidence(f, session, succeeded)
    _rule_synthesis(f, session, succeeded)

    clean = not any(f.notes.values()) and len(succeeded) >= 3
    bonus = 2 if clean else 0
    breakdown = ScoreBreakdown(
        logical_flow=_clamp(f.logical_flow + bonus),
        consistency=_clamp(f.consistency + bonus),
        tool_relevance=_clamp(f.tool_relevance + bonus),
        synthesis_quality=_clamp(f.synthesis_quality + bonus),
    )
    return JudgeOutputSchema(
        total_score=breakdown.total(),
        score_breakdown=breakdown,
        score_reasoning=_reasoning(session, f, breakdown, calls, succeeded, unused),
        missing_tools=f.missing[:5],
        alternative_approaches=_alternatives(session, unused, calls),
    )


def _rule_unused_tools(f: _Findings, unused: list[AvailableTool]) -> None:
    if not unused:
        return
    f.tool_relevance -= min(10, 2 * len(unused))
    names = ", ".join(t.qualified_name for t in unused[:8])
    f.notes["tools"].append(f"The agent failed to use available tools such as {names}.")
    for tool in unused:
        if _FORENSIC.search(tool.name):
            f.missing.append(
                JudgeMissingTool(
                    tool_name=tool.qualified_name,
                    rationale=f"{tool.qualified_name} was available but never called; it would have provided direct "
                    "evidence (logs, files, processes or events) instead of inference"
                    + (f" ({tool.description})" if tool.description else "")
                    + ".",
                )
            )


def _rule_failures(f: _Findings, calls: list[ToolCall]) -> None:
    for index, call in enumerate(calls):
        if not _failed(call):
            continue
        later = calls[index + 1 :]
        if any(not _failed(other) for other in later):
            continue
        f.logical_flow -= 3
        f.tool_relevance -= 2
        f.notes["flow"].append(
            f"The call to {call.qualified_name} failed ({call.error or 'no result'}) and the agent never attempted an "
            "alternative afterwards."
        )


def _rule_repeats(f: _Findings, calls: list[ToolCall]) -> None:
    counts = Counter(_signature(c) for c in calls)
    for signature, count in counts.items():
        if count > 1:
            f.logical_flow -= 2 * (count - 1)
            f.notes["flow"].append(
                f"The identical call {signature.split(' ')[0]} was repeated {count} times with the same arguments "
                "instead of adjusting the strategy."
            )


def _rule_confidence(f: _Findings, session: Session, succeeded: list[ToolCall]) -> None:
    analysis = session.final_analysis or ""
    if _CONFIDENT.search(analysis) and len(succeeded) < 3:
        f.consistency -= 8
        f.notes["consistency"].append(
            f"The final analysis claims high confidence, yet only {len(succeeded)} tool call(s) returned evidence; "
            "the confidence level is not justified by the evidence gathered."
        )


def _rule_synthesis(f: _Findings, session: Session, succeeded: list[ToolCall]) -> None:
    analysis = (session.final_analysis or "").strip()
    if not analysis:
        f.synthesis_quality -= 15
        f.notes["synthesis"].append("No final analysis was produced, so nothing was synthesised.")
        return
    if not succeeded:
        f.synthesis_quality -= 10
        f.consistency -= 6
        f.notes["synthesis"].append(
            "The final analysis draws conclusions although no tool call returned any evidence; it rests on the "
            "alert text and guesswork."
        )
        return
    evidence = _evidence_tokens(succeeded)
    if not any(token in analysis.lower() for token in evidence):
        f.synthesis_quality -= 10
        f.notes["synthesis"].append(
            "The final analysis cites none of the specific values the tools returned; it is not grounded in the "
            "gathered evidence."
        )


def _reasoning(
    session: Session,
    f: _Findings,
    breakdown: ScoreBreakdown,
    calls: list[ToolCall],
    succeeded: list[ToolCall],
    unused: list[AvailableTool],
) -> str:
    parts = [
        "This score was produced by the offline heuristic judge (deterministic rules, no LLM); it checks "
        "investigation mechanics, not the meaning of the evidence.",
        f"The session made {len(calls)} tool call(s), {len(succeeded)} of them successful, across "
        f"{len(session.stages)} stage(s), with {len(session.all_available_tools)} tool(s) recorded as available "
        f"and {len(unused)} of those never used.",
    ]
    sections = (
        ("Logical flow", breakdown.logical_flow, f.notes["flow"]),
        ("Consistency", breakdown.consistency, f.notes["consistency"]),
        ("Tool relevance", breakdown.tool_relevance, f.notes["tools"]),
        ("Synthesis quality", breakdown.synthesis_quality, f.notes["synthesis"]),
    )
    for title, points, notes in sections:
        detail = " ".join(notes) if notes else "No rule found a problem here; the score stays at the typical level."
        parts.append(f"{title}: {points}/25. {detail}")
    parts.append(
        "A rigorous investigation would have gathered direct evidence with every relevant tool, worked around each "
        "failure with an alternative, avoided repeating identical calls, and tied each conclusion to specific values "
        "from the tool results, stating its confidence only as far as that evidence reaches."
    )
    return "\n\n".join(parts)


def _alternatives(
    session: Session, unused: list[AvailableTool], calls: list[ToolCall]
) -> list[JudgeAlternativeApproach]:
    approaches: list[JudgeAlternativeApproach] = []
    forensic = [t for t in unused if _FORENSIC.search(t.name)] or unused
    if forensic:
        steps = [f"Call {t.qualified_name} to gather direct evidence for the alert" for t in forensic[:4]]
        steps.append("Correlate what these tools return with the alert's timestamps and resources before concluding")
        approaches.append(
            JudgeAlternativeApproach(
                name="Evidence-First Investigation",
                description="Use the available forensic tools that were skipped, so conclusions rest on direct "
                "evidence rather than inference.",
                steps=steps,
            )
        )
    failed = [c for c in calls if _failed(c)]
    if failed:
        first = failed[0]
        approaches.append(
            JudgeAlternativeApproach(
                name="Recover From Tool Failures",
                description="Treat a failed call as information and pivot to another source of the same evidence.",
                steps=[
                    f"Read the error of {first.qualified_name} ({first.error or 'failed'}) and correct its parameters "
                    "by discovering the right values first",
                    "If the resource is gone, query historical data (previous logs, events) instead",
                    "Only then draw conclusions, stating which evidence could not be obtained",
                ],
            )
        )
    return approaches[:3]
