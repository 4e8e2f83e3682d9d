"""The heuristic judge: an offline, deterministic judge with no LLM.

It is the local stack's default when no LLM credentials are configured, so the whole service runs on a laptop. It is
NOT an LLM judgement: it measures the *shape* of the investigation, checks the conclusion's words and values against
what the tools returned, and its reasoning names the evidence behind every point it gives or takes. Its scores carry
provider ``heuristic`` and model ``heuristic-rules-v4``, hence their own criteria hash. Only a successful call is
evidence: one recorded as failed, or whose output reports a failure (``models.tool_failures``), returned nothing.

What it measures (``docs/trace-formats.md`` lists the points of each rule):

- **Hypothesis then test**: reasoning that states a hypothesis or a plan, followed by a tool call.
- **Evidence diversity**: distinct tools and targets (argument values). Only *wasteful* repeats cost points: the same
  call in the same stage after it already succeeded with the same result (not polling, not retries after a failure).
- **Coverage of the alert**: the resources the alert names (namespace, pod, host...) appear in the calls' arguments.
- **Grounded conclusion**: the final analysis's specific values (identifiers, numbers, times) and distinctive words
  (not common English or generic operations vocabulary) are found in what the successful tools returned (grounded),
  only in the alert, the task or the arguments (restated), or nowhere (ungrounded). A conclusion naming nothing the
  evidence contains cannot score high on consistency or synthesis, whatever its length or advice.
- **Failures**: a failed call followed within two calls by a successful one is recovered; one never recovered costs.
- **Depth relative to severity**: successful calls against what the alert's severity calls for (critical 5,
  warning 3, info 2, unknown 4); high confidence on less evidence than that costs points.
- **A usable answer**: the final analysis names the alert's resources and, once grounded, says what to do.

The **outcome** against a reference root cause (:func:`outcome_of`) is not a rule of the method and changes no point.

The rules measure four **signals**, each on 0-25 (``models.rubric.OFFLINE_SIGNALS``: flow, consistency, tool_use,
synthesis). A rubric maps them onto its dimensions (each dimension's ``offline_signals``: its points are their mean
share of its maximum); a rubric without a mapping for a dimension is refused at start-up, never scored as zero. A
holistic total is the points' share of 100, within the range of the ceiling value the outcome gives (each value's
``offline_outcome``; without a reference, the value whose range holds that share); failure tags come from the
findings the rubric names (``offline_finding``).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

from session_scoring.configuration.criteria import default_rubric
from session_scoring.judge.base import JudgeRequest
from session_scoring.models.judge import (
    NO_REFERENCE_REASON,
    JudgeAlternativeApproach,
    JudgeClaim,
    JudgeMissingTool,
    JudgeOutputSchema,
    JudgeVerdict,
)
from session_scoring.models.reference import Reference
from session_scoring.models.rubric import OFFLINE_FINDINGS, OFFLINE_SIGNALS, Rubric
from session_scoring.models.scores import Outcome
from session_scoring.models.session import AvailableTool, Session, Stage, ToolCall
from session_scoring.models.tool_failures import failure_in_output

HEURISTIC_MODEL = "heuristic-rules-v4"
"""Bumped whenever a rule changes what it gives (v4: severity from the alert's own fields only; a conclusion's words
found in successful calls' arguments are grounded), so scores of different rules never share a criteria hash."""
SIGNAL_MAX = 25
"""Each signal's maximum: the rules' points are written for 0-25."""

_FORENSIC = re.compile(r"log|file|process|event|describe|read|grep|history|exec|top|network|journal", re.IGNORECASE)
_CONFIDENT = re.compile(
    r"\bhigh confidence\b|\bconfidence:\s*high\b|\bdefinitely\b|\bcertain(ly)?\b|\bconfirmed\b|\bwithout doubt\b",
    re.IGNORECASE,
)
# Words of a stated hypothesis or plan (plain substrings of the lower-cased text: fast on long reasoning).
_HYPOTHESIS = tuple(
    (  # noqa: SIM905 - the phrases, not a quoted phrase a line
        "hypothes|likely|probably|suspect|could be|might be|may be|possible cause|i think|check whether|check if|"
        "to confirm|to rule out|usually|means|should show|should say|should tell|will tell|will show|is it |was the |"
        "first|instead|?"
    ).split("|")
)
_ACTION = re.compile(
    r"\bfix\b|recommend|roll ?back|\brestart|\bshould\b|next step|remediat|\brenew|\bre-?enable|\bdrop\b|\bscale\b|"
    r"\bincrease\b|\breplace\b|\bapply\b|\brecreate\b|\bcordon\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]*[A-Za-z0-9]")
_TARGET_KEYS = tuple(
    """
    namespace pod pod_name host hostname node node_name instance service container deployment statefulset daemonset
    job cluster mountpoint database app
    """.split()  # noqa: SIM905 - a word list, not a quoted word a line
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


_LETTERS_THEN_DIGIT = re.compile(r"(?<=[a-z])(?=\d)")


def _evidence_tokens(text: str) -> set[str]:
    """The specific values of evidence text, and the numbers glued to a word in it (``TLSv1.2`` also gives
    ``1.2``), so a conclusion citing the number is matched."""
    tokens = _tokens(text)
    parts = {part for token in tokens for part in _LETTERS_THEN_DIGIT.split(token)[1:] if _specific(part)}
    return tokens | parts


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)


def _failed(call: ToolCall) -> bool:
    """Recorded as failed, or its output reports a failure (a session from a source that did not infer it)."""
    return not call.success or bool(call.error) or failure_in_output(call.result) is not None


def _failure_text(call: ToolCall) -> str:
    return call.error or failure_in_output(call.result) or "no result"


_WORD = re.compile(r"[a-z]{4,}")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
_STOP_WORDS = frozenset(
    """
    about above after again against also already although always among another anything around because been before
    being below between both cannot could does doing done down during each either else enough even ever every first
    from further have having here however into itself just keep kept last least less like made make makes many might
    more most much must need needs never next none once only other otherwise over own perhaps rather really same
    second should since some something soon still such than that their them then there therefore these they thing
    things this those though through thus under until upon very want were what whatever when where whether which
    while whole whom whose will with within without would your yours able across actually almost along anyway away
    based began begin case cases certain clear clearly came come comes find found give given goes going good great
    high higher kind know known large later likely look looked looks lower mean means near nothing number often part
    past place point possible quite real right says seem seems seen several show shows side small start started
    state sure take taken takes tell tells times took turn turned unless usual usually well went wide work works
    worked yet root cause causes caused causing issue issues problem problems fix fixes fixed recommend recommended
    recommendation recommendations action actions step steps summary impact conclusion analysis investigation
    investigate investigated evidence confirm confirmed confidence medium affected affect affects resolve resolved
    resolution mitigate mitigation monitor monitoring ensure alert alerts triggered trigger consider immediate
    immediately short long term prevent future update updated change changed changes current currently now today
    yesterday hour hours minute minutes seconds time service services system systems application applications server
    servers instance instances
    """.split()  # noqa: SIM905 - a word list, not a quoted word a line
)
"""Common English, report and generic operations words: a conclusion of any incident uses them, so they are not
claims about this one."""


def _stem(word: str) -> str:
    """A crude stem (plural ``s`` off, then the first five letters of a long word): rotated/rotation, node/nodes."""
    if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:5] if len(word) >= 6 else word


