"""Scoring configuration: substitution in the YAML, placeholder checks, clear errors and the criteria hash.

The ``${VAR}`` syntax itself is tested in ``test_variables.py``; here, that the loader applies it to YAML values
with the right types and the file's line numbers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from session_scoring.configuration import criteria
from session_scoring.configuration.criteria import load_scoring_config, parse_scoring_config
from session_scoring.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "config" / "scoring_config.yaml"
REFERENCE_PROMPT = ROOT.parent / "shared" / "reference" / "judge_prompt.md"

MINIMAL = """\
scoring:
  enabled: ${SCORING_ENABLED:-true}
  llm_provider: ${SCORING_LLM_PROVIDER:-${DEFAULT_LLM_PROVIDER:-anthropic}}
  llm_model: ${SCORING_LLM_MODEL:-}
judge_prompt: |
  Judge this.
  {{SESSION_CONVERSATION}}
  Alert: {{ALERT_DATA}}
  {{OUTPUT_SCHEMA}}
"""


def parse(text: str, **variables: str) -> criteria.ScoringConfig:
    return parse_scoring_config(text, Path("scoring.yaml"), variables)


class TestSubstitution:
    def test_defaults_apply_when_variables_are_unset(self) -> None:
        config = parse(MINIMAL)
        assert config.enabled is True
        assert config.llm_provider == "anthropic"
        assert config.scoring.llm_model == ""
        assert config.llm_model == criteria.DEFAULT_MODELS["anthropic"]

    def test_environment_overrides_win_and_keep_their_yaml_type(self) -> None:
        config = parse(MINIMAL, SCORING_ENABLED="false", SCORING_LLM_PROVIDER="bedrock", SCORING_LLM_MODEL="m-1")
        assert config.enabled is False
        assert config.llm_provider == "bedrock"
        assert config.llm_model == "m-1"

    def test_nested_default_is_used_when_the_outer_variable_is_unset(self) -> None:
        assert parse(MINIMAL, DEFAULT_LLM_PROVIDER="heuristic").llm_provider == "heuristic"

    def test_dollar_dollar_brace_in_a_block_scalar_is_a_literal(self) -> None:
        text = MINIMAL.replace("Judge this.", "Shell snippets look like $${HOME}.")
        assert "Shell snippets look like ${HOME}." in parse(text).judge_prompt

    def test_an_error_names_the_line_of_the_file(self) -> None:
        text = MINIMAL.replace("${SCORING_LLM_MODEL:-}", "${JUDGE_MODEL_NAME}")
        with pytest.raises(ConfigurationError, match=r"scoring.yaml:4: .*JUDGE_MODEL_NAME is not set"):
            parse(text)

    def test_an_error_inside_a_block_scalar_names_its_own_line(self) -> None:
        text = MINIMAL.replace("Alert: {{ALERT_DATA}}", "Alert: {{ALERT_DATA}} ${RUNBOOK_URL}")
        with pytest.raises(ConfigurationError, match=r"scoring.yaml:8: .*RUNBOOK_URL is not set"):
            parse(text)


class TestPlaceholders:
    def test_unknown_placeholder_names_file_line_and_placeholder(self) -> None:
        text = MINIMAL.replace("Alert: {{ALERT_DATA}}", "Alert: {{ALERT_DATA}} {{RUNBOOK}}")
        with pytest.raises(ConfigurationError, match=r"scoring.yaml:8: unknown placeholder '\{\{RUNBOOK\}\}'"):
            parse(text)

    def test_missing_session_conversation_is_an_error(self) -> None:
        text = MINIMAL.replace("  {{SESSION_CONVERSATION}}\n", "")
        with pytest.raises(ConfigurationError, match=r"lacks the required placeholder '\{\{SESSION_CONVERSATION\}\}'"):
            parse(text)


class TestClearErrors:
    def test_bad_yaml_names_the_line(self) -> None:
        with pytest.raises(ConfigurationError, match=r"scoring.yaml: line \d+, column \d+: .*fix the YAML syntax"):
            parse("scoring:\n  enabled: [true\njudge_prompt: x\n")

    def test_unknown_provider_is_named_with_the_names_known(self) -> None:
        with pytest.raises(ConfigurationError) as raised:
            parse(MINIMAL, SCORING_LLM_PROVIDER="mistral-cloud")
        message = str(raised.value)
        assert "scoring.llm_provider (line 3): unknown llm_provider 'mistral-cloud'" in message
        assert "anthropic, bedrock, vertex, google, openai, heuristic, google-default, openai-default" in message

    def test_missing_file_says_which_setting_to_change(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="SCORING_CONFIG_PATH"):
            load_scoring_config(tmp_path / "absent.yaml", {})

    def test_unknown_top_level_key_is_rejected(self) -> None:
        with pytest.raises(ConfigurationError, match="judge_promt"):
            parse(MINIMAL + "judge_promt: typo\n")


class TestCriteriaHash:
    def test_is_sha256_hex(self) -> None:
        assert re.fullmatch(r"[0-9a-f]{64}", parse(MINIMAL).criteria_hash)

    def test_formatting_and_key_order_do_not_change_it(self) -> None:
        reordered = """\
