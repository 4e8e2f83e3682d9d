"""Judge verdicts built in tests, to store through ``ScoreRepository.complete`` without a judge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from session_scoring.configuration.criteria import default_rubric
from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict

DEFAULT_DIMENSIONS: tuple[str, ...] = default_rubric().keys
"""The default rubric's dimension keys, in its order (read from the shipped rubric file)."""


def stored_verdict(
    breakdown: Mapping[str, int],
    tools: Sequence[str] = (),
    reasoning: str = "test",
    outcome: str = "no_reference",
) -> JudgeVerdict:
    """A valid verdict with this breakdown (the total is its sum) naming ``tools`` as missing, with ``outcome``."""
    output = JudgeOutputSchema.model_validate(
        {
            "total_score": sum(breakdown.values()),
            "score_breakdown": dict(breakdown),
            "score_reasoning": reasoning,
            "missing_tools": [{"tool_name": name, "rationale": "needed"} for name in tools],
            "alternative_approaches": [],
            "outcome": outcome,
            "outcome_reason": f"test outcome {outcome}",
        }
    )
    return JudgeVerdict(output=output, provider="test", model="m")