def _terms(text: str) -> dict[str, str]:
    """The distinctive words of ``text`` (not common English, report or generic operations vocabulary): each stem
    with the first word of ``text`` that has it."""
    words = _WORD.findall(_CAMEL.sub(" ", text).lower())  # SslPolicy, ImagePullBackOff: their words too
    found: dict[str, str] = {}
    for word in words:
        if word not in _STOP_WORDS:
            found.setdefault(_stem(word), word)
    return found


@dataclass
class _Dimension:
    title: str
    base: int
    notes: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.points = self.base

    def add(self, points: int, note: str) -> None:
        self.points += points
        sign = f"+{points}" if points >= 0 else str(points)
        self.notes.append(f"{sign}: {note}")

    @property
    def value(self) -> int:
        return max(0, min(SIGNAL_MAX, self.points))


def _task_text(session: Session) -> str:
    for stage in session.stages:
        for step in stage.steps:
            if step.kind == "message" and step.text and step.text.startswith(("User:", "User question:")):
                return step.text
    return ""


def _alert_targets(session: Session, task: str) -> list[str]:
    values = (session.alert.get(key) for key in _TARGET_KEYS)
    targets = [value.strip() for value in values if isinstance(value, str) and value.strip()]
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


def _severity(session: Session) -> tuple[str | None, int]:
    """The alert's severity from its own fields (``severity``, ``priority``, or its labels'), never from words of the
    task's text: prompt boilerplate ("**CRITICAL REQUIREMENTS:**") names no alert's severity."""
    labels = session.alert.get("labels")
    raw = (
        session.alert.get("severity")
        or session.alert.get("priority")
        or (labels.get("severity") if isinstance(labels, dict) else None)
    )
    candidate = str(raw).strip().lower() if raw else ""
    if candidate in _SEVERITY_DEPTH:
        return candidate, _SEVERITY_DEPTH[candidate]
    return None, 4


