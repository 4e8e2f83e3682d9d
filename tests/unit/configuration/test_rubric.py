"""The rubric in the criteria file: chosen by ``rubric:`` (SCORING_RUBRIC), validated naming the line, hashed with
the criteria unless it is the default, which keeps the hash every score had before rubrics were configurable."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_scoring.configuration.criteria import (
    default_rubric,
    is_default_rubric,
    load_scoring_config,
    parse_scoring_config,
    rubric_of,
)
from session_scoring.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "config" / "scoring_config.yaml"

# The criteria hashes of the shipped configuration on main before rubrics (commit 4a82ef4): the default rubric must
# keep them byte for byte, or every stored score would turn "older criteria" on upgrade.
MAIN_HASH_ANTHROPIC = "fbb8076046b4dd99865a4d1b54a6b9b41992893ac3ef6f21bca07627cb9d58b8"
MAIN_HASH_HEURISTIC = "121ecf213519dc539f10d6448e8a8f45ae25069a05a6263950cca06cac9bf0aa"

PROMPT = """\
judge_prompt: |
  Judge this.
  {{SESSION_CONVERSATION}}
  {{OUTPUT_SCHEMA}}
"""


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def config_with(folder: Path, rubric: str, provider: str = "anthropic") -> Path:
    return write(folder, "scoring.yaml", f"scoring:\n  llm_provider: {provider}\nrubric: {rubric}\n{PROMPT}")


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({}, MAIN_HASH_ANTHROPIC),
        # main's offline judge was heuristic-rules-v3; its rules changed since (v4), which is a criteria change of its
        # own: pinned here, the default rubric still adds nothing to the hash.
        ({"SCORING_LLM_PROVIDER": "heuristic", "SCORING_LLM_MODEL": "heuristic-rules-v3"}, MAIN_HASH_HEURISTIC),
    ],
)
def test_the_default_rubric_keeps_mains_criteria_hash(variables: dict[str, str], expected: str) -> None:
    config = load_scoring_config(SHIPPED, variables)

    assert config.rubric.name == "methodology"
    assert config.criteria_hash == expected
    assert "rubric" not in config.criteria_content


def test_naming_the_default_rubric_explicitly_keeps_the_hash() -> None:
    assert load_scoring_config(SHIPPED, {"SCORING_RUBRIC": "methodology"}).criteria_hash == MAIN_HASH_ANTHROPIC


@pytest.mark.parametrize("name", ["outcome-first", "triage"])
def test_another_rubric_is_part_of_the_hash(name: str) -> None:
    config = load_scoring_config(SHIPPED, {"SCORING_RUBRIC": name, "SCORING_LLM_PROVIDER": "heuristic"})

    assert config.rubric.name == name
    assert config.criteria_hash not in (MAIN_HASH_ANTHROPIC, MAIN_HASH_HEURISTIC)
    assert config.criteria_content["rubric"]["name"] == name
    assert rubric_of(config.criteria_content) == config.rubric.model_copy(update={"judge_prompt": None})


def test_stored_criteria_without_a_rubric_were_judged_by_the_default() -> None:
    assert rubric_of({"scoring": {}, "judge_prompt": "x"}) == default_rubric()


def test_the_outcome_first_rubric_is_five_dimensions_a_holistic_total_capped_by_the_conclusion() -> None:
    rubric = load_scoring_config(SHIPPED, {"SCORING_RUBRIC": "outcome-first"}).rubric

    assert rubric.keys == (
        "investigation_outcome",
        "evidence_gathering",
        "tool_utilization",
        "analytical_reasoning",
        "investigation_completeness",
    )
    assert rubric.total == "holistic"
    assert rubric.ceilings is not None
    assert {v: (r.min, r.max) for v, r in rubric.ceilings.values.items()} == {
        "correct": (60, 100),
        "partially_correct": (35, 59),
        "wrong": (0, 34),
    }
    assert rubric.tag_names == (
        "premature_conclusion",
        "missed_available_tool",
        "unsupported_confidence",
        "incomplete_evidence",
        "hallucinated_evidence",
        "wrong_conclusion",
    )
    assert rubric.claims_cite_events


def test_a_rubric_with_its_own_prompt_replaces_the_files_prompt() -> None:
    default = load_scoring_config(SHIPPED, {})
    outcome_first = load_scoring_config(SHIPPED, {"SCORING_RUBRIC": "outcome-first"})

    assert outcome_first.judge_prompt != default.judge_prompt
    assert "outcome first" in outcome_first.judge_prompt


def test_the_triage_rubric_has_three_dimensions_of_different_maxima() -> None:
    rubric = load_scoring_config(SHIPPED, {"SCORING_RUBRIC": "triage"}).rubric

    assert len(rubric.dimensions) == 3
    assert len(set(rubric.maxima.values())) == 3
    assert rubric.total == "sum"
    assert not is_default_rubric(rubric)


def test_a_rubric_file_of_ones_own_is_read_relative_to_the_criteria_file(tmp_path: Path) -> None:
    write(
        tmp_path,
        "mine.yaml",
        "name: mine\ndimensions:\n  - {key: only, label: Only, max_points: 10, description: everything}\n",
    )
    config = load_scoring_config(config_with(tmp_path, "mine.yaml"), {})

    assert config.rubric.keys == ("only",)
    assert config.rubric.scaled_total({"only": 7}) == 70


def test_an_inline_rubric_mistake_names_the_criteria_files_line() -> None:
    text = (
        "scoring:\n  llm_provider: anthropic\nrubric:\n  name: inline\n  dimensions:\n"
        "    - key: a\n      label: A\n      max_points: 0\n      description: d\n" + PROMPT
    )
    with pytest.raises(ConfigurationError, match=r"rubric\.dimensions\.0\.max_points \(line 8\)"):
        parse_scoring_config(text, Path("scoring.yaml"), {})


def test_a_rubric_file_mistake_names_its_file_and_line(tmp_path: Path) -> None:
    write(
        tmp_path,
        "bad.yaml",
        "name: bad\ndimensions:\n  - {key: a, label: A, max_points: 10, description: d}\n"
        "  - {key: a, label: B, max_points: 10, description: d}\ntotal: average\n",
    )
    with pytest.raises(ConfigurationError, match=r"bad\.yaml: invalid rubric: total \(line 5\)"):
        load_scoring_config(config_with(tmp_path, "bad.yaml"), {})


def test_repeated_keys_are_refused(tmp_path: Path) -> None:
    write(
        tmp_path,
        "twice.yaml",
        "name: twice\ndimensions:\n  - {key: a, label: A, max_points: 10, description: d}\n"
        "  - {key: a, label: B, max_points: 10, description: d}\n",
    )
    with pytest.raises(ConfigurationError, match="dimension key a is given more than once"):
        load_scoring_config(config_with(tmp_path, "twice.yaml"), {})


def test_an_unknown_rubric_name_lists_the_shipped_ones(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"cannot read the rubric.*methodology, outcome-first, triage"):
        load_scoring_config(config_with(tmp_path, "nonesuch"), {})


def test_the_offline_judge_refuses_a_dimension_it_has_no_mapping_for_naming_it(tmp_path: Path) -> None:
    write(
        tmp_path,
        "unmapped.yaml",
        "name: unmapped\ndimensions:\n  - {key: evidence, label: E, max_points: 10, description: d, "
        "offline_signals: [flow]}\n  - {key: creativity, label: C, max_points: 10, description: d}\n",
    )
    with pytest.raises(ConfigurationError, match=r"unmapped\.yaml:4: .*dimension 'creativity' has no offline_signals"):
        load_scoring_config(config_with(tmp_path, "unmapped.yaml", provider="heuristic"), {})
    # An LLM judge reads the description instead: the same rubric loads.
    assert load_scoring_config(config_with(tmp_path, "unmapped.yaml"), {}).rubric.name == "unmapped"


def test_the_offline_judge_refuses_an_unknown_signal(tmp_path: Path) -> None:
    write(
        tmp_path,
        "typo.yaml",
        "name: typo\ndimensions:\n  - {key: a, label: A, max_points: 10, description: d, offline_signals: [flo]}\n",
    )
    with pytest.raises(ConfigurationError, match="dimension 'a' names unknown offline signals flo"):
        load_scoring_config(config_with(tmp_path, "typo.yaml", provider="heuristic"), {})
