"""The pricing table of the scoring configuration: parsed per model, never part of the criteria hash."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_scoring.configuration.criteria import DEFAULT_MODELS, load_scoring_config, parse_scoring_config
from session_scoring.errors import ConfigurationError

SHIPPED = Path(__file__).resolve().parents[3] / "config" / "scoring_config.yaml"

BASE = """\
scoring:
  llm_provider: anthropic
judge_prompt: |
  {{SESSION_CONVERSATION}}
"""


def test_pricing_is_parsed_per_model_and_prices_tokens() -> None:
    config = parse_scoring_config(
        BASE + "pricing:\n  claude-sonnet-4-6: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}\n",
        Path("s.yaml"),
        {},
    )

    price = config.price_of("claude-sonnet-4-6")
    assert price is not None
    assert price.cost_usd(1_000_000, 100_000) == pytest.approx(4.5)
    assert price.cost_usd(1_000_000, 100_000, batch=True) == pytest.approx(2.25)
    assert price.cost_usd(0, 0, cache_read=1_000_000, cache_write=1_000_000) == pytest.approx(4.05)
    assert config.price_of("claude-opus-4-1") is None


def test_changing_prices_does_not_change_the_criteria_hash() -> None:
    without = parse_scoring_config(BASE, Path("s.yaml"), {})
    cheap = parse_scoring_config(BASE + "pricing:\n  claude-sonnet-4-6: {input: 1, output: 2}\n", Path("s.yaml"), {})
    dear = parse_scoring_config(BASE + "pricing:\n  claude-sonnet-4-6: {input: 9, output: 99}\n", Path("s.yaml"), {})

    assert without.criteria_hash == cheap.criteria_hash == dear.criteria_hash


def test_a_bad_price_names_the_model_and_the_line() -> None:
    with pytest.raises(ConfigurationError) as raised:
        parse_scoring_config(BASE + "pricing:\n  claude-sonnet-4-6: {input: -1, output: 2}\n", Path("s.yaml"), {})

    assert "pricing.claude-sonnet-4-6.input (line 6)" in raised.value.message


def test_the_shipped_configuration_prices_every_default_model() -> None:
    config = load_scoring_config(SHIPPED, {})

    for model in DEFAULT_MODELS.values():
        assert config.price_of(model) is not None, f"config/scoring_config.yaml has no price for {model}"