judge_prompt: "Judge this.\\n{{SESSION_CONVERSATION}}\\nAlert: {{ALERT_DATA}}\\n{{OUTPUT_SCHEMA}}\\n"
scoring:   {llm_model: "${SCORING_LLM_MODEL:-}", llm_provider: anthropic,    enabled: true}
"""
        assert parse(reordered).criteria_hash == parse(MINIMAL).criteria_hash

    def test_explicit_default_model_equals_empty_model(self) -> None:
        explicit = parse(MINIMAL, SCORING_LLM_MODEL=criteria.DEFAULT_MODELS["anthropic"])
        assert explicit.criteria_hash == parse(MINIMAL).criteria_hash

    @pytest.mark.parametrize(
        "change",
        [
            {"SCORING_LLM_PROVIDER": "bedrock"},
            {"SCORING_LLM_MODEL": "claude-opus-4-8"},
        ],
    )
    def test_provider_or_model_change_gives_a_new_hash(self, change: dict[str, str]) -> None:
        assert parse(MINIMAL, **change).criteria_hash != parse(MINIMAL).criteria_hash

    def test_prompt_change_gives_a_new_hash(self) -> None:
        assert (
            parse(MINIMAL.replace("Judge this.", "Judge this strictly.")).criteria_hash != parse(MINIMAL).criteria_hash
        )

    def test_output_schema_change_gives_a_new_hash(self, monkeypatch: pytest.MonkeyPatch) -> None:
        before = parse(MINIMAL).criteria_hash
        schema: dict[str, Any] = {**criteria.default_rubric().output_json_schema(), "title": "JudgeOutputSchemaV2"}
        monkeypatch.setattr(criteria.Rubric, "output_json_schema", lambda self: schema)
        assert parse(MINIMAL).criteria_hash != before

    def test_session_source_settings_are_not_criteria(self) -> None:
        with_source = MINIMAL + "session_source:\n  type: file\n  directory: /elsewhere\n"
        assert parse(with_source).criteria_hash == parse(MINIMAL).criteria_hash


class TestShippedConfiguration:
    def test_loads_with_the_embedded_defaults(self) -> None:
        config = load_scoring_config(SHIPPED, {})
        assert config.llm_provider == "anthropic"
        assert config.session_source.type == "file"

    @pytest.mark.skipif(not REFERENCE_PROMPT.exists(), reason="../shared/reference is not beside this checkout")
    def test_judge_prompt_is_the_design_prompt_verbatim(self) -> None:
        reference = re.search(r"````text\n(.*?)\n````", REFERENCE_PROMPT.read_text(), re.S)
        assert reference is not None
        assert load_scoring_config(SHIPPED, {}).judge_prompt.rstrip("\n") == reference.group(1)


class TestEnsembleSamples:
    """``scoring.samples`` is criteria (hashed), but the default of one sample keeps every existing hash."""

    def test_one_sample_keeps_the_hash_of_a_config_without_samples(self) -> None:
        with_one = MINIMAL.replace("  llm_model:", "  samples: 1\n  llm_model:")
        assert parse(with_one).criteria_hash == parse(MINIMAL).criteria_hash
        assert "samples" not in parse(with_one).criteria_content["scoring"]

    def test_more_samples_change_the_hash(self) -> None:
        three = parse(MINIMAL.replace("  llm_model:", "  samples: 3\n  llm_model:"))
        assert three.samples == 3
        assert three.criteria_hash != parse(MINIMAL).criteria_hash

    def test_zero_samples_is_rejected_with_the_line(self) -> None:
        with pytest.raises(ConfigurationError, match=r"scoring.samples \(line 4\)"):
            parse(MINIMAL.replace("  llm_model:", "  samples: 0\n  llm_model:"))


class TestMasking:
    """``masking:`` changes what the judge sees, so a non-default block is hashed; the default keeps every hash."""

    DEFAULT = MINIMAL + "masking:\n  enabled: true\n  disabled_groups: []\n  custom: []\n"
    CUSTOM = MINIMAL + "masking:\n  custom:\n    - name: employee-id\n      pattern: 'E\\d{6}'\n"

    def test_the_default_block_keeps_the_hash_of_a_config_without_one(self) -> None:
        assert parse(self.DEFAULT).criteria_hash == parse(MINIMAL).criteria_hash
        assert "masking" not in parse(self.DEFAULT).criteria_content

    def test_masking_is_on_by_default_with_every_group(self) -> None:
        masker = parse(MINIMAL).masker

        assert masker.enabled
        assert masker.mask_text("aws_secret_access_key = " + "Ab1/" * 10) == (
            "aws_secret_access_key = [masked: aws-secret-key]"
        )

    @pytest.mark.parametrize(
        "block",
        [
            "  enabled: false\n",
            "  disabled_groups: [certificate]\n",
            "  custom:\n    - {name: x, pattern: 'E\\d{6}'}\n",
        ],
    )
    def test_a_non_default_block_changes_the_hash(self, block: str) -> None:
        changed = parse(MINIMAL + "masking:\n" + block)

        assert changed.criteria_hash != parse(MINIMAL).criteria_hash
        assert "masking" in changed.criteria_content

    def test_a_custom_pattern_masks_under_its_name(self) -> None:
        assert parse(self.CUSTOM).masker.mask_text("paged E123456") == "paged [masked: employee-id]"

    def test_a_bad_regex_names_its_line(self) -> None:
        bad = MINIMAL + "masking:\n  custom:\n    - name: broken\n      pattern: '(unclosed'\n"

        with pytest.raises(ConfigurationError, match=r"scoring.yaml:13: masking.custom\[0\]: custom pattern 'broken'"):
            parse(bad)

    def test_an_unknown_group_is_refused_with_the_line_and_the_known_groups(self) -> None:
        with pytest.raises(ConfigurationError, match=r"masking.disabled_groups \(line 11\).*kubernetes-secret"):
            parse(MINIMAL + "masking:\n  disabled_groups: [kubernetes]\n")

    def test_the_shipped_configuration_masks_by_default(self) -> None:
        shipped = load_scoring_config(SHIPPED, {})

        assert shipped.masking.is_default
        assert "masking" not in shipped.criteria_content
