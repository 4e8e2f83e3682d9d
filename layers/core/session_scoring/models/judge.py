"""What the judge must return (``JudgeOutputSchema``) and what a judge call produces (``JudgeVerdict``).

The schema is code, not configuration: it is sent as the structured-output format (the prompt's
``{{OUTPUT_SCHEMA}}`` points to it) and is part of the criteria hash, so changing it marks older scores as older
criteria. The reference the outcome is judged against is not part of the hash.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from session_scoring.errors import JudgeOutputError
from session_scoring.models.scores import DIMENSION_MAX, DIMENSIONS, Outcome


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class JudgeMissingTool(_Strict):
    """Missing tool that should have been used in the investigation."""

    tool_name: str = Field(..., min_length=1, max_length=255, description="Name of the missing MCP tool")
    rationale: str = Field(..., min_length=1, description="Explanation of why this tool was needed")


class JudgeAlternativeApproach(_Strict):
    """Alternative investigation approach that could have been more efficient/rigorous."""

    name: str = Field(..., min_length=1, max_length=255, description="Brief descriptive title of the approach")
    description: str = Field(..., min_length=1, description="1-2 sentences explaining the strategy")
    steps: list[str] = Field(..., min_length=1, description="Ordered list of specific actions")


class ScoreBreakdown(_Strict):
    """Points per dimension, each 0-25."""

    logical_flow: int = Field(..., ge=0, le=DIMENSION_MAX, description="Logical flow, 0-25 points")
    consistency: int = Field(..., ge=0, le=DIMENSION_MAX, description="Consistency, 0-25 points")
    tool_relevance: int = Field(..., ge=0, le=DIMENSION_MAX, description="Tool relevance, 0-25 points")
    synthesis_quality: int = Field(..., ge=0, le=DIMENSION_MAX, description="Synthesis quality, 0-25 points")

    def total(self) -> int:
        return sum(int(getattr(self, dimension)) for dimension in DIMENSIONS)


class JudgeOutputSchema(_Strict):
    """Output schema for the judge LLM. ``total_score`` must equal the sum of the four dimensions."""

    total_score: int = Field(..., ge=0, le=100, description="Overall score 0-100: the sum of score_breakdown")
    score_breakdown: ScoreBreakdown = Field(..., description="Points per dimension, each 0-25")
    score_reasoning: str = Field(..., min_length=1, description="Detailed explanation (200+ words recommended)")
    missing_tools: list[JudgeMissingTool] = Field(default_factory=list, description="Tools that should have been used")
    alternative_approaches: list[JudgeAlternativeApproach] = Field(
        default_factory=list, description="Alternative investigation approaches (0-3)"
    )
    # Last, after the method is judged: the outcome never changes the four dimensions.
    outcome: Outcome = Field(
        ...,
        description="The final conclusion against the reference root cause (REFERENCE_ROOT_CAUSE in the user "
        "message): found, partly_found or missed; no_reference when none is given",
    )
    outcome_reason: str = Field(..., min_length=1, description="One sentence: why this outcome")

    @model_validator(mode="after")
    def _total_matches_breakdown(self) -> JudgeOutputSchema:
        expected = self.score_breakdown.total()
        if self.total_score != expected:
            raise ValueError(
                f"total_score is {self.total_score} but the score_breakdown dimensions add up to {expected}; "
                "total_score must equal their sum"
            )
        return self


@cache
def judge_output_json_schema() -> dict[str, Any]:
    """The JSON schema of :class:`JudgeOutputSchema` (cached; callers must not mutate it)."""
    return JudgeOutputSchema.model_json_schema()


NO_REFERENCE_REASON = "no reference root cause was given for this session"


def checked_outcome(output: JudgeOutputSchema, reference_given: bool) -> JudgeOutputSchema:
    """``output`` with an outcome consistent with the request: without a reference it can only be ``no_reference``
    (set so, whatever the judge said); with one, ``no_reference`` is an invalid answer (JudgeOutputError, which gets
    the Claude judge's repair turn)."""
    if not reference_given:
        if output.outcome is Outcome.NO_REFERENCE:
            return output
        return output.model_copy(update={"outcome": Outcome.NO_REFERENCE, "outcome_reason": NO_REFERENCE_REASON})
    if output.outcome is Outcome.NO_REFERENCE:
        raise JudgeOutputError(
            "outcome is no_reference but a reference root cause was given (REFERENCE_ROOT_CAUSE): compare the "
            "conclusion with it and answer found, partly_found or missed"
        )
    return output


class TokenUsage(BaseModel):
    """Tokens a judge call consumed (zero for the heuristic judge)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(**{name: getattr(self, name) + getattr(other, name) for name in TokenUsage.model_fields})


class JudgeVerdict(BaseModel):
    """A validated verdict and what it cost."""

    output: JudgeOutputSchema
    provider: str
    model: str
    usage: TokenUsage = Field(default_factory=TokenUsage)
    latency_ms: int = 0
