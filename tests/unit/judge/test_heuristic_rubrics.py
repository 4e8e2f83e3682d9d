"""The offline judge under any shipped rubric: its signals mapped onto the rubric's dimensions, a verdict that keeps
every rule of the rubric, and the ordering of good and poor investigations kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_scoring.configuration.criteria import default_rubric, load_scoring_config
from session_scoring.judge.heuristic import HeuristicJudge, assess
from session_scoring.models.reference import Reference
from session_scoring.models.rubric import Rubric
from session_scoring.models.session import Session
from tests.conftest import SAMPLES, SHALLOW_ID, THOROUGH_ID

ROOT = Path(__file__).resolve().parents[3]


def rubric(name: str) -> Rubric:
    return load_scoring_config(
        ROOT / "config" / "scoring_config.yaml", {"SCORING_RUBRIC": name, "SCORING_LLM_PROVIDER": "heuristic"}
    ).rubric


def sample(session_id: str) -> Session:
    return Session.model_validate_json((SAMPLES / f"{session_id}.json").read_text())


@pytest.mark.parametrize("name", ["methodology", "outcome-first", "triage"])
def test_every_sample_verdict_keeps_the_rubrics_rules(name: str) -> None:
    chosen = rubric(name)
    for path in sorted(SAMPLES.glob("*.json")):
        output = assess(Session.model_validate_json(path.read_text()), rubric=chosen)

        chosen.check(output)  # raises naming the broken rule
        assert tuple(output.score_breakdown) == chosen.keys


@pytest.mark.parametrize("name", ["outcome-first", "triage"])
def test_a_thorough_investigation_still_beats_a_shallow_one(name: str) -> None:
    chosen = rubric(name)
    assert (
        assess(sample(THOROUGH_ID), rubric=chosen).total_score > assess(sample(SHALLOW_ID), rubric=chosen).total_score
    )


def test_the_default_rubric_gives_the_signals_themselves() -> None:
    output = assess(sample(SHALLOW_ID), rubric=default_rubric())

    assert output == assess(sample(SHALLOW_ID))
    assert output.total_score == sum(output.score_breakdown.values())
    assert "Under rubric" not in output.score_reasoning


def test_outcome_first_caps_by_the_conclusion_against_a_reference() -> None:
    chosen = rubric("outcome-first")
    missed = assess(
        sample(THOROUGH_ID),
        Reference(root_cause="a cosmic ray flipped bit 12 of zq-77x", remediation=None, source="label"),
        chosen,
    )

    assert missed.ceiling == "wrong"
    assert missed.total_score <= 34
    assert "wrong_conclusion" in missed.failure_tags
    assert all(claim.event for claim in missed.claims)


def test_outcome_first_tags_come_from_its_vocabulary_only() -> None:
    chosen = rubric("outcome-first")
    tags = assess(sample(SHALLOW_ID), rubric=chosen).failure_tags

    assert tags
    assert set(tags) <= set(chosen.tag_names)
    assert assess(sample(SHALLOW_ID), rubric=rubric("triage")).failure_tags == []


def test_the_judge_refuses_a_rubric_it_has_no_mapping_for() -> None:
    unmapped = Rubric.model_validate(
        {"name": "x", "dimensions": [{"key": "creativity", "label": "C", "max_points": 10, "description": "d"}]}
    )
    with pytest.raises(ValueError, match="dimension 'creativity' has no offline_signals"):
        HeuristicJudge(rubric=unmapped)
