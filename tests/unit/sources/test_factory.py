"""Building the configured source."""

from __future__ import annotations

import pytest

from session_scoring.configuration.criteria import SessionSourceSection
from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError
from session_scoring.sources.factory import build_source


@pytest.mark.parametrize("kind", ["tarsy", "tarsy-go"])
def test_tarsy_sources_need_a_base_url_and_say_which_setting(kind: str) -> None:
    with pytest.raises(ConfigurationError, match="SCORING_TARSY_URL"):
        build_source(SessionSourceSection(type=kind), Settings())  # type: ignore[arg-type]


def test_a_base_url_must_be_http() -> None:
    with pytest.raises(ConfigurationError, match="not an http"):
        build_source(SessionSourceSection(type="tarsy", base_url="tarsy.example.com"), Settings())


@pytest.mark.parametrize(("kind", "name"), [("file", "file"), ("tarsy", "tarsy"), ("tarsy-go", "tarsy-go")])
def test_each_type_builds_its_source(kind: str, name: str) -> None:
    section = SessionSourceSection(type=kind, base_url="http://127.0.0.1:9")  # type: ignore[arg-type]

    assert build_source(section, Settings()).name == name


def test_default_input_budget_leaves_room_for_the_answer() -> None:
    settings = Settings(JUDGE_CONTEXT_TOKENS=200_000, JUDGE_MAX_TOKENS=8_192)

    assert settings.judge_input_budget == 190_000 - 8_192
    assert Settings(JUDGE_INPUT_BUDGET_TOKENS=50_000).judge_input_budget == 50_000
