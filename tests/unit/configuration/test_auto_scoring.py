"""The auto_scoring block of the scoring configuration: off by default, validated, never part of the criteria hash."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_scoring.configuration.criteria import load_scoring_config, parse_scoring_config
from session_scoring.errors import ConfigurationError

SHIPPED = Path(__file__).resolve().parents[3] / "config" / "scoring_config.yaml"

BASE = """\
scoring:
  llm_provider: anthropic
judge_prompt: |
  {{SESSION_CONVERSATION}}
"""

ENABLED = """\
auto_scoring:
  enabled: true
  interval_minutes: 30
  max_sessions_per_day: 500
  mode: batch
  max_cost_usd_per_day: 40
"""


def test_the_shipped_configuration_leaves_auto_scoring_off() -> None:
    assert load_scoring_config(SHIPPED, {}).auto_scoring.enabled is False


def test_the_environment_turns_it_on_through_the_shipped_file() -> None:
    config = load_scoring_config(SHIPPED, {"SCORING_AUTO_ENABLED": "true", "SCORING_AUTO_MODE": "batch"})

    assert config.auto_scoring.enabled is True
    assert config.auto_scoring.mode == "batch"


def test_the_block_is_parsed() -> None:
    auto = parse_scoring_config(BASE + ENABLED, Path("s.yaml"), {}).auto_scoring

    assert (auto.enabled, auto.interval_minutes, auto.max_sessions_per_day, auto.mode, auto.max_cost_usd_per_day) == (
        True,
        30,
        500,
        "batch",
        40.0,
    )


def test_auto_scoring_does_not_change_the_criteria_hash() -> None:
    without = parse_scoring_config(BASE, Path("s.yaml"), {})
    enabled = parse_scoring_config(BASE + ENABLED, Path("s.yaml"), {})

    assert without.criteria_hash == enabled.criteria_hash
    assert "auto_scoring" not in without.criteria_content


def test_a_bad_value_names_the_field_and_the_line() -> None:
    with pytest.raises(ConfigurationError) as raised:
        parse_scoring_config(BASE + "auto_scoring:\n  interval_minutes: 1\n", Path("s.yaml"), {})

    assert "auto_scoring.interval_minutes (line 6)" in raised.value.message
