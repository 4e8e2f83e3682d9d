"""The ``${VAR}`` substitution parser: defaults, nesting, escapes and errors that say where and what to fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from session_scoring.configuration.variables import substitute
from session_scoring.errors import ConfigurationError

FILE = Path("scoring.yaml")


def sub(text: str, first_line: int = 1, **variables: str) -> str:
    return substitute(text, variables, FILE, first_line)


class TestValues:
    def test_a_set_variable_is_substituted(self) -> None:
        assert sub("model ${MODEL} here", MODEL="m-1") == "model m-1 here"

    def test_the_default_applies_when_the_variable_is_unset(self) -> None:
        assert sub("${PROVIDER:-anthropic}") == "anthropic"

    def test_an_empty_value_counts_as_unset_for_a_default(self) -> None:
        assert sub("${PROVIDER:-anthropic}", PROVIDER="") == "anthropic"

    def test_an_empty_default_is_allowed(self) -> None:
        assert sub("[${MODEL:-}]") == "[]"

    def test_the_variable_wins_over_its_default(self) -> None:
        assert sub("${PROVIDER:-anthropic}", PROVIDER="bedrock") == "bedrock"

    def test_a_nested_default_is_used_when_the_outer_variable_is_unset(self) -> None:
        assert sub("${A:-${B:-c}}", B="b") == "b"
        assert sub("${A:-${B:-c}}") == "c"

    def test_the_outer_variable_wins_and_the_nested_one_need_not_be_set(self) -> None:
        assert sub("${A:-${UNSET_WITHOUT_DEFAULT}}", A="a") == "a"

    def test_dollar_dollar_brace_is_a_literal(self) -> None:
        assert sub("Shell snippets look like $${HOME}.", HOME="/root") == "Shell snippets look like ${HOME}."

    def test_a_lone_dollar_is_kept(self) -> None:
        assert sub("costs $5 or $x") == "costs $5 or $x"

    def test_a_default_keeps_its_colons_and_spaces(self) -> None:
        assert sub("${URL:-http://localhost:8080/a b}") == "http://localhost:8080/a b"


class TestErrors:
    def test_an_unset_variable_without_default_is_named_with_the_fix(self) -> None:
        with pytest.raises(ConfigurationError, match=r"scoring.yaml:1: .*JUDGE_MODEL_NAME is not set") as raised:
            sub("${JUDGE_MODEL_NAME}")
        assert "${JUDGE_MODEL_NAME:-default}" in raised.value.message

    def test_the_line_counts_from_the_first_line_of_the_value(self) -> None:
        with pytest.raises(ConfigurationError, match=r"scoring.yaml:12: .*MISSING is not set"):
            sub("first\nsecond\nthird ${MISSING}", first_line=10)

    @pytest.mark.parametrize(
        ("value", "problem"),
        [
            ("${}", "expected a variable name"),
            ("${1ABC}", "expected a variable name"),
            ("${NAME:-unterminated", "missing the closing"),
            ("${NAME?x}", "expected '}' or ':-default}'"),
            ("${A:-${}}", "expected a variable name"),
        ],
    )
    def test_malformed_expressions_are_errors_with_the_line(self, value: str, problem: str) -> None:
        with pytest.raises(ConfigurationError, match=rf"scoring.yaml:4: .*{re.escape(problem)}"):
            sub(value, first_line=4)
