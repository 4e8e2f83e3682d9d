"""A verdict under the default rubric: what a valid one is, and what the judge is told."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from session_scoring.configuration.criteria import default_rubric
from session_scoring.errors import JudgeOutputError
from session_scoring.models.judge import checked_outcome
from tests.support.fake_claude import SAMPLE_VERDICT

RUBRIC = default_rubric()


def verdict(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(SAMPLE_VERDICT)
    data.update(changes)
    return data


def test_valid_verdict_parses_with_nested_models() -> None:
    parsed = RUBRIC.parse_verdict(verdict())
    assert parsed.total_score == 67
    assert parsed.score_breakdown["tool_relevance"] == 14
    assert parsed.missing_tools[0].tool_name == "list-processes-in-pod"
    assert parsed.alternative_approaches[0].steps[2].startswith("Correlate")


def test_missing_tools_and_approaches_default_to_empty() -> None:
    data = verdict()
    del data["missing_tools"], data["alternative_approaches"]
    parsed = RUBRIC.parse_verdict(data)
    assert parsed.missing_tools == []
    assert parsed.alternative_approaches == []


def test_total_must_equal_the_sum_of_dimensions() -> None:
    with pytest.raises(JudgeOutputError, match="add up to 67"):
        RUBRIC.parse_verdict(verdict(total_score=70))


@pytest.mark.parametrize("value", [-1, 26])
def test_each_dimension_is_within_0_and_25(value: int) -> None:
    breakdown = {**SAMPLE_VERDICT["score_breakdown"], "consistency": value}
    with pytest.raises(JudgeOutputError, match="consistency"):
        RUBRIC.parse_verdict(verdict(score_breakdown=breakdown))


@pytest.mark.parametrize("missing", ["total_score", "score_breakdown", "score_reasoning"])
def test_required_fields(missing: str) -> None:
    data = verdict()
    del data[missing]
    with pytest.raises(JudgeOutputError, match=missing):
        RUBRIC.parse_verdict(data)


def test_unknown_dimension_and_fields_are_rejected() -> None:
    breakdown = {**SAMPLE_VERDICT["score_breakdown"], "creativity": 3}
    with pytest.raises(JudgeOutputError, match="creativity"):
        RUBRIC.parse_verdict(verdict(score_breakdown=breakdown))
    with pytest.raises(JudgeOutputError, match="confidence"):
        RUBRIC.parse_verdict(verdict(confidence="high"))


def test_approach_needs_at_least_one_step() -> None:
    approach = {"name": "X", "description": "Y", "steps": []}
    with pytest.raises(JudgeOutputError, match="steps"):
        RUBRIC.parse_verdict(verdict(alternative_approaches=[approach]))


def test_an_outcome_must_fit_the_request() -> None:
    found = RUBRIC.parse_verdict(verdict(outcome="found", outcome_reason="it names the cause"))
    unjudged = RUBRIC.parse_verdict(verdict())

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
    with pytest.raises(JudgeOutputError, match="outcome"):
        RUBRIC.parse_verdict(verdict(**changes))
