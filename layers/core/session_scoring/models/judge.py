"""What the judge must return (``JudgeOutputSchema``) and what a judge call produces (``JudgeVerdict``).

The schema is code, not configuration: each rubric (``models.rubric``) generates it from these models and its
dimensions; it is sent as the structured-output format (the prompt's ``{{OUTPUT_SCHEMA}}`` renders its rules) and is
part of the criteria hash, so changing it marks older scores as older criteria. The reference the outcome is judged
against is not part of the hash.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from session_scoring.errors import JudgeOutputError
from session_scoring.models.scores import Outcome


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


class JudgeClaim(_Strict):
    """One claim of the verdict and the timeline event it rests on (rubrics with ``claims_cite_events``)."""

    claim: str = Field(..., min_length=1, description="The claim, one sentence")
    event: str = Field(..., min_length=1, max_length=20, description="The stage or step number it rests on, e.g. 2.3")


class VerdictEnvelope(_Strict):
    """The fields of every verdict whatever the rubric (their schema is part of each rubric's output schema)."""

    score_reasoning: str = Field(..., min_length=1, description="Detailed explanation (200+ words recommended)")
    missing_tools: list[JudgeMissingTool] = Field(default_factory=list, description="Tools that should have been used")
    alternative_approaches: list[JudgeAlternativeApproach] = Field(
        default_factory=list, description="Alternative investigation approaches (0-3)"
    )
    # Last, after the method is judged: the outcome never changes the dimensions.
    outcome: Outcome = Field(
        ...,
        description="The final conclusion against the reference root cause (REFERENCE_ROOT_CAUSE in the user "
        "message): found, partly_found or missed; no_reference when none is given",
    )
    outcome_reason: str = Field(..., min_length=1, description="One sentence: why this outcome")


class JudgeOutputSchema(VerdictEnvelope):
    """A verdict under any rubric: points per dimension key, the total, and the rubric's ceiling answer, failure tags
    and claims. Its shape is checked here; the rubric's rules (exact keys, maxima, the total rule, the ceiling, the
    vocabulary) by :meth:`session_scoring.models.rubric.Rubric.check`, which generates the schema the judge gets."""

    total_score: int = Field(..., ge=0, le=100)
    score_breakdown: dict[str, int]
    ceiling: str | None = Field(default=None, description="The answer of the rubric's ceiling field, if it has one")
    failure_tags: list[str] = Field(default_factory=list)
    claims: list[JudgeClaim] = Field(default_factory=list)


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
