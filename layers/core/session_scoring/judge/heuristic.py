"""The heuristic judge: an offline, deterministic judge with no LLM.

It is the embedded default of the local stack when no LLM credentials are configured, so the whole service runs
and can be demonstrated on a laptop. It is NOT an LLM judgement: it measures the *shape* of the investigation in
the normalised session and explains, in its reasoning, the evidence behind every point it gives or takes. Its
scores carry provider ``heuristic`` and model ``heuristic-rules-v2``, hence their own criteria hash.

What it measures (``docs/trace-formats.md`` lists the points of each rule):

- **Hypothesis then test**: reasoning that states a hypothesis or a plan, followed by a tool call.
- **Evidence diversity**: distinct tools and distinct targets (argument values). Only *wasteful* repeats cost
  points: the same call with the same arguments in the same stage after it already succeeded with the same
  result. Polling (a changed result) and retries after a failure are not punished.
- **Coverage of the alert**: the resources the alert names (namespace, pod, host, node, service...) appear in the
  calls' arguments.
- **Grounded conclusion**: specific values returned by tools (identifiers, numbers, times) cited in the final
  analysis, and specific values in it that no tool returned and the alert does not contain (unsupported claims).
- **Failures**: a failed call followed within the next two calls by a successful one (a retry or a different
  approach) is recovered; one never recovered costs points.
- **Depth relative to severity**: successful calls against what the alert's severity calls for (critical 5,
  warning 3, info 2, unknown 4); high confidence on less evidence than that costs points.
- **A usable answer**: the final analysis names the alert's resources and says what to do.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from session_scoring.judge.base import JudgeRequest
from session_scoring.models.judge import (
    JudgeAlternativeApproach,
    JudgeMissingTool,
    JudgeOutputSchema,
    JudgeVerdict,
    ScoreBreakdown,
)
from session_scoring.models.scores import DIMENSION_MAX
from session_scoring.models.session import AvailableTool, Session, Stage, ToolCall

HEURISTIC_MODEL = "heuristic-rules-v2"

_FORENSIC = re.compile(r"log|file|process|event|describe|read|grep|history|exec|top|network|journal", re.IGNORECASE)
_CONFIDENT = re.compile(
    r"\bhigh confidence\b|\bconfidence:\s*high\b|\bdefinitely\b|\bcertain(ly)?\b|\bconfirmed\b|\bwithout doubt\b",
    re.IGNORECASE,
)
# Words of a stated hypothesis or plan (plain substrings of the lower-cased text: fast on long reasoning).
_HYPOTHESIS = (
    "hypothes",
    "likely",
    "probably",
    "suspect",
    "could be",
    "might be",
    "may be",
    "possible cause",
    "i think",
    "check whether",
    "check if",
    "to confirm",
    "to rule out",
    "usually",
    "means",
    "should show",
    "should say",
    "should tell",
    "will tell",
    "will show",
    "is it ",
    "was the ",
    "first",
    "instead",
    "?",
)
_ACTION = re.compile(
    r"\bfix\b|recommend|roll ?back|\brestart|\bshould\b|next step|remediat|\brenew|\bre-?enable|\bdrop\b|\bscale\b|"
    r"\bincrease\b|\breplace\b|\bapply\b|\brecreate\b|\bcordon\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]*[A-Za-z0-9]")
_TARGET_KEYS = (
    "namespace",
    "pod",
    "pod_name",
    "host",
    "hostname",
    "node",
    "node_name",
    "instance",
    "service",
    "container",
    "deployment",
    "statefulset",
    "daemonset",
    "job",
    "cluster",
    "mountpoint",
    "database",
    "app",
)
_TARGET_PHRASE = re.compile(
    r"\b(?:namespace|pod|host|node|service|instance|deployment|cluster|on|for)\s+([A-Za-z0-9][\w.-]*[A-Za-z0-9])",
    re.IGNORECASE,
)
_SEVERITY_DEPTH = {"critical": 5, "page": 5, "high": 5, "error": 4, "warning": 3, "medium": 3, "info": 2, "low": 2}
_CATEGORIES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("logs", re.compile(r"log|journal", re.IGNORECASE), "the logs of the affected resource show what failed and when"),
    (
        "metrics",
        re.compile(r"metric|prometheus|promql|query_range|top\b|_top|grafana|datadog", re.IGNORECASE),
        "metrics over time separate a trend from a one-off spike",
    ),
    ("events", re.compile(r"event", re.IGNORECASE), "cluster or cloud events record state changes around the alert"),
    (
        "change history",
        re.compile(r"deploy|rollout|history|change|git|release|audit", re.IGNORECASE),
        "recent deployments or configuration changes are the most common cause of a new failure",
    ),
)


_DIGIT = re.compile(r"\d")
_SEPARATOR = re.compile(r"[-_./:]")
_LETTER = re.compile(r"[A-Za-z]")


def _specific(token: str) -> bool:
    """A value worth citing: has a digit and 3+ characters, or is an identifier with a separator."""
    if len(token) < 3:
        return False
    if _DIGIT.search(token):
        return True
    return len(token) >= 6 and _SEPARATOR.search(token) is not None and _LETTER.search(token) is not None


def _tokens(text: str) -> set[str]:
    return {t for t in set(_TOKEN.findall(text.lower())) if _specific(t)}


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)


def _failed(call: ToolCall) -> bool:
    return not call.success or bool(call.error)


@dataclass
class _Dimension:
    title: str
    base: int
    points: int = 0
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.points = self.base

    def add(self, points: int, note: str) -> None:
        self.points += points
        sign = f"+{points}" if points >= 0 else str(points)
        self.notes.append(f"{sign}: {note}")

    @property
    def value(self) -> int:
        return max(0, min(DIMENSION_MAX, self.points))


@dataclass
class _Facts:
    """What the rules look at, computed once per session."""

    session: Session
    calls: list[ToolCall]
    succeeded: list[ToolCall]
    targets: list[str]
    covered: list[str]
    result_tokens: set[str]
    task_tokens: set[str]
    cited: list[str]
    unsupported: list[str]
    hypotheses: list[tuple[str, str]]
    reasoned_calls: int
    wasteful: list[str]
    recovered: list[str]
    unrecovered: list[ToolCall]
    expected_depth: int
    severity: str | None
    distinct_tools: list[str]
    distinct_targets: int


def _task_text(session: Session) -> str:
    for stage in session.stages:
        for step in stage.steps:
            if step.kind == "message" and step.text and step.text.startswith(("User:", "User question:")):
                return step.text
    return ""


def _alert_targets(session: Session, task: str) -> list[str]:
    targets: list[str] = []
    for key in _TARGET_KEYS:
        value = session.alert.get(key)
        if isinstance(value, str) and value.strip():
            targets.append(value.strip())
    if not targets:
        targets = [m.group(1) for m in _TARGET_PHRASE.finditer(task) if _specific(m.group(1))]
    seen: dict[str, str] = {}
    for target in targets:
        seen.setdefault(target.lower(), target)
    return list(seen.values())[:8]


def _hypotheses(stages: list[Stage]) -> tuple[list[tuple[str, str]], int]:
    """(hypothesis excerpt, tool that tested it) pairs, and how many calls had reasoning just before them."""
    tested: list[tuple[str, str]] = []
    reasoned = 0
    for stage in stages:
        pending: str | None = None
        reasoning_since_call = False
        for step in stage.steps:
            if step.kind == "reasoning" and step.text:
                reasoning_since_call = True
                # A stated hypothesis or plan is in the first sentences; long reasoning need not be searched whole.
                head = step.text[:400].lower()
                if any(word in head for word in _HYPOTHESIS):
                    pending = step.text
            elif step.tool_call is not None:
                reasoned += 1 if reasoning_since_call else 0
                reasoning_since_call = False
                if pending is not None:
                    tested.append((pending.strip().splitlines()[0][:80], step.tool_call.qualified_name))
                    pending = None
    return tested, reasoned


def _signature(call: ToolCall) -> str:
    return f"{call.qualified_name} {json.dumps(call.arguments, sort_keys=True, default=str)}"


def _wasteful_repeats(stages: list[Stage]) -> list[str]:
    """Identical calls in one stage that only repeated an earlier success with the same result."""
    wasteful: list[str] = []
    for stage in stages:
        last: dict[str, ToolCall] = {}
        for call in stage.tool_calls:
            signature = _signature(call)
            before = last.get(signature)
            if before is not None and not _failed(before) and not _failed(call) and before.result == call.result:
                wasteful.append(call.qualified_name)
            last[signature] = call
    return wasteful


def _failures(calls: list[ToolCall]) -> tuple[list[str], list[ToolCall]]:
    recovered: list[str] = []
    unrecovered: list[ToolCall] = []
    for index, call in enumerate(calls):
        if not _failed(call):
            continue
        follow = next((c for c in calls[index + 1 : index + 3] if not _failed(c)), None)
        if follow is None:
            unrecovered.append(call)
        elif _signature(follow) == _signature(call):
            recovered.append(f"{call.qualified_name} failed and an identical retry worked")
        else:
            recovered.append(f"{call.qualified_name} failed and the agent turned to {follow.qualified_name}")
    return recovered, unrecovered


def _severity(session: Session, task: str) -> tuple[str | None, int]:
    raw = session.alert.get("severity") or session.alert.get("priority")
    candidates = [str(raw).lower()] if raw else re.findall(r"\b(critical|warning|info|page)\b", task.lower())
    for candidate in candidates:
        if candidate in _SEVERITY_DEPTH:
            return candidate, _SEVERITY_DEPTH[candidate]
    return None, 4


def _facts(session: Session) -> _Facts:
    calls = session.tool_calls
    succeeded = [c for c in calls if not _failed(c)]
    task = _task_text(session)
    targets = _alert_targets(session, task)
    arguments = " ".join(_text(c.arguments) for c in calls if c.arguments).lower()
    covered = [t for t in targets if t.lower() in arguments]
    argument_tokens = _tokens(arguments)
    result_tokens = _tokens("\n".join(_text(call.result) for call in succeeded))
    task_tokens = _tokens(task + " " + _text(session.alert))
    final_tokens = sorted(_tokens(session.final_analysis or ""))
    cited = [t for t in final_tokens if t in result_tokens and t not in task_tokens]
    unsupported = [
        t for t in final_tokens if t not in result_tokens and t not in task_tokens and t not in argument_tokens
    ]
    hypotheses, reasoned = _hypotheses(session.stages)
    recovered, unrecovered = _failures(calls)
    severity, depth = _severity(session, task)
    distinct_targets = argument_tokens
    return _Facts(
        session=session,
        calls=calls,
        succeeded=succeeded,
        targets=targets,
        covered=covered,
        result_tokens=result_tokens,
        task_tokens=task_tokens,
        cited=cited,
        unsupported=unsupported,
        hypotheses=hypotheses,
        reasoned_calls=reasoned,
        wasteful=_wasteful_repeats(session.stages),
        recovered=recovered,
        unrecovered=unrecovered,
        expected_depth=depth,
        severity=severity,
        distinct_tools=sorted({c.qualified_name for c in calls}),
        distinct_targets=len(distinct_targets),
    )


def _listed(items: list[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


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
    facts = _facts(session)
    unused = _unused_tools(session, facts.calls)
    dimensions = [
        _logical_flow(facts),
        _consistency(facts),
        _tool_relevance(facts, unused),
        _synthesis(facts),
    ]
    breakdown = ScoreBreakdown(
        logical_flow=dimensions[0].value,
        consistency=dimensions[1].value,
        tool_relevance=dimensions[2].value,
        synthesis_quality=dimensions[3].value,
    )
    return JudgeOutputSchema(
        total_score=breakdown.total(),
        score_breakdown=breakdown,
        score_reasoning=_reasoning(facts, dimensions),
        missing_tools=_missing_tools(facts, unused)[:5],
        alternative_approaches=_alternatives(facts, unused),
    )


def _unused_tools(session: Session, calls: list[ToolCall]) -> list[AvailableTool]:
    called = {c.name for c in calls} | {c.qualified_name for c in calls}
    return [t for t in session.all_available_tools if t.name not in called and t.qualified_name not in called]


def _logical_flow(f: _Facts) -> _Dimension:
    d = _Dimension("Logical flow", 6)
    if not f.calls:
        d.add(-4, "the agent never called a tool, so no step of the investigation tested anything")
        return d
    share = f.reasoned_calls / len(f.calls)
    d.add(round(5 * share), f"{f.reasoned_calls} of {len(f.calls)} tool calls were preceded by the agent's reasoning")
    if f.hypotheses:
        examples = "; ".join(f"'{text}' -> {tool}" for text, tool in f.hypotheses[:3])
        d.add(min(6, 2 * len(f.hypotheses)), f"{len(f.hypotheses)} stated hypotheses or plans were tested: {examples}")
    else:
        d.add(0, "no reasoning stated a hypothesis before a tool call tested it")
    depth = min(1.0, len(f.succeeded) / f.expected_depth)
    d.add(
        round(6 * depth),
        f"{len(f.succeeded)} successful calls against {f.expected_depth} expected for "
        f"{'a ' + f.severity if f.severity else 'an unknown'}-severity alert",
    )
    for note in f.recovered[:3]:
        d.add(1, note)
    for call in f.unrecovered:
        d.add(-4, f"{call.qualified_name} failed ({(call.error or 'no result')[:80]}) and no later call recovered it")
    if f.wasteful:
        d.add(
            -2 * len(f.wasteful),
            f"identical calls repeated an earlier success with the same result: {_listed(f.wasteful)}",
        )
    return d


def _consistency(f: _Facts) -> _Dimension:
    d = _Dimension("Consistency", 8)
    analysis = (f.session.final_analysis or "").strip()
    if not analysis:
        d.add(-8, "there is no final analysis whose consistency with the evidence could be checked")
        return d
    claims = len(f.cited) + len(f.unsupported)
    if claims:
        supported = len(f.cited) / claims
        d.add(
            round(10 * supported),
            f"{len(f.cited)} of {claims} specific values in the final analysis come from tool results",
        )
        if f.unsupported:
            d.add(
                -min(6, len(f.unsupported)),
                "values in the final analysis that no tool returned and the alert does not contain: "
                + _listed(f.unsupported),
            )
    elif not f.succeeded:
        d.add(-4, "the final analysis draws conclusions although no tool call returned any evidence")
    else:
        d.add(2, "the final analysis makes no specific claim that the evidence contradicts")
    if _CONFIDENT.search(analysis) and len(f.succeeded) < f.expected_depth:
        d.add(
            -6,
            f"the final analysis claims high confidence on {len(f.succeeded)} successful call(s), fewer than the "
            f"{f.expected_depth} this alert calls for",
        )
    else:
        d.add(3, "the stated confidence does not exceed the evidence gathered")
    return d


def _tool_relevance(f: _Facts, unused: list[AvailableTool]) -> _Dimension:
    d = _Dimension("Tool relevance", 4)
    if not f.calls:
        d.add(-4, "no tool was called")
        return d
    d.add(min(6, 2 * len(f.distinct_tools)), f"{len(f.distinct_tools)} distinct tools: {_listed(f.distinct_tools)}")
    d.add(
        min(4, f.distinct_targets // 2),
        f"{f.distinct_targets} distinct specific values (targets) appear in the calls' arguments",
    )
    if f.targets:
        share = len(f.covered) / len(f.targets)
        missed = [t for t in f.targets if t not in f.covered]
        d.add(
            round(8 * share),
            f"the calls covered {len(f.covered)} of the {len(f.targets)} resources the alert names"
            + (f" (never queried: {_listed(missed)})" if missed else f" ({_listed(f.covered)})"),
        )
    else:
        d.add(4, "the alert names no resource to cover")
    forensic = [t.qualified_name for t in unused if _FORENSIC.search(t.name)]
    if forensic:
        d.add(-min(4, len(forensic)), f"available forensic tools never called: {_listed(forensic)}")
    if f.unrecovered:
        d.add(-2 * len(f.unrecovered), f"{len(f.unrecovered)} failed call(s) left the evidence they sought missing")
    return d


def _synthesis(f: _Facts) -> _Dimension:
    d = _Dimension("Synthesis quality", 4)
    analysis = (f.session.final_analysis or "").strip()
    if not analysis:
        d.add(-4, "no final analysis was produced")
        return d
    if f.cited:
        d.add(min(10, 2 * len(f.cited)), f"the final analysis cites values the tools returned: {_listed(f.cited, 6)}")
    else:
        d.add(-2, "the final analysis cites none of the specific values the tools returned")
    named = [t for t in f.targets if t.lower() in analysis.lower()]
    if named:
        d.add(3, f"it names the affected resources ({_listed(named)})")
    if _ACTION.search(analysis):
        d.add(4, "it says what to do next")
    else:
        d.add(0, "it does not say what to do about the problem")
    if len(analysis) >= 200:
        d.add(2, f"it explains the cause in {len(analysis)} characters, not a one-line verdict")
    return d


def _reasoning(f: _Facts, dimensions: list[_Dimension]) -> str:
    parts = [
        "This score was produced by the offline heuristic judge (deterministic rules, no LLM, model "
        f"{HEURISTIC_MODEL}); it measures the shape of the investigation, not the meaning of the evidence.",
        f"The session made {len(f.calls)} tool call(s), {len(f.succeeded)} of them successful, across "
        f"{len(f.session.stages)} stage(s); the alert names {_listed(f.targets) if f.targets else 'no resource'}.",
    ]
    for dimension in dimensions:
        detail = " ".join(f"({note})" for note in dimension.notes) or "(no rule applied)"
        parts.append(f"{dimension.title}: {dimension.value}/25 (base {dimension.base}, then per rule) {detail}")
    parts.append(
        "A rigorous investigation states a hypothesis before each call, queries every resource the alert names with "
        "several different tools, recovers from each failure with another approach, gathers as much evidence as the "
        "severity calls for, and ends with a conclusion that cites the values the tools returned and says what to do."
    )
    return "\n\n".join(parts)


def _missing_tools(f: _Facts, unused: list[AvailableTool]) -> list[JudgeMissingTool]:
    missing: list[JudgeMissingTool] = []
    for tool in unused:
        if _FORENSIC.search(tool.name):
            missing.append(
                JudgeMissingTool(
                    tool_name=tool.qualified_name,
                    rationale=f"{tool.qualified_name} was available but never called; it would have provided direct "
                    "evidence (logs, files, processes or events) instead of inference"
                    + (f" ({tool.description})" if tool.description else "")
                    + ".",
                )
            )
    if missing or f.session.all_available_tools:
        return missing
    # No tools list: name the kinds of evidence no call gathered.
    called = " ".join(f"{c.qualified_name} {_text(c.arguments)}" for c in f.calls)
    subject = _listed(f.targets, 2) if f.targets else "the affected resource"
    for name, pattern, why in _CATEGORIES:
        if not pattern.search(called):
            missing.append(
                JudgeMissingTool(
                    tool_name=name,
                    rationale=f"No call gathered {name} for {subject}; {why}. (The session recorded no tools list, "
                    "so this names the kind of tool, not a specific one.)",
                )
            )
    return missing


def _alternatives(f: _Facts, unused: list[AvailableTool]) -> list[JudgeAlternativeApproach]:
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
    if f.unrecovered:
        first = f.unrecovered[0]
        approaches.append(
            JudgeAlternativeApproach(
                name="Recover From Tool Failures",
                description="Treat a failed call as information and pivot to another source of the same evidence.",
                steps=[
                    f"Read the error of {first.qualified_name} ({(first.error or 'failed')[:120]}) and correct its "
                    "parameters by discovering the right values first",
                    "If the resource is gone or unreachable, query historical data (previous logs, events) instead",
                    "Only then draw conclusions, stating which evidence could not be obtained",
                ],
            )
        )
    missed = [t for t in f.targets if t not in f.covered]
    if missed or len(f.hypotheses) < 2 or len(f.succeeded) < f.expected_depth:
        steps = [f"Query {target} directly (status, logs, recent events)" for target in missed[:3]]
        steps += [
            "Write down the most likely cause and what evidence would confirm or refute it",
            "Call the tool that gathers that evidence, then revise the hypothesis with what it returned",
            "Conclude with the specific values that support the cause, and what to do about it",
        ]
        approaches.append(
            JudgeAlternativeApproach(
                name="Hypothesis-Driven Narrowing",
                description="Test one explicit hypothesis per call against the resources the alert names, so each "
                "call either confirms or rules out a cause.",
                steps=steps,
            )
        )
    if not approaches and f.calls:
        approaches.append(
            JudgeAlternativeApproach(
                name="Cross-Check the Conclusion",
                description="The investigation was thorough; a second, independent source would make the conclusion "
                "harder to dispute.",
                steps=[
                    "Confirm the cause with a source not yet used (metrics if logs were used, or the reverse)",
                    "Check whether the same cause affects sibling resources of the alert",
                ],
            )
        )
    return approaches[:3]
