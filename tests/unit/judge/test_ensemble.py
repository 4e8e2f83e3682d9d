"""Ensemble scoring: the median per dimension, the sample closest to it, the summed usage and the spread."""

from __future__ import annotations

from session_scoring.configuration.criteria import default_rubric
from session_scoring.judge.ensemble import median_verdict
from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict, TokenUsage
from tests.support.fake_claude import scripted_verdict


def verdict(
    dimensions: tuple[int, int, int, int], missing: tuple[str, ...] = (), outcome: str = "no_reference"
) -> JudgeVerdict:
    return JudgeVerdict(
        output=JudgeOutputSchema.model_validate(
            scripted_verdict(dimensions, missing, outcome=outcome, outcome_reason=f"{outcome} at {dimensions}")
        ),
        provider="anthropic",
        model="m",
        usage=TokenUsage(input_tokens=100, output_tokens=10, cache_read_tokens=50),
        latency_ms=5,
    )


def test_median_of_each_dimension_and_the_closest_samples_findings() -> None:
    samples = [
        verdict((10, 20, 5, 25), ("a",)),
        verdict((20, 10, 15, 5), ("b",)),
        verdict((15, 15, 10, 20), ("c",)),  # exactly the medians: its findings are kept
    ]
    result, spread = median_verdict(samples, default_rubric())

    assert result.output.score_breakdown == {
        "logical_flow": 15,
        "consistency": 15,
        "tool_relevance": 10,
        "synthesis_quality": 20,
    }
    assert result.output.total_score == 60
    assert [t.tool_name for t in result.output.missing_tools] == ["c"]
    assert result.usage == TokenUsage(input_tokens=300, output_tokens=30, cache_read_tokens=150)
    assert spread["samples"] == 3
    assert spread["totals"] == [60, 50, 60]
    assert spread["total"] == {"min": 50, "max": 60, "stdev": 5.774}
    assert spread["logical_flow"] == {"min": 10, "max": 20, "stdev": 5.0}


def test_even_sample_count_rounds_each_median_and_the_total_is_their_sum() -> None:
    result, _ = median_verdict([verdict((10, 11, 0, 25)), verdict((13, 12, 1, 25))], default_rubric())
    # medians 11.5, 11.5, 0.5, 25 round half to even: 12, 12, 0, 25
    assert result.output.score_breakdown == {
        "logical_flow": 12,
        "consistency": 12,
        "tool_relevance": 0,
        "synthesis_quality": 25,
    }
    assert result.output.total_score == 49


def test_the_outcome_is_the_most_common_with_the_reason_of_its_closest_sample() -> None:
    samples = [
        verdict((10, 10, 10, 10), outcome="missed"),
        verdict((20, 20, 20, 20), outcome="found"),
        verdict((11, 11, 11, 11), outcome="found"),
    ]

    result, _ = median_verdict(samples, default_rubric())

    assert result.output.outcome == "found"
    assert result.output.outcome_reason == "found at (11, 11, 11, 11)"  # the closest sample that found it


def test_a_tied_outcome_is_the_closest_samples() -> None:
    samples = [
        verdict((20, 20, 20, 20), outcome="found"),
        verdict((10, 10, 10, 10), outcome="partly_found"),
        verdict((12, 12, 12, 12), outcome="missed"),
    ]

    result, _ = median_verdict(samples, default_rubric())

    assert (result.output.outcome, result.output.outcome_reason) == ("missed", "missed at (12, 12, 12, 12)")