class _Facts:
    """What the rules look at, computed once per session."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.analysis = (session.final_analysis or "").strip()
        self.calls = calls = session.tool_calls
        self.succeeded = [c for c in calls if not _failed(c)]
        task = _task_text(session)
        self.targets = _alert_targets(session, task)
        arguments = " ".join(_text(c.arguments) for c in calls if c.arguments).lower()
        self.covered = [t for t in self.targets if t.lower() in arguments]
        argument_tokens = _tokens(arguments)
        evidence = "\n".join(_text(call.result) for call in self.succeeded)
        result_tokens = _evidence_tokens(evidence)
        task_tokens = _evidence_tokens(task + " " + _text(session.alert))
        final_tokens = sorted(_tokens(session.final_analysis or ""))
        self.cited = [t for t in final_tokens if t in result_tokens and t not in task_tokens]
        self.unsupported = [
            t for t in final_tokens if t not in result_tokens and t not in task_tokens and t not in argument_tokens
        ]
        evidence_terms = _terms(evidence)
        given_terms = _terms(task + " " + _text(session.alert))
        known_terms = {**given_terms, **_terms(arguments)}
        # What the agent itself did: the arguments of its successful calls (a file it wrote, a patch it applied),
        # beyond what the task gave it. A conclusion describing that work is grounded in it; a conclusion of
        # another investigation names none of it.
        acted = _terms(" ".join(_text(c.arguments) for c in self.succeeded if c.arguments))
        final_terms = _terms(session.final_analysis or "")
        self.grounded_terms = [w for t, w in final_terms.items() if t in evidence_terms and t not in known_terms]
        self.acted_terms = [
            w for t, w in final_terms.items() if t in acted and t not in evidence_terms and t not in given_terms
        ]
        self.ungrounded_terms = [w for t, w in final_terms.items() if t not in evidence_terms and t not in known_terms]
        self.hypotheses, self.reasoned_calls = _hypotheses(session.stages)
        self.wasteful = _wasteful_repeats(session.stages)
        self.recovered, self.unrecovered = _failures(calls)
        self.severity, self.expected_depth = _severity(session)
        self.distinct_tools = sorted({c.qualified_name for c in calls})
        self.distinct_targets = len(argument_tokens)

    @property
    def claims(self) -> int:
        """The final analysis's claims, a specific value counting twice a distinctive word."""
        return (
            2 * (len(self.cited) + len(self.unsupported))
            + len(self.grounded_terms)
            + len(self.acted_terms)
            + len(self.ungrounded_terms)
        )

    @property
    def grounded_claims(self) -> int:
        """The final analysis's claims found in what the successful tools returned or what the agent's successful
        calls did (values and words)."""
        return len(self.cited) + len(self.grounded_terms) + len(self.acted_terms)

    @property
    def grounding(self) -> float:
        """The share of the final analysis's claims found in what the successful tools returned or did (0 without
        claims)."""
        grounded = 2 * len(self.cited) + len(self.grounded_terms) + len(self.acted_terms)
        return grounded / self.claims if self.claims else 0.0


