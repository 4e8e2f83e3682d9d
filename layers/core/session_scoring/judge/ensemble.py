"""Ensemble scoring (``scoring.samples: K``): one verdict from K independent verdicts of the same prompt.

Each dimension is the median of its K values (rounded half to even when K is even, so the total, their sum, stays a
whole number); the reasoning, missing tools and approaches come from the sample closest to that median (the
smallest sum of absolute differences over the dimensions; the earliest on a tie). The outcome is the most common of
the K outcomes (on a tie, the closest sample's if it is among the tied, else the first tied in sample order), with
the reason of the closest sample that gave it. The usage is the sum of the K calls. The spread says how much the
samples disagreed.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict, ScoreBreakdown, TokenUsage
from session_scoring.models.scores import DIMENSIONS


def _stats(values: Sequence[int]) -> dict[str, Any]:
    stdev = statistics.stdev(values) if len(values) > 1 else 0.0
    return {"min": min(values), "max": max(values), "stdev": round(stdev, 3)}


def spread_of(verdicts: Sequence[JudgeVerdict]) -> dict[str, Any]:
    """How the samples spread: their totals, and the min, max and (sample) standard deviation of the total and of
    each dimension."""
    totals = [v.output.total_score for v in verdicts]
    result: dict[str, Any] = {"samples": len(verdicts), "totals": totals, "total": _stats(totals)}
    for dimension in DIMENSIONS:
        result[dimension] = _stats([int(getattr(v.output.score_breakdown, dimension)) for v in verdicts])
    return result


def median_verdict(verdicts: Sequence[JudgeVerdict]) -> tuple[JudgeVerdict, dict[str, Any]]:
    """The ensemble verdict of ``verdicts`` (at least one) and its spread."""
    if not verdicts:
        raise ValueError("an ensemble needs at least one verdict")
    medians = {
        d: round(statistics.median(int(getattr(v.output.score_breakdown, d)) for v in verdicts)) for d in DIMENSIONS
    }

    def distance(verdict: JudgeVerdict) -> int:
        return sum(abs(int(getattr(verdict.output.score_breakdown, d)) - medians[d]) for d in DIMENSIONS)

    closest = min(verdicts, key=distance)
    votes = Counter(v.output.outcome for v in verdicts)
    most = max(votes.values())
    tied = [o for o in dict.fromkeys(v.output.outcome for v in verdicts) if votes[o] == most]
    outcome = closest.output.outcome if closest.output.outcome in tied else tied[0]
    voter = min((v for v in verdicts if v.output.outcome == outcome), key=distance)
    breakdown = ScoreBreakdown(**medians)
    output = JudgeOutputSchema(
        total_score=breakdown.total(),
        score_breakdown=breakdown,
        score_reasoning=closest.output.score_reasoning,
        missing_tools=closest.output.missing_tools,
        alternative_approaches=closest.output.alternative_approaches,
        outcome=outcome,
        outcome_reason=voter.output.outcome_reason,
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
