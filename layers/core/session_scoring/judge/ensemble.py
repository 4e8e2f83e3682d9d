"""Ensemble scoring (``scoring.samples: K``): one verdict from K independent verdicts of the same prompt.

Generic over the rubric's breakdown map: each dimension is the median of its K values (rounded half to even when K
is even); the reasoning, missing tools, approaches, failure tags and claims come from the sample closest to those
medians (the smallest sum of absolute differences over the dimensions; the earliest on a tie). The outcome, and the
ceiling field's answer when the rubric has one, are each the most common of the K answers (on a tie, the closest
sample's if it is among the tied, else the first tied in sample order), the outcome's reason that of the closest
sample that gave it. The total follows the rubric: a ``sum`` rubric's is made from the median dimensions; a
``holistic`` one's is the median of the K totals, brought within the range the voted ceiling allows. The usage is the
sum of the K calls. The spread says how much the samples disagreed.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict, TokenUsage
from session_scoring.models.rubric import Rubric

_T = TypeVar("_T", bound=Hashable)


def _stats(values: Sequence[int]) -> dict[str, Any]:
    stdev = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"min": min(values), "max": max(values), "stdev": round(stdev, 3)}


def median_points(breakdowns: Sequence[dict[str, int]]) -> dict[str, int]:
    """Each key's median over ``breakdowns`` (the keys of the first; rounded half to even), the helper juries use."""
    return {key: round(statistics.median(b[key] for b in breakdowns)) for key in breakdowns[0]}


def spread_of(verdicts: Sequence[JudgeVerdict]) -> dict[str, Any]:
    """How the samples spread: their totals, and the min, max and (sample) standard deviation of the total and of
    each dimension."""
    totals = [v.output.total_score for v in verdicts]
    result: dict[str, Any] = {"samples": len(verdicts), "totals": totals, "total": _stats(totals)}
    for dimension in verdicts[0].output.score_breakdown:
        result[dimension] = _stats([v.output.score_breakdown[dimension] for v in verdicts])
    return result


def _vote(verdicts: Sequence[JudgeVerdict], answer: Callable[[JudgeVerdict], _T], closest: JudgeVerdict) -> _T:
    votes = Counter(answer(v) for v in verdicts)
    most = max(votes.values())
    tied = [a for a in dict.fromkeys(answer(v) for v in verdicts) if votes[a] == most]
    return answer(closest) if answer(closest) in tied else tied[0]


def median_verdict(verdicts: Sequence[JudgeVerdict], rubric: Rubric) -> tuple[JudgeVerdict, dict[str, Any]]:
    """The ensemble verdict of ``verdicts`` (at least one, judged under ``rubric``) and its spread."""
    if not verdicts:
        raise ValueError("an ensemble needs at least one verdict")
    medians = median_points([v.output.score_breakdown for v in verdicts])

    def distance(verdict: JudgeVerdict) -> int:
        return sum(abs(verdict.output.score_breakdown[d] - medians[d]) for d in medians)

    closest = min(verdicts, key=distance)
    outcome = _vote(verdicts, lambda v: v.output.outcome, closest)
    ceiling = _vote(verdicts, lambda v: v.output.ceiling, closest)
    voter = min((v for v in verdicts if v.output.outcome == outcome), key=distance)
    if rubric.total == "sum":
        total = rubric.scaled_total(medians)
    else:
        total = rubric.capped(round(statistics.median(v.output.total_score for v in verdicts)), ceiling)
    output = JudgeOutputSchema(
        total_score=total,
        score_breakdown=medians,
        score_reasoning=closest.output.score_reasoning,
        missing_tools=closest.output.missing_tools,
        alternative_approaches=closest.output.alternative_approaches,
        outcome=outcome,
        outcome_reason=voter.output.outcome_reason,
        ceiling=ceiling,
        failure_tags=closest.output.failure_tags,
        claims=closest.output.claims,
    )
    usage = sum((v.usage for v in verdicts), TokenUsage())
    verdict = JudgeVerdict(
        output=output,
        provider=closest.provider,
        model=closest.model,
        usage=usage,
        latency_ms=sum(v.latency_ms for v in verdicts),
    )
    return verdict, spread_of(verdicts)
