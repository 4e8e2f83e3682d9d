"""A bad setting is a configuration error in one line: the variable, the value, what is allowed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from session_scoring.configuration.settings import SettingsError, load_settings


def test_a_value_out_of_range_names_the_variable_the_value_and_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCORING_LEASE_SECONDS", "10")

    with pytest.raises(SettingsError) as error:
        load_settings()

    message = str(error.value)
    assert "\n" not in message
    assert "SCORING_LEASE_SECONDS='10' is invalid" in message
    assert "greater than or equal to 30" in message


def test_every_bad_variable_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCORING_DATABASE_SSL", "sometimes")
    monkeypatch.setenv("JUDGE_MAX_TOKENS", "many")

    with pytest.raises(SettingsError) as error:
        load_settings()

    message = str(error.value)
    assert "SCORING_DATABASE_SSL='sometimes' is invalid" in message
    assert "JUDGE_MAX_TOKENS='many' is invalid" in message


def test_the_local_stack_stops_with_the_one_line_error_not_a_traceback() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "devstack"],
        env={"PATH": "/usr/bin:/bin", "SCORING_LEASE_SECONDS": "10", "PYTHONPATH": ":".join(sys.path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "configuration error: SCORING_LEASE_SECONDS='10' is invalid" in result.stderr
