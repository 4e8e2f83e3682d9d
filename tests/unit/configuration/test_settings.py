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


@pytest.mark.parametrize(
    "value",
    [
        '{"sre-admins": "admin", "sre": "operator"}',
        "sre-admins=admin, sre=operator",
        " sre-admins = admin,sre=operator,",
    ],
)
def test_the_role_map_is_json_or_value_role_pairs(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("SCORING_ROLE_MAP", value)

    assert load_settings().role_map == {"sre-admins": "admin", "sre": "operator"}


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("sre=boss", "Input should be 'viewer', 'labeller', 'operator' or 'admin'"),
        ("sre", "'sre' is not value=role"),
        ('{"sre": ', "not a JSON object"),
        ("=admin", "'=admin' is not value=role"),
    ],
)
def test_a_bad_role_map_says_what_is_wrong(monkeypatch: pytest.MonkeyPatch, value: str, why: str) -> None:
    monkeypatch.setenv("SCORING_ROLE_MAP", value)

    with pytest.raises(SettingsError) as error:
        load_settings()

    assert "SCORING_ROLE_MAP" in str(error.value)
    assert why in str(error.value)


def test_an_empty_default_role_is_none_and_an_unknown_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCORING_DEFAULT_ROLE", "")
    assert load_settings().default_role is None

    monkeypatch.setenv("SCORING_DEFAULT_ROLE", "superuser")
    with pytest.raises(SettingsError, match="SCORING_DEFAULT_ROLE='superuser' is invalid"):
        load_settings()
