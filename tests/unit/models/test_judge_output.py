"""JudgeOutputSchema: what a valid verdict is, and what the judge is told."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from session_scoring.errors import JudgeOutputError
from session_scoring.models.judge import JudgeOutputSchema, checked_outcome
from tests.support.fake_claude import SAMPLE_VERDICT


def verdict(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(SAMPLE_VERDICT)
    data.update(changes)
    return data


def test_valid_verdict_parses_with_nested_models() -> None:
    parsed = JudgeOutputSchema.model_validate(verdict())
    assert parsed.total_score == 67
    assert parsed.score_breakdown.tool_relevance == 14
    assert parsed.missing_tools[0].tool_name == "list-processes-in-pod"
    assert parsed.alternative_approaches[0].steps[2].startswith("Correlate")


def test_missing_tools_and_approaches_default_to_empty() -> None:
    data = verdict()
    del data["missing_tools"], data["alternative_approaches"]
    parsed = JudgeOutputSchema.model_validate(data)
    assert parsed.missing_tools == []
    assert parsed.alternative_approaches == []


def test_total_must_equal_the_sum_of_dimensions() -> None:
    with pytest.raises(ValidationError, match="add up to 67"):
        JudgeOutputSchema.model_validate(verdict(total_score=70))


@pytest.mark.parametrize("value", [-1, 26])
def test_each_dimension_is_within_0_and_25(value: int) -> None:
    breakdown = {**SAMPLE_VERDICT["score_breakdown"], "consistency": value}
    with pytest.raises(ValidationError, match="consistency"):
        JudgeOutputSchema.model_validate(verdict(score_breakdown=breakdown))


@pytest.mark.parametrize("missing", ["total_score", "score_breakdown", "score_reasoning"])
def test_required_fields(missing: str) -> None:
    data = verdict()
    del data[missing]
    with pytest.raises(ValidationError, match=missing):
        JudgeOutputSchema.model_validate(data)


def test_unknown_dimension_and_fields_are_rejected() -> None:
    breakdown = {**SAMPLE_VERDICT["score_breakdown"], "creativity": 3}
    with pytest.raises(ValidationError, match="creativity"):
        JudgeOutputSchema.model_validate(verdict(score_breakdown=breakdown))
    with pytest.raises(ValidationError, match="confidence"):
        JudgeOutputSchema.model_validate(verdict(confidence="high"))


def test_approach_needs_at_least_one_step() -> None:
    approach = {"name": "X", "description": "Y", "steps": []}
    with pytest.raises(ValidationError, match="steps"):
        JudgeOutputSchema.model_validate(verdict(alternative_approaches=[approach]))


def test_an_outcome_must_fit_the_request() -> None:
    found = JudgeOutputSchema.model_validate(verdict(outcome="found", outcome_reason="it names the cause"))
    unjudged = JudgeOutputSchema.model_validate(verdict())

    assert checked_outcome(found, reference_given=True) == found
    corrected = checked_outcome(found, reference_given=False)
    assert (corrected.outcome, corrected.outcome_reason) == (
        "no_reference",
        "no reference root cause was given for this session",
    )
    assert corrected.total_score == found.total_score
    with pytest.raises(JudgeOutputError, match="outcome is no_reference but a reference root cause was given"):
        checked_outcome(unjudged, reference_given=True)


@pytest.mark.parametrize("changes", [{"outcome": "right"}, {"outcome_reason": ""}, {"outcome": None}])
def test_an_outcome_outside_its_values_is_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="outcome"):
        JudgeOutputSchema.model_validate(verdict(**changes))
