"""`VAR=` (set but empty) means unset for optional secrets and URLs: an empty key must not select Claude."""

from __future__ import annotations

import pytest

from session_scoring.configuration.settings import load_settings


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_api_key_and_urls_are_unset(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY_SECRET_ARN", "SCORING_DATABASE_URL"):
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("JUDGE_INPUT_BUDGET_TOKENS", value)

    settings = load_settings()

    assert settings.anthropic_api_key is None
    assert settings.anthropic_base_url is None
    assert settings.anthropic_api_key_secret_arn is None
    assert settings.database_url is None
    assert settings.judge_input_budget_tokens is None


def test_a_real_key_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")

    settings = load_settings()

    assert settings.anthropic_api_key is not None
    assert settings.anthropic_api_key.get_secret_value() == "sk-test"
