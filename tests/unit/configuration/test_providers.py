"""Provider names: our kinds, tarsy-bot's built-in names, a TARSy Go providers file with ``{{.VAR}}`` values; the
criteria hash of a configuration without a jury is what it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from session_scoring.configuration.criteria import load_scoring_config, parse_scoring_config
from session_scoring.configuration.providers import (
    BUILT_IN,
    XAI_BASE_URL,
    load_providers_file,
    model_family,
    resolve_target,
)
from session_scoring.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ROOT / "config" / "scoring_config.yaml"

GO_FILE = """\
llm_providers:
  gemini-3-flash:
    type: google
    model: gemini-3-flash
    api_key_env: GOOGLE_API_KEY
    max_tool_result_tokens: 950000
  azure-gpt:
    type: openai
    model: "{{.AZURE_DEPLOYMENT}}"
    api_key_env: AZURE_OPENAI_API_KEY
    base_url: "https://{{ .AZURE_RESOURCE }}.openai.azure.com/openai/v1"
  grok:
    type: xai
    model: grok-4
    api_key_env: XAI_API_KEY
  gemini-on-vertex:
    type: vertexai
    model: gemini-2.5-pro
    project_env: TEAM_PROJECT
    location_env: TEAM_LOCATION
"""


def providers(tmp_path: Path, text: str = GO_FILE, **variables: str) -> dict[str, object]:
    path = tmp_path / "llm-providers.yaml"
    path.write_text(text)
    return dict(load_providers_file(path, variables))


@pytest.mark.parametrize(
    ("name", "provider", "model", "key"),
    [
        ("google-default", "google", "gemini-2.5-pro", "GOOGLE_API_KEY"),
        ("openai-default", "openai", "gpt-5", "OPENAI_API_KEY"),
        ("xai-default", "openai", "grok-4", "XAI_API_KEY"),
        ("anthropic-default", "anthropic", "claude-sonnet-4", "ANTHROPIC_API_KEY"),
    ],
)
def test_tarsy_bot_built_in_names(name: str, provider: str, model: str, key: str) -> None:
    target = resolve_target(name, "", {}, {})
    assert (target.provider, target.model, target.api_key_env) == (provider, model, key)


def test_xai_defaults_to_its_openai_compatible_endpoint() -> None:
    assert resolve_target("xai-default", "", {}, {}).base_url == XAI_BASE_URL


def test_vertexai_default_is_claude_on_vertex_with_project_and_location_from_the_environment() -> None:
    target = resolve_target(
        "vertexai-default", "", {"GOOGLE_CLOUD_PROJECT": "p1", "GOOGLE_CLOUD_LOCATION": "us-east5"}, {}
    )
    assert (target.provider, target.project, target.location) == ("vertex", "p1", "us-east5")
    assert target.model.startswith("claude-sonnet-4-5")


def test_a_model_given_wins_over_the_names_own() -> None:
    assert resolve_target("google-default", "gemini-2.0-flash-exp", {}, {}).model == "gemini-2.0-flash-exp"


def test_go_template_values_resolve_from_the_variables(tmp_path: Path) -> None:
    found = providers(tmp_path, AZURE_DEPLOYMENT="gpt-5.2-prod", AZURE_RESOURCE="sre")
    target = resolve_target("azure-gpt", "", {}, found)  # type: ignore[arg-type]
    assert (target.provider, target.model) == ("openai", "gpt-5.2-prod")
    assert target.base_url == "https://sre.openai.azure.com/openai/v1"
    assert target.api_key_env == "AZURE_OPENAI_API_KEY"


def test_a_go_template_naming_an_unset_variable_says_which(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"llm_providers.azure-gpt.model: '\{\{.AZURE_DEPLOYMENT\}\}'"):
        providers(tmp_path, AZURE_RESOURCE="sre")


def test_a_vertexai_gemini_entry_is_gemini_on_vertex_ai(tmp_path: Path) -> None:
    found = providers(tmp_path, AZURE_DEPLOYMENT="d", AZURE_RESOURCE="r")
    variables = {"TEAM_PROJECT": "judges", "TEAM_LOCATION": "europe-west4"}
    target = resolve_target("gemini-on-vertex", "", variables, found)  # type: ignore[arg-type]
    assert (target.provider, target.vertex_ai, target.project, target.location) == (
        "google",
        True,
        "judges",
        "europe-west4",
    )


def test_a_file_without_llm_providers_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="expected a top-level 'llm_providers:' map"):
        providers(tmp_path, "providers: {}\n")


def test_an_entry_of_an_unknown_type_names_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"llm_providers.local: type: Input should be 'google'"):
        providers(tmp_path, "llm_providers:\n  local:\n    type: ollama\n    model: llama3\n")


def test_the_design_example_google_default_loads(tmp_path: Path) -> None:
    config = load_scoring_config(SHIPPED, {"SCORING_LLM_PROVIDER": "google-default"})
    assert (config.llm_provider, config.llm_model) == ("google", "gemini-2.5-pro")
    example = load_scoring_config(
        SHIPPED, {"SCORING_LLM_PROVIDER": "google-default", "SCORING_LLM_MODEL": "gemini-2.0-flash-exp"}
    )
    assert example.llm_model == "gemini-2.0-flash-exp"


def test_default_llm_provider_is_the_fallback() -> None:
    config = load_scoring_config(SHIPPED, {"DEFAULT_LLM_PROVIDER": "openai-default"})
    assert (config.llm_provider, config.llm_model) == ("openai", "gpt-5")


def test_a_configuration_without_a_jury_keeps_its_criteria_hash() -> None:
    """The hash of the shipped configuration with the default judge, as main computed it before juries."""
    config = load_scoring_config(SHIPPED, {})
    assert "jury" not in config.criteria_content["scoring"]
    assert config.criteria_content["scoring"] == {
        "enabled": True,
        "llm_provider": "anthropic",
        "llm_model": "claude-sonnet-4-6",
    }


def test_every_default_model_has_a_price() -> None:
    config = load_scoring_config(SHIPPED, {})
    for entry in BUILT_IN.values():
        assert config.price_of(entry.model) is not None, entry.model


def test_a_jury_needs_a_quorum_it_can_reach() -> None:
    text = SHIPPED.read_text().replace(
        "scoring:\n", "scoring:\n  jury: {judges: [anthropic, google-default], quorum: 3}\n", 1
    )
    with pytest.raises(ConfigurationError, match="quorum is 3 but the jury has 2 judges"):
        parse_scoring_config(text, SHIPPED, {})


def test_an_unknown_juror_is_named_with_its_line() -> None:
    text = SHIPPED.read_text().replace("scoring:\n", "scoring:\n  jury: {judges: [anthropic, mystery]}\n", 1)
    with pytest.raises(ConfigurationError, match=r"scoring.jury.judges.1 \(line 11\): unknown llm_provider 'mystery'"):
        parse_scoring_config(text, SHIPPED, {})


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("claude-sonnet-4-6", "claude"),
        ("us.anthropic.claude-sonnet-4-6", "claude"),
        ("claude-sonnet-4-5@20250929", "claude"),
        ("gemini-2.5-pro", "gemini"),
        ("models/gemini-3-flash", "gemini"),
        ("gpt-5", "gpt"),
        ("openai/gpt-5.2", "gpt"),
        ("o4-mini", "gpt"),
        ("grok-4", "grok"),
        ("heuristic-rules-v3", None),
        ("test-model", None),
    ],
)
def test_model_families(model: str, family: str | None) -> None:
    assert model_family(model) == family