def _listed(items: list[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


class HeuristicJudge:
    """Deterministic rules over the session; the same session always gets the same verdict."""

    provider = "heuristic"

    def __init__(self, model: str = HEURISTIC_MODEL, rubric: Rubric | None = None) -> None:
        rubric = rubric or default_rubric()
        problems = rubric.offline_problems()
        if problems:
            raise ValueError(f"the offline judge cannot judge rubric '{rubric.name}': {problems[0][1]}")
        self.model = model
        self.rubric = rubric

    def evaluate(self, request: JudgeRequest) -> JudgeVerdict:
        started = time.monotonic()
        output = assess(request.session, request.reference, self.rubric)
        return JudgeVerdict(
            output=output, provider=self.provider, model=self.model, latency_ms=int((time.monotonic() - started) * 1000)
        )


FOUND_SHARE = 0.5
"""The share of the reference's terms the conclusion must name for ``found``..."""
PARTLY_FOUND_SHARE = 0.2
"""... and for ``partly_found``; below it the outcome is ``missed``."""


def _reference_terms(text: str) -> dict[str, str]:
    """The reference's specific values and distinctive words: each key (a value, or a word's stem) with how the text
    writes it."""
    terms = {token: token for token in sorted(_tokens(text))}
    for stem, word in _terms(text).items():
        terms.setdefault(stem, word)
    return terms


def outcome_of(session: Session, reference: Reference | None) -> tuple[Outcome, str]:
    """Whether the final analysis names the reference root cause's terms (its specific values and distinctive words,
    extracted as for the grounded-conclusion rule; the remediation is not compared), and a one-line reason."""
    if reference is None:
        return Outcome.NO_REFERENCE, NO_REFERENCE_REASON
    wanted = _reference_terms(reference.root_cause)
    conclusion = (session.final_analysis or "").strip()
    if not conclusion:
        return Outcome.MISSED, "the session has no final analysis to compare with the reference root cause"
    if not wanted:
        return Outcome.MISSED, (
            "the reference root cause names no specific value or distinctive word the rules can look for; "
            "nothing of it could be found in the conclusion"
        )
    named = _tokens(conclusion) | set(_terms(conclusion))
    found = [shown for key, shown in wanted.items() if key in named]
    share = len(found) / len(wanted)
    outcome = (
        Outcome.FOUND
        if share >= FOUND_SHARE
        else Outcome.PARTLY_FOUND
        if share >= PARTLY_FOUND_SHARE
        else Outcome.MISSED
    )
    missing = [shown for key, shown in wanted.items() if key not in named]
    reason = (
        f"the conclusion names {len(found)} of the reference root cause's {len(wanted)} specific terms"
        + (f" ({_listed(found)})" if found else "")
        + (f"; not {_listed(missing)}" if missing else "")
    )
    return outcome, reason


def assess(session: Session, reference: Reference | None = None, rubric: Rubric | None = None) -> JudgeOutputSchema:
    """The offline verdict of ``session`` under ``rubric`` (which maps the measured signals onto its dimensions; the
    default rubric when none is given)."""
    rubric = rubric or default_rubric()
    facts = _Facts(session)
    unused = _unused_tools(session, facts.calls)
    signals = {
        "flow": _flow(facts),
        "consistency": _consistency(facts),
        "tool_use": _tool_use(facts, unused),
        "synthesis": _synthesis(facts),
    }
    assert set(signals) == set(OFFLINE_SIGNALS)
    breakdown = {
        d.key: round(
            sum(signals[name].value for name in d.offline_signals)
            * d.max_points
            / (SIGNAL_MAX * len(d.offline_signals))
        )
        for d in rubric.dimensions
    }
    outcome, outcome_reason = outcome_of(session, reference)
    ceiling: str | None = None
    if rubric.total == "sum":
        total = rubric.scaled_total(breakdown)
    else:
        share = (200 * sum(breakdown.values()) + rubric.max_sum) // (2 * rubric.max_sum)
        ceiling = _ceiling_value(rubric, outcome, share)
        total = rubric.capped(share, ceiling)
    findings = _findings(facts, unused, outcome)
    reasoning = _reasoning(facts, list(signals.values()))
    signals_themselves = all(d.max_points == SIGNAL_MAX for d in rubric.dimensions) and tuple(
        d.offline_signals for d in rubric.dimensions
    ) == tuple((name,) for name in OFFLINE_SIGNALS)
    if not signals_themselves:  # a rubric that is the four signals, in order, needs no mapping line
        reasoning += "\n\n" + _mapping_text(rubric, breakdown, ceiling)
    return JudgeOutputSchema(
        total_score=total,
        score_breakdown=breakdown,
        score_reasoning=reasoning,
        missing_tools=_missing_tools(facts, unused)[:5],
        alternative_approaches=_alternatives(facts, unused),
        outcome=outcome,
        outcome_reason=outcome_reason,
        ceiling=ceiling,
        failure_tags=[t.tag for t in rubric.failure_tags if t.offline_finding in findings],
        claims=_claims(session, facts) if rubric.claims_cite_events else [],
    )


def _ceiling_value(rubric: Rubric, outcome: Outcome, share: int) -> str | None:
    """The ceiling answer: the value the outcome against a reference gives, else the value whose range holds the
    points' share."""
    if rubric.ceilings is None:
        return None
    values = rubric.ceilings.values
    if outcome is not Outcome.NO_REFERENCE:
        for value, allowed in values.items():
            if allowed.offline_outcome is outcome:
                return value
    for value, allowed in values.items():
        if allowed.min <= share <= allowed.max:
            return value
    return next(iter(values))


def _findings(f: _Facts, unused: list[AvailableTool], outcome: Outcome) -> set[str]:
    """Which of :data:`OFFLINE_FINDINGS` the rules found in the session."""
    shallow_evidence = len(f.succeeded) < f.expected_depth
    found = {
        "premature": bool(f.analysis) and shallow_evidence,
        "unused_tools": bool(unused),
        "overconfident": bool(_CONFIDENT.search(f.analysis)) and shallow_evidence,
        "shallow": shallow_evidence or bool(f.unrecovered),
        "ungrounded": bool(f.analysis) and not _grounded(f),
        "missed_reference": outcome is Outcome.MISSED,
    }
    assert set(found) == set(OFFLINE_FINDINGS)
    return {name for name, present in found.items() if present}


def _claims(session: Session, f: _Facts) -> list[JudgeClaim]:
    """The conclusion's grounded values, each citing the first successful call (stage.step) that returned it; the
    first successful call when none is grounded, the final stage when no call succeeded."""
    cited = [*f.cited, *f.grounded_terms]
    claims: list[JudgeClaim] = []
    first_success: str | None = None
    for stage_index, stage in enumerate(session.stages):
        for step_index, step in enumerate(stage.steps):
            call = step.tool_call
            if call is None or _failed(call):
                continue
            event = f"{stage_index + 1}.{step_index + 1}"
            first_success = first_success or event
            result = _text(call.result).lower()
            for value in [v for v in cited if v.lower() in result]:
                claims.append(
                    JudgeClaim(
                        claim=f"the conclusion's '{value}' is in what {call.qualified_name} returned", event=event
                    )
                )
                cited.remove(value)
    if not claims:
        event = first_success or str(max(1, len(session.stages)))
        claims.append(JudgeClaim(claim="the conclusion rests on no value a tool returned", event=event))
    return claims[:10]


def _mapping_text(rubric: Rubric, breakdown: dict[str, int], ceiling: str | None) -> str:
    parts = [
        f"{d.label}: {breakdown[d.key]}/{d.max_points} from {', '.join(d.offline_signals)}" for d in rubric.dimensions
    ]
    text = f"Under rubric '{rubric.name}' the signals map onto its dimensions: " + "; ".join(parts) + "."
    if rubric.ceilings is not None and ceiling is not None:
        text += f" {rubric.ceilings.label}: {ceiling}."
    return text


def _unused_tools(session: Session, calls: list[ToolCall]) -> list[AvailableTool]:
    called = {c.name for c in calls} | {c.qualified_name for c in calls}
    return [t for t in session.all_available_tools if t.name not in called and t.qualified_name not in called]


def _flow(f: _Facts) -> _Dimension:
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
        d.add(-4, f"{call.qualified_name} failed ({_failure_text(call)[:80]}) and no later call recovered it")
    if f.wasteful:
        d.add(
            -2 * len(f.wasteful),
            f"identical calls repeated an earlier success with the same result: {_listed(f.wasteful)}",
        )
    return d


GROUNDED_CLAIMS = 3
"""A final analysis must carry at least this many claims (values or distinctive words) found in the evidence..."""
GROUNDED_SHARE = 0.2
"""... and at least this share of its claims must be found there, or it scores at most :data:`UNGROUNDED_CAP` on
consistency and synthesis: a conclusion that names nothing the evidence contains is not rescued by its length."""
UNGROUNDED_CAP = 8


def _grounded(f: _Facts) -> bool:
    return f.grounded_claims >= GROUNDED_CLAIMS and f.grounding >= GROUNDED_SHARE


def _claims_note(f: _Facts) -> str:
    found = _listed([*f.cited, *f.grounded_terms], 8)
    return (
        f"{len(f.cited)} specific value(s) and {len(f.grounded_terms)} distinctive word(s) of the final analysis "
        f"come from what the successful tools returned ({found or 'none'}); {len(f.unsupported)} value(s) and "
        f"{len(f.ungrounded_terms)} word(s) appear in no tool result, alert or argument: "
        f"{round(100 * f.grounding)}% of its claims are grounded"
    )


def _cap_ungrounded(d: _Dimension, f: _Facts) -> None:
    if _grounded(f) or d.points <= UNGROUNDED_CAP:
        return
    d.add(
        UNGROUNDED_CAP - d.points,
        f"capped at {UNGROUNDED_CAP}: the final analysis names too little of what the tools returned "
        f"({f.grounded_claims} grounded claim(s), {round(100 * f.grounding)}% of its claims) to be the conclusion of "
        "this evidence",
    )


def _consistency(f: _Facts) -> _Dimension:
    d = _Dimension("Consistency", 5)
    if not f.analysis:
        d.add(-5, "there is no final analysis whose consistency with the evidence could be checked")
        return d
    if not f.succeeded:
        d.add(-4, "the final analysis draws conclusions although no tool call returned any evidence")
    d.add(round(12 * f.grounding), _claims_note(f))
    grounded = f.grounded_claims
    if grounded >= GROUNDED_CLAIMS:
        d.add(min(4, grounded // 3), f"{grounded} claims of the conclusion rest on the evidence")
    if f.unsupported:
        d.add(
            -min(5, len(f.unsupported)),
            "values in the final analysis that no tool returned and the alert does not contain: "
            + _listed(f.unsupported),
        )
    if _CONFIDENT.search(f.analysis) and len(f.succeeded) < f.expected_depth:
        d.add(
            -6,
            f"the final analysis claims high confidence on {len(f.succeeded)} successful call(s), fewer than the "
            f"{f.expected_depth} this alert calls for",
        )
    else:
        d.add(3, "the stated confidence does not exceed the evidence gathered")
    _cap_ungrounded(d, f)
    return d


def _tool_use(f: _Facts, unused: list[AvailableTool]) -> _Dimension:
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
    if not f.analysis:
        d.add(-4, "no final analysis was produced")
        return d
    if f.cited:
        d.add(min(8, 2 * len(f.cited)), f"the final analysis cites values the tools returned: {_listed(f.cited, 6)}")
    if f.grounded_terms:
        d.add(
            min(5, len(f.grounded_terms) // 2),
            f"it names what the tools showed (components, errors): {_listed(f.grounded_terms, 6)}",
        )
    if not f.cited and not f.grounded_terms:
        d.add(-2, "the final analysis cites nothing the tools returned")
    grounded = _grounded(f)
    named = [t for t in f.targets if t.lower() in f.analysis.lower()]
    if named and grounded:
        d.add(3, f"it names the affected resources ({_listed(named)})")
    if _ACTION.search(f.analysis):
        if grounded:
            d.add(4, "it says what to do next")
        else:
            d.add(0, "it says what to do, but about a cause the evidence does not show")
    else:
        d.add(0, "it does not say what to do about the problem")
    if len(f.analysis) >= 200 and grounded:
        d.add(2, f"it explains the cause in {len(f.analysis)} characters, not a one-line verdict")
    _cap_ungrounded(d, f)
    return d


def _reasoning(f: _Facts, dimensions: list[_Dimension]) -> str:
    parts = [
        "This score was produced by the offline heuristic judge (deterministic rules, no LLM, model "
        f"{HEURISTIC_MODEL}); it measures the shape of the investigation and matches the conclusion's values and "
        "words against what the tools returned, without understanding either.",
        f"The session made {len(f.calls)} tool call(s), {len(f.succeeded)} of them successful (a failure "
        "recorded or reported in the output counts as no evidence), across "
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
    if f.session.all_available_tools:
        return [
            JudgeMissingTool(
                tool_name=tool.qualified_name,
                rationale=f"{tool.qualified_name} was available but never called; it would have provided direct "
                "evidence (logs, files, processes or events) instead of inference"
                + (f" ({tool.description})" if tool.description else "")
                + ".",
            )
            for tool in unused
            if _FORENSIC.search(tool.name)
        ]
    # No tools list: name the kinds of evidence no call gathered.
    called = " ".join(f"{c.qualified_name} {_text(c.arguments)}" for c in f.calls)
    subject = _listed(f.targets, 2) if f.targets else "the affected resource"
    return [
        JudgeMissingTool(
            tool_name=name,
            rationale=f"No call gathered {name} for {subject}; {why}. (The session recorded no tools list, "
            "so this names the kind of tool, not a specific one.)",
        )
        for name, pattern, why in _CATEGORIES
        if not pattern.search(called)
    ]


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
                    f"Read the error of {first.qualified_name} ({_failure_text(first)[:120]}) and correct its "
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
