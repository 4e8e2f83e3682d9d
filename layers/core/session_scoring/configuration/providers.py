"""Which judge a provider name stands for: our own provider kinds, tarsy-bot's built-in names and the names of a
TARSy Go providers file (``llm_providers:``), resolved to a :class:`JudgeTarget`.

A TARSy providers file maps a name to ``type`` (google, openai, anthropic, xai, vertexai), ``model``,
``api_key_env`` (the variable holding the key), optional ``base_url``, ``project_env``/``location_env`` (Vertex AI)
and ``max_tool_result_tokens``; any value may use Go-template ``{{.VAR}}``, resolved from the variables given (the
settings object's copy of the environment). A name in the file wins over a built-in name of the same spelling.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from session_scoring.errors import ConfigurationError

JudgeKind = Literal["anthropic", "bedrock", "vertex", "google", "openai", "heuristic"]
"""The judge implementations: each is one SDK (google: Gemini on the Gemini API or on Vertex AI)."""

KINDS: tuple[JudgeKind, ...] = ("anthropic", "bedrock", "vertex", "google", "openai", "heuristic")

DEFAULT_MODELS: dict[str, str] = {
    "anthropic": "claude-sonnet-4-6",
    "bedrock": "us.anthropic.claude-sonnet-4-6",
    "vertex": "claude-sonnet-4-5@20250929",
    "google": "gemini-2.5-pro",
    "openai": "gpt-5",
    "heuristic": "heuristic-rules-v4",
}
"""Each kind's model when neither the configuration nor a TARSy name gives one."""

XAI_BASE_URL = "https://api.x.ai/v1"
"""xAI's OpenAI-compatible endpoint: the default base URL of an ``xai`` entry (a default only, never reached in
tests)."""

TarsyType = Literal["google", "openai", "anthropic", "xai", "vertexai"]


class TarsyProvider(BaseModel):
    """One entry of a TARSy Go ``llm-providers.yaml``."""

    model_config = ConfigDict(extra="ignore")

    type: TarsyType
    model: str = Field(min_length=1)
    api_key_env: str = ""
    base_url: str = ""
    project_env: str = ""
    location_env: str = ""
    max_tool_result_tokens: int | None = Field(default=None, ge=1)


BUILT_IN: dict[str, TarsyProvider] = {
    "google-default": TarsyProvider(type="google", model="gemini-2.5-pro", api_key_env="GOOGLE_API_KEY"),
    "openai-default": TarsyProvider(type="openai", model="gpt-5", api_key_env="OPENAI_API_KEY"),
    "xai-default": TarsyProvider(type="xai", model="grok-4", api_key_env="XAI_API_KEY"),
    "anthropic-default": TarsyProvider(type="anthropic", model="claude-sonnet-4", api_key_env="ANTHROPIC_API_KEY"),
    "vertexai-default": TarsyProvider(
        type="vertexai",
        model="claude-sonnet-4-5@20250929",
        project_env="GOOGLE_CLOUD_PROJECT",
        location_env="GOOGLE_CLOUD_LOCATION",
    ),
}
"""tarsy-bot's built-in provider names (its default is ``google-default``)."""


@dataclass(frozen=True)
class JudgeTarget:
    """A resolved judge: the kind of SDK, the model, and where and as whom to call it."""

    name: str
    """The name as configured (a kind, a tarsy-bot name or a providers-file name)."""
    provider: JudgeKind
    model: str
    api_key_env: str | None = None
    """The variable holding the API key (read through the settings object when the judge is built)."""
    base_url: str | None = None
    project: str | None = None
    """Vertex AI: the Google Cloud project."""
    location: str | None = None
    """Vertex AI: the region."""
    vertex_ai: bool = False
    """``google`` only: Gemini on Vertex AI rather than on the Gemini API."""

    @property
    def label(self) -> str:
        return f"{self.provider}:{self.model}"


