"""A rubric's generated output schema and its rules: exactly its keys, each within its maximum, the total rule, the
ceiling, tags only from the vocabulary, claims citing events; a broken rule is named."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from session_scoring.configuration.criteria import default_rubric, load_scoring_config
from session_scoring.errors import JudgeOutputError
from session_scoring.models.rubric import Rubric

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "config" / "scoring_config.yaml"


def rubric(name: str) -> Rubric:
    return load_scoring_config(SHIPPED, {"SCORING_RUBRIC": name}).rubric


def outcome_first_verdict(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "total_score": 72,
        "score_breakdown": {
            "investigation_outcome": 16,
            "evidence_gathering": 14,
            "tool_utilization": 12,
            "analytical_reasoning": 15,
            "investigation_completeness": 11,
        },
        "score_reasoning": "The conclusion names the OOM kill the events show.",
        "conclusion": "correct",
        "failure_tags": ["missed_available_tool"],
        "claims": [{"claim": "the pod was OOMKilled", "event": "2.3"}],
        "missing_tools": [],
        "alternative_approaches": [],
        "outcome": "no_reference",
        "outcome_reason": "no reference",
    }
    data.update(changes)
    return data


def triage_verdict(breakdown: dict[str, int], total: int) -> dict[str, Any]:
    return {
        "total_score": total,
        "score_breakdown": breakdown,
        "score_reasoning": "r",
        "outcome": "no_reference",
        "outcome_reason": "n",
    }


def test_the_generated_schema_has_exactly_the_rubrics_keys_each_within_its_maximum() -> None:
    schema = rubric("triage").output_json_schema()
    breakdown = schema["$defs"]["ScoreBreakdown"]

    assert breakdown["required"] == ["evidence", "diagnosis", "next_steps"]
    assert breakdown["additionalProperties"] is False
    assert {key: p["maximum"] for key, p in breakdown["properties"].items()} == {
        "evidence": 10,
        "diagnosis": 20,
        "next_steps": 30,
    }
    assert "failure_tags" not in schema["properties"]


def test_the_outcome_first_schema_carries_the_ceiling_the_vocabulary_and_the_claims() -> None:
    schema = rubric("outcome-first").output_json_schema()

    assert schema["properties"]["conclusion"]["enum"] == ["correct", "partially_correct", "wrong"]
    assert "correct 60-100" in schema["properties"]["conclusion"]["description"]
    assert len(schema["properties"]["failure_tags"]["items"]["enum"]) == 6
    assert {"conclusion", "failure_tags", "claims"} <= set(schema["required"])


def test_a_valid_outcome_first_verdict_keeps_its_ceiling_tags_and_claims() -> None:
    output = rubric("outcome-first").parse_verdict(outcome_first_verdict())

    assert output.ceiling == "correct"
    assert output.failure_tags == ["missed_available_tool"]
    assert output.claims[0].event == "2.3"
    assert len(output.score_breakdown) == 5


@pytest.mark.parametrize(
    ("conclusion", "total"), [("wrong", 50), ("partially_correct", 60), ("correct", 59), ("wrong", 35)]
)
def test_a_total_outside_the_ceiling_names_the_ceiling(conclusion: str, total: int) -> None:
    with pytest.raises(JudgeOutputError, match=f"rule 'ceiling conclusion={conclusion}': it allows a total_score"):
        rubric("outcome-first").parse_verdict(outcome_first_verdict(conclusion=conclusion, total_score=total))


def test_a_holistic_total_need_not_be_the_sum() -> None:
    assert rubric("outcome-first").parse_verdict(outcome_first_verdict(total_score=95)).total_score == 95


def test_an_unknown_ceiling_value_or_a_missing_one_is_refused() -> None:
    with pytest.raises(JudgeOutputError, match="'mostly' is not one of correct, partially_correct, wrong"):
        rubric("outcome-first").parse_verdict(outcome_first_verdict(conclusion="mostly"))
    data = outcome_first_verdict()
    del data["conclusion"]
    with pytest.raises(JudgeOutputError, match="conclusion: Field required"):
        rubric("outcome-first").parse_verdict(data)


def test_tags_only_from_the_vocabulary_and_once() -> None:
    with pytest.raises(JudgeOutputError, match="rule 'failure_tags': lazy not in the vocabulary"):
        rubric("outcome-first").parse_verdict(outcome_first_verdict(failure_tags=["lazy"]))
    with pytest.raises(JudgeOutputError, match="given more than once"):
        rubric("outcome-first").parse_verdict(
            outcome_first_verdict(failure_tags=["wrong_conclusion", "wrong_conclusion"])
        )


def test_claims_are_required_when_the_rubric_cites_events() -> None:
    with pytest.raises(JudgeOutputError, match="rule 'claims'"):
        rubric("outcome-first").parse_verdict(outcome_first_verdict(claims=[]))


def test_a_rubric_without_tags_refuses_them() -> None:
    data = triage_verdict({"evidence": 5, "diagnosis": 10, "next_steps": 15}, 50)
    data["failure_tags"] = ["x"]
    with pytest.raises(JudgeOutputError, match="failure_tags"):
        rubric("triage").parse_verdict(data)


def test_a_sum_rubric_scales_its_sum_to_0_100() -> None:
    triage = rubric("triage")

    ok = triage.parse_verdict(triage_verdict({"evidence": 5, "diagnosis": 10, "next_steps": 15}, 50))
    assert ok.total_score == 50
    assert triage.scaled_total({"evidence": 10, "diagnosis": 20, "next_steps": 30}) == 100
    assert triage.scaled_total({"evidence": 1, "diagnosis": 0, "next_steps": 0}) == 2  # 1.67 rounds up
    with pytest.raises(JudgeOutputError, match=r"rule 'total: sum'.*add up to 50 \(scaled to 0-100 from 60\)"):
        triage.parse_verdict(triage_verdict({"evidence": 5, "diagnosis": 10, "next_steps": 15}, 30))


def test_each_dimension_within_its_own_maximum() -> None:
    with pytest.raises(
        JudgeOutputError, match=r"rule 'maximum': score_breakdown.evidence is 11; it must be within 0-10"
    ):
        rubric("triage").parse_verdict(triage_verdict({"evidence": 11, "diagnosis": 10, "next_steps": 15}, 60))


def test_exactly_the_rubrics_keys() -> None:
    with pytest.raises(JudgeOutputError, match="rule 'dimensions': score_breakdown lacks next_steps and has unknown x"):
        rubric("triage").parse_verdict(triage_verdict({"evidence": 1, "diagnosis": 1, "x": 1}, 3))


def test_the_rules_text_names_every_dimension_with_its_maximum_and_description() -> None:
    text = rubric("outcome-first").rules_text()

    assert "- tool_utilization (Tool utilization, 0-20):" in text
    assert "- wrong: total_score 0-34" in text
    assert "- hallucinated_evidence:" in text
    assert "total_score = the sum of score_breakdown." in default_rubric().rules_text()


def test_a_verdict_is_not_changed_by_checking_it() -> None:
    data = outcome_first_verdict()
    before = copy.deepcopy(data)
    rubric("outcome-first").parse_verdict(data)
    assert data == before