_GO_TEMPLATE = re.compile(r"\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def resolve_go_template(text: str, variables: Mapping[str, str], where: str) -> str:
    """``text`` with every ``{{.VAR}}`` replaced by the variable's value; an unset variable is an error."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in variables:
            raise ConfigurationError(f"{where}: '{{{{.{name}}}}}' names {name}, which is not set; set it")
        return variables[name]

    return _GO_TEMPLATE.sub(value, text)


def load_providers_file(path: Path, variables: Mapping[str, str]) -> dict[str, TarsyProvider]:
    """The ``llm_providers:`` map of a TARSy providers file, its ``{{.VAR}}`` values resolved."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(
            f"{path}: cannot read the LLM providers file ({exc.strerror or exc}); fix or unset "
            "SCORING_LLM_PROVIDERS_FILE"
        ) from exc
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise ConfigurationError(f"{path}: not valid YAML ({exc}); fix the providers file") from exc
    providers = data.get("llm_providers") if isinstance(data, dict) else None
    if not isinstance(providers, dict):
        raise ConfigurationError(f"{path}: expected a top-level 'llm_providers:' map from a name to a provider")
    resolved: dict[str, TarsyProvider] = {}
    for name, entry in providers.items():
        if not isinstance(entry, dict):
            raise ConfigurationError(f"{path}: llm_providers.{name} must be a mapping (type, model, api_key_env, ...)")
        values = {
            key: resolve_go_template(value, variables, f"{path}: llm_providers.{name}.{key}")
            if isinstance(value, str)
            else value
            for key, value in entry.items()
        }
        try:
            resolved[str(name)] = TarsyProvider.model_validate(values)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
            raise ConfigurationError(f"{path}: llm_providers.{name}: {problems}") from exc
    return resolved


def known_names(file_providers: Mapping[str, TarsyProvider]) -> list[str]:
    return [*KINDS, *BUILT_IN, *(name for name in file_providers if name not in BUILT_IN)]


def resolve_target(
    name: str, model: str, variables: Mapping[str, str], file_providers: Mapping[str, TarsyProvider]
) -> JudgeTarget:
    """The judge ``name`` stands for, with ``model`` (empty: the name's own model, else the kind's default)."""
    entry = file_providers.get(name) or BUILT_IN.get(name)
    if entry is not None:
        return _from_tarsy(name, entry, model, variables)
    for kind in KINDS:
        if name == kind:
            return JudgeTarget(name=name, provider=kind, model=model or DEFAULT_MODELS[kind])
    raise ConfigurationError(
        f"unknown llm_provider '{name}'; the known names are {', '.join(known_names(file_providers))}"
    )


def _from_tarsy(name: str, entry: TarsyProvider, model: str, variables: Mapping[str, str]) -> JudgeTarget:
    chosen = model or entry.model
    base_url = entry.base_url or None
    key_env = entry.api_key_env or None
    if entry.type == "vertexai":
        project = variables.get(entry.project_env or "GOOGLE_CLOUD_PROJECT") or None
        location = variables.get(entry.location_env or "GOOGLE_CLOUD_LOCATION") or None
        # Vertex AI serves Claude (through the Anthropic SDK's Vertex client) and Gemini (through google-genai).
        claude = chosen.startswith("claude")
        return JudgeTarget(
            name=name,
            provider="vertex" if claude else "google",
            model=chosen,
            base_url=base_url,
            project=project,
            location=location,
            vertex_ai=not claude,
        )
    if entry.type == "xai":
        return JudgeTarget(name, "openai", chosen, key_env, base_url or XAI_BASE_URL)
    kind: JudgeKind = entry.type  # google, openai, anthropic
    return JudgeTarget(name, kind, chosen, key_env, base_url)


_FAMILIES: tuple[tuple[str, str], ...] = (
    ("claude", "claude"),
    ("anthropic", "claude"),
    ("gemini", "gemini"),
    ("gemma", "gemini"),
    ("gpt", "gpt"),
    ("o1", "gpt"),
    ("o3", "gpt"),
    ("o4", "gpt"),
    ("codex", "gpt"),
    ("grok", "grok"),
    ("llama", "llama"),
    ("mistral", "mistral"),
    ("mixtral", "mistral"),
    ("qwen", "qwen"),
    ("deepseek", "deepseek"),
)
"""Name fragments of a model id and the family they mean (a judge favours its own family's answers)."""


def model_family(model: str | None) -> str | None:
    """The family of a model id (``claude``, ``gemini``, ``gpt``, ``grok``, ...), None when unknown.

    Provider prefixes and paths are ignored: ``us.anthropic.claude-sonnet-4-6``, ``models/gemini-2.5-pro`` and
    ``openai/gpt-5`` name their families too."""
    if not model:
        return None
    for word in re.split(r"[/.:@_\s]+", model.lower()):
        for fragment, family in _FAMILIES:
            # Short fragments (o3, o4) only as a whole word or before a hyphen; longer ones as any prefix.
            if word == fragment or word.startswith(fragment + "-") or (len(fragment) > 2 and word.startswith(fragment)):
                return family
    return None


def families_of(models: list[str] | tuple[str, ...]) -> frozenset[str]:
    return frozenset(f for f in (model_family(m) for m in models) if f is not None)
