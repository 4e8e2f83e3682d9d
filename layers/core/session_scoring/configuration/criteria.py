"""Load ``config/scoring_config.yaml``: ``${VAR}`` substitution (:mod:`.variables`), placeholder checks and the
criteria hash.

Errors name the file, the line and what to change; they never surface as a bare stack trace.

The criteria hash is the SHA-256 of a canonical JSON serialisation (sorted keys, no whitespace) of the resolved
``scoring`` block (with the resolved provider kind and the effective model: ``google-default`` hashes as provider
``google``, model ``gemini-2.5-pro``), the ``judge_prompt`` and the judge's output schema. YAML formatting and key
order do not change it; the prompt, provider, model or output schema do, and so does a jury's make-up (only when a
jury is configured, so a configuration without one keeps its hash). The ``session_source`` block is where
sessions come from, not how they are judged, and is left out; so is ``trace_import`` (how other agents' traces are
read), the ``pricing`` table (what each model costs, kept current by the operator for run estimates and cost limits)
and the ``auto_scoring`` schedule. The ``masking`` block is hashed only when it differs from the default (masking on,
every built-in group, no custom pattern): it changes what the judge sees, yet the default keeps every hash stored
before masking existed (docs/masking.md says why).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from session_scoring.configuration.providers import (
    DEFAULT_MODELS,
    JudgeTarget,
    TarsyProvider,
    load_providers_file,
    resolve_target,
)
from session_scoring.configuration.variables import substitute
from session_scoring.errors import ConfigurationError
from session_scoring.masking import BUILTIN_GROUPS, CustomPattern, Masker, MaskingError, build_masker
from session_scoring.models.rubric import Rubric

__all__ = ["DEFAULT_MODELS", "ScoringConfig", "load_scoring_config", "parse_scoring_config"]

KNOWN_PLACEHOLDERS = ("SESSION_CONVERSATION", "ALERT_DATA", "OUTPUT_SCHEMA")
REQUIRED_PLACEHOLDERS = ("SESSION_CONVERSATION",)
PLACEHOLDER_RE = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")


class JurorEntry(BaseModel):
    """One juror: a provider name (as ``llm_provider``) and optionally its model (empty: the name's default)."""

    model_config = ConfigDict(extra="forbid")

    provider: str = Field(min_length=1)
    model: str = ""


class JurySection(BaseModel):
    """``scoring.jury``: a panel of judges (docs/judges.md). Each juror's verdict is kept; the score is their median
    total and per-dimension medians when at least ``quorum`` jurors answered."""

    model_config = ConfigDict(extra="forbid")

    judges: list[JurorEntry] = Field(min_length=2, max_length=9)
    quorum: int | None = Field(default=None, ge=1, description="Jurors needed for a score; default: a majority")
    exclude_same_family: bool = Field(
        default=False, description="Leave out jurors of the same model family as the agent being judged"
    )

    @field_validator("judges", mode="before")
    @classmethod
    def _names_are_jurors(cls, value: object) -> object:
        """A juror may be written as its provider name alone."""
        if isinstance(value, list):
            return [{"provider": item} if isinstance(item, str) else item for item in value]
        return value

    @property
    def effective_quorum(self) -> int:
        return self.quorum if self.quorum is not None else len(self.judges) // 2 + 1


class ScoringSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    llm_provider: str = Field(
        min_length=1,
        description="A provider kind (anthropic, bedrock, vertex, google, openai, heuristic), a tarsy-bot built-in "
        "name (google-default, ...) or a name from the TARSy providers file (SCORING_LLM_PROVIDERS_FILE)",
    )
    llm_model: str = ""
    samples: int = Field(
        default=1, ge=1, le=9, description="Ensemble scoring: the stored score is the median of this many verdicts"
    )
    jury: JurySection | None = Field(
        default=None, description="Several judges, each a juror: the stored score is the median of their verdicts"
    )

    @field_validator("llm_model", mode="before")
    @classmethod
    def _none_is_default(cls, value: object) -> object:
        return "" if value is None else value


class SessionSourceSection(BaseModel):
    """Where sessions are read from. ``tarsy`` and ``tarsy-go`` read TARSy's HTTP APIs; ``phoenix`` and ``mlflow``
    read the traces of an Arize Phoenix project or of MLflow experiments, one trace per session."""

    model_config = ConfigDict(extra="forbid")

    type: Literal["file", "tarsy", "tarsy-go", "phoenix", "mlflow"] = "file"
    directory: str = "config/sample_sessions"
    base_url: str = ""
    project: str = Field(
        default="",
        description="phoenix: the project's name or id (empty: 'default'); mlflow: the experiment id, or several "
        "separated by commas (empty: '0', the Default experiment)",
    )
    token: str = Field(default="", repr=False)
    token_secret_arn: str = ""
    connect_timeout_seconds: float = Field(default=3.0, gt=0)
    read_timeout_seconds: float = Field(default=20.0, gt=0)
    max_retries: int = Field(default=2, ge=0, le=10)
    include_chat: bool = False
    scorable_statuses: list[str] = Field(default_factory=lambda: ["completed"])

    @field_validator("project", mode="before")
    @classmethod
    def _number_is_text(cls, value: object) -> object:
        """An MLflow experiment id substituted into the YAML reads as a number; it names the experiment as text."""
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


DEFAULT_SUBMIT_TOOLS = ("submit", "submit_answer", "final_answer", "finish", "attempt_completion")
"""Tools whose arguments are an agent's final answer when ``trace_import.submit_tools`` is not set."""


class TraceImportSection(BaseModel):
    """How other agents' traces (uploads and session files) are read (``trace_import:``); operational, not hashed."""

    model_config = ConfigDict(extra="forbid")

    submit_tools: list[str] = Field(
        default_factory=lambda: list(DEFAULT_SUBMIT_TOOLS),
        description="Tools (names without server, any case) through which an agent submits its answer: the "
        "arguments of the last such call are the session's final analysis.",
    )

    @property
    def submit_tool_names(self) -> frozenset[str]:
        return frozenset(name.strip().lower() for name in self.submit_tools if name.strip())


class ModelPrice(BaseModel):
    """What one model costs, in USD per million tokens; the operator keeps these current (not criteria, not hashed)."""

    model_config = ConfigDict(extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cache_read: float = Field(default=0.0, ge=0)
    cache_write: float = Field(default=0.0, ge=0)
    batch_discount: float = Field(default=0.5, ge=0, le=1, description="Fraction of the price paid in batch mode")

    def cost_usd(
        self, input_tokens: int, output_tokens: int, cache_read: int = 0, cache_write: int = 0, batch: bool = False
    ) -> float:
        total = (
            input_tokens * self.input
            + output_tokens * self.output
            + cache_read * self.cache_read
            + cache_write * self.cache_write
        ) / 1_000_000
        return total * self.batch_discount if batch else total


class AutoScoringSection(BaseModel):
    """Scheduled runs of ``unscored`` completed sessions (``auto_scoring:``); operational, not hashed."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    interval_minutes: int = Field(default=60, ge=5, le=1440, description="Time between two auto runs")
    max_sessions_per_day: int = Field(default=200, ge=1, description="Attempts all auto runs of a UTC day may create")
    mode: Literal["online", "batch"] = "online"
    max_cost_usd_per_day: float = Field(default=25.0, gt=0, description="Actual cost all auto runs of a day may reach")


DEFAULT_RUBRIC = "methodology"
"""The rubric of a criteria file that names none: the design's methodology rubric (``config/rubrics/``)."""

DEFAULT_RUBRIC_SHA256 = "83a6ffd14eb5329de2c3a035b9d168ee147fab076522a183f9ebbb43b05be1ec"
"""The SHA-256 of the default rubric's canonical content (:meth:`Rubric.content`). A rubric with exactly this content
is left out of the criteria hash, so every score judged before rubrics were configurable keeps its hash; any other
rubric is hashed with the criteria (``tests/unit/configuration/test_rubric.py`` holds the default to main's hash)."""

_SHIPPED_RUBRICS = tuple(Path(__file__).resolve().parents[n] / "config" / "rubrics" for n in (2, 3))
"""Where the shipped rubrics are: the checkout's ``config/rubrics`` (through ``layers/core/config``), or the core
layer's ``/opt/config/rubrics`` in Lambda; a criteria file's own ``rubrics/`` folder is looked in first."""


class CustomMaskingPattern(BaseModel):
    """One custom pattern of ``masking.custom``: a regular expression (Python syntax) and the name its marker shows."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=64, pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    pattern: str = Field(min_length=1, max_length=2000)


class MaskingSection(BaseModel):
    """Secrets masked before the judge, a stored upload, an export or a write-back sees a session (``masking:``)."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = True
    disabled_groups: list[str] = Field(
        default_factory=list, description=f"Built-in groups not masked, of: {', '.join(BUILTIN_GROUPS)}"
    )
    custom: list[CustomMaskingPattern] = Field(
        default_factory=list,
        description="More patterns, applied after the built-in ones; a named group 'value' masks only that part",
    )

    @field_validator("disabled_groups")
    @classmethod
    def _known_groups(cls, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(BUILTIN_GROUPS))
        if unknown:
            raise ValueError(
                f"unknown group(s) {', '.join(unknown)}; the built-in groups are {', '.join(BUILTIN_GROUPS)}"
            )
        return sorted(set(value))

    @property
    def is_default(self) -> bool:
        return self.enabled and not self.disabled_groups and not self.custom

    def hashed(self) -> dict[str, Any]:
        """What the criteria hash covers of this block (only when not the default)."""
        return {
            "enabled": self.enabled,
            "disabled_groups": self.disabled_groups,
            "custom": [{"name": c.name, "pattern": c.pattern} for c in self.custom],
        }


class ConfigFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scoring: ScoringSection
    session_source: SessionSourceSection = Field(default_factory=SessionSourceSection)
    rubric: str | dict[str, Any] = Field(
        default=DEFAULT_RUBRIC,
        description="The rubric: a shipped rubric's name (config/rubrics/NAME.yaml), a path to a rubric file, or the "
        "rubric itself as a mapping",
    )
    judge_prompt: str = Field(min_length=1)
    pricing: dict[str, ModelPrice] = Field(default_factory=dict)
    auto_scoring: AutoScoringSection = Field(default_factory=AutoScoringSection)
    trace_import: TraceImportSection = Field(default_factory=TraceImportSection)
    masking: MaskingSection = Field(default_factory=MaskingSection)


@dataclass(frozen=True)
class ScoringConfig:
    """The resolved scoring configuration and its criteria hash."""

    path: Path
    scoring: ScoringSection
    session_source: SessionSourceSection
    judge_prompt: str
    rubric: Rubric
    """The rubric the judge scores by (``rubric:``); its ``judge_prompt``, when it has one, is ``judge_prompt``."""
    pricing: Mapping[str, ModelPrice] = field(default_factory=dict)
    """Prices per model (``pricing:``), for run estimates and cost limits; operational, left out of the hash."""
    auto_scoring: AutoScoringSection = field(default_factory=AutoScoringSection)
    """The auto-scoring schedule (``auto_scoring:``); operational, left out of the hash."""
    trace_import: TraceImportSection = field(default_factory=TraceImportSection)
    """How other agents' traces are read (``trace_import:``); operational, left out of the hash."""
    masking: MaskingSection = field(default_factory=MaskingSection)
    """Which secrets are masked (``masking:``); hashed only when not the default."""

    @cached_property
    def masker(self) -> Masker:
        """The masking step this configuration asks for (its patterns compiled once, on first use)."""
        section = self.masking
        custom = [CustomPattern(c.name, c.pattern) for c in section.custom]
        return build_masker(section.enabled, section.disabled_groups, custom)

    target: JudgeTarget | None = None
    """The judge ``llm_provider`` names, resolved (providers.py); None only for a jury."""
    jurors: tuple[JudgeTarget, ...] = ()
    """The jury's judges, resolved (``scoring.jury``); empty without a jury."""

    def price_of(self, model: str) -> ModelPrice | None:
        return self.pricing.get(model)

    @property
    def enabled(self) -> bool:
        return self.scoring.enabled

    @property
    def samples(self) -> int:
        """Verdicts per score (``scoring.samples``): more than one stores their median (ensemble scoring)."""
        return self.scoring.samples

    @property
    def jury(self) -> JurySection | None:
        return self.scoring.jury

    @property
    def judge_targets(self) -> tuple[JudgeTarget, ...]:
        """Every judge a score calls: the jurors, or the one judge."""
        if self.jurors:
            return self.jurors
        return (self.the_target,)

    @property
    def the_target(self) -> JudgeTarget:
        if self.target is not None:
            return self.target
        return resolve_target(self.scoring.llm_provider, self.scoring.llm_model, {}, {})

    @property
    def llm_provider(self) -> str:
        """The judge's provider kind (``anthropic``, ``google``, ...; ``jury`` for a jury), whatever name chose it."""
        return JURY if self.jurors else self.the_target.provider

    @property
    def llm_model(self) -> str:
        """The configured model, or the provider's default when the configuration leaves it empty (a jury: its
        jurors' ``provider:model`` joined by ``+``)."""
        if self.jurors:
            return "+".join(t.label for t in self.jurors)
        return self.the_target.model

    @cached_property
    def criteria_content(self) -> dict[str, Any]:
        """Everything that defines how sessions are judged (stored once per hash)."""
        scoring: dict[str, Any] = {
            "enabled": self.scoring.enabled,
            "llm_provider": self.llm_provider,
            "llm_model": self.llm_model,
        }
        if self.scoring.samples != 1:
            # Only when set: one sample (the default) keeps every existing criteria hash unchanged.
            scoring["samples"] = self.scoring.samples
        content: dict[str, Any] = {
            "scoring": scoring,
            "judge_prompt": self.judge_prompt,
            "output_schema": self.rubric.output_json_schema(),
        }
        if not is_default_rubric(self.rubric):
            # Only when it is not the default: the default rubric keeps every existing criteria hash unchanged.
            content["rubric"] = self.rubric.content()
        if not self.masking.is_default:
            # Only when changed: the default masking keeps every criteria hash stored before masking existed.
            content["masking"] = self.masking.hashed()
        if self.jury is not None:
            # Only with a jury, so a configuration without one keeps its hash byte for byte.
            scoring["jury"] = {
                "judges": [{"provider": t.provider, "model": t.model} for t in self.jurors],
                "quorum": self.jury.effective_quorum,
                "exclude_same_family": self.jury.exclude_same_family,
            }
        return content

    @cached_property
    def criteria_hash(self) -> str:
        return criteria_hash_of(self.criteria_content)


def criteria_hash_of(content: Mapping[str, Any]) -> str:
    """The SHA-256 of a criteria definition's canonical JSON: the tag of every score judged by it."""
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def is_default_rubric(rubric: Rubric) -> bool:
    """Whether ``rubric`` is the default rubric, exactly (its content's SHA-256 is :data:`DEFAULT_RUBRIC_SHA256`)."""
    return criteria_hash_of(rubric.content()) == DEFAULT_RUBRIC_SHA256


def rubric_of(content: Mapping[str, Any]) -> Rubric:
    """The rubric stored criteria were judged by: their ``rubric`` entry, or the default rubric for criteria that
    carry none (every criteria stored before rubrics, and those of the default rubric)."""
    stored = content.get("rubric")
    if stored is None:
        return default_rubric()
    return Rubric.model_validate(stored)


@cache
def default_rubric() -> Rubric:
    """The default rubric, read from the shipped rubrics (and checked to be the default, exactly)."""
    rubric, _ = _load_rubric_file(_shipped_rubric_path(DEFAULT_RUBRIC), {})
    if not is_default_rubric(rubric):
        raise ConfigurationError(
            f"the shipped default rubric ({_shipped_rubric_path(DEFAULT_RUBRIC)}) was changed: its content no longer "
            "matches DEFAULT_RUBRIC_SHA256; write a new rubric file instead of editing the default"
        )
    return rubric


def _shipped_rubric_path(name: str) -> Path:
    for folder in _SHIPPED_RUBRICS:
        if (folder / f"{name}.yaml").is_file():
            return folder / f"{name}.yaml"
    return _SHIPPED_RUBRICS[0] / f"{name}.yaml"


def _rubric_path(reference: str, config_path: Path) -> Path:
    """The file a ``rubric:`` string names: a path (relative to the criteria file) or a shipped rubric's name."""
    if "/" in reference or reference.endswith((".yaml", ".yml")):
        candidate = Path(reference)
        return candidate if candidate.is_absolute() else config_path.parent / candidate
    own = config_path.parent / "rubrics" / f"{reference}.yaml"
    return own if own.is_file() else _shipped_rubric_path(reference)


def _load_rubric_file(path: Path, variables: Mapping[str, str]) -> tuple[Rubric, _Resolver]:
    """The rubric file at ``path`` validated, and its resolver (which knows the line of every key)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        shipped = sorted({p.stem for folder in _SHIPPED_RUBRICS if folder.is_dir() for p in folder.glob("*.yaml")})
        raise ConfigurationError(
            f"{path}: cannot read the rubric ({exc.strerror or exc}); set rubric (SCORING_RUBRIC) to a shipped "
            f"rubric ({', '.join(shipped)}) or a rubric file's path"
        ) from exc
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise ConfigurationError(f"{path}: {_describe_yaml_error(exc)}; fix the YAML syntax") from exc
    if not isinstance(root, yaml.MappingNode):
        raise ConfigurationError(f"{path}: expected a rubric mapping with 'name' and 'dimensions'")
    resolver = _Resolver(path, variables)
    return _validated_rubric(resolver.build(root), resolver, path, ()), resolver


def _validated_rubric(data: Any, resolver: _Resolver, path: Path, prefix: tuple[str | int, ...]) -> Rubric:
    try:
        return Rubric.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in (*prefix, *err['loc']))} "
            f"(line {resolver.line_of((*prefix, *err['loc']))}): {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigurationError(f"{path}: invalid rubric: {problems}") from exc


JURY = "jury"
"""The provider a jury's score is stored under (its jurors are in the score's spread)."""


def load_scoring_config(path: Path, variables: Mapping[str, str], providers_file: Path | None = None) -> ScoringConfig:
    """Read, substitute and validate the scoring configuration at ``path``; provider names resolve against
    tarsy-bot's built-in names and the TARSy providers file ``providers_file``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(
            f"{path}: cannot read the scoring configuration ({exc.strerror or exc}); "
            "set SCORING_CONFIG_PATH to the YAML file"
        ) from exc
    return parse_scoring_config(text, path, variables, providers_file)


def parse_scoring_config(
    text: str, path: Path, variables: Mapping[str, str], providers_file: Path | None = None
) -> ScoringConfig:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise ConfigurationError(f"{path}: {_describe_yaml_error(exc)}; fix the YAML syntax") from exc
    if not isinstance(root, yaml.MappingNode):
        raise ConfigurationError(f"{path}: expected a mapping with 'scoring' and 'judge_prompt' blocks")
    resolver = _Resolver(path, variables)
    data = resolver.build(root)
    try:
        parsed = ConfigFile.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in err['loc'])} (line {resolver.line_of(err['loc'])}): {err['msg']}"
            for err in exc.errors()
        )
        raise ConfigurationError(f"{path}: invalid scoring configuration: {problems}") from exc
    if isinstance(parsed.rubric, dict):
        rubric_path, rubric_resolver = path, resolver
        rubric = _validated_rubric(parsed.rubric, resolver, path, ("rubric",))
        rubric_prefix: tuple[str | int, ...] = ("rubric",)
    else:
        rubric_path = _rubric_path(parsed.rubric, path)
        rubric, rubric_resolver = _load_rubric_file(rubric_path, variables)
        rubric_prefix = ()
    if rubric.judge_prompt is not None:
        prompt = rubric.judge_prompt
        prompt_line = rubric_resolver.first_content_line((*rubric_prefix, "judge_prompt"))
        _check_placeholders(prompt, rubric_path, prompt_line)
    else:
        prompt = parsed.judge_prompt
        _check_placeholders(prompt, path, resolver.first_content_line(("judge_prompt",)))
    file_providers = load_providers_file(providers_file, variables) if providers_file is not None else {}
    target, jurors = _resolve_judges(parsed.scoring, path, resolver, variables, file_providers)
    if any(t.provider == "heuristic" for t in (target, *jurors) if t is not None):
        for loc, problem in rubric.offline_problems():
            line = rubric_resolver.line_of((*rubric_prefix, *loc))
            raise ConfigurationError(
                f"{rubric_path}:{line}: llm_provider is heuristic but {problem}, or choose another provider"
            )
    _check_masking(parsed.masking, path, resolver)
    fields = dict(parsed)
    fields.update(rubric=rubric, judge_prompt=prompt)
    return ScoringConfig(path=path, **fields, target=target, jurors=jurors)


def _check_masking(section: MaskingSection, path: Path, resolver: _Resolver) -> None:
    """Compile every custom pattern at start-up: a bad one names its line and what is wrong."""
    for index, custom in enumerate(section.custom):
        try:
            build_masker(True, BUILTIN_GROUPS, [CustomPattern(custom.name, custom.pattern)])
        except MaskingError as exc:
            line = resolver.line_of(("masking", "custom", index, "pattern"))
            raise ConfigurationError(f"{path}:{line}: masking.custom[{index}]: {exc}; fix or remove it") from exc


def _resolve_judges(
    scoring: ScoringSection,
    path: Path,
    resolver: _Resolver,
    variables: Mapping[str, str],
    file_providers: Mapping[str, TarsyProvider],
) -> tuple[JudgeTarget | None, tuple[JudgeTarget, ...]]:
    """The judge ``llm_provider`` names, or the jury's jurors (then ``llm_provider`` is not called)."""

    def resolved(name: str, model: str, loc: tuple[str | int, ...]) -> JudgeTarget:
        try:
            return resolve_target(name, model, variables, file_providers)
        except ConfigurationError as exc:
            raise ConfigurationError(
                f"{path}: {'.'.join(map(str, loc))} (line {resolver.line_of(loc)}): {exc}"
            ) from exc

    if scoring.jury is None:
        return resolved(scoring.llm_provider, scoring.llm_model, ("scoring", "llm_provider")), ()
    if scoring.samples != 1:
        raise ConfigurationError(
            f"{path}: scoring.samples (line {resolver.line_of(('scoring', 'samples'))}) must be 1 with a jury: each "
            "juror gives one verdict; remove samples or the jury"
        )
    jurors = tuple(
        resolved(j.provider, j.model, ("scoring", "jury", "judges", i)) for i, j in enumerate(scoring.jury.judges)
    )
    quorum = scoring.jury.effective_quorum
    if quorum > len(jurors):
        raise ConfigurationError(
            f"{path}: scoring.jury.quorum is {quorum} but the jury has {len(jurors)} judges; lower the quorum"
        )
    return None, jurors


def _check_placeholders(prompt: str, path: Path, first_line: int) -> None:
    found: set[str] = set()
    for match in PLACEHOLDER_RE.finditer(prompt):
        name = match.group(1)
        if name not in KNOWN_PLACEHOLDERS:
            line = first_line + prompt.count("\n", 0, match.start())
            raise ConfigurationError(
                f"{path}:{line}: unknown placeholder '{{{{{name}}}}}' in judge_prompt; "
                f"the known placeholders are {', '.join('{{' + p + '}}' for p in KNOWN_PLACEHOLDERS)}"
            )
        found.add(name)
    for name in REQUIRED_PLACEHOLDERS:
        if name not in found:
            raise ConfigurationError(
                f"{path}:{first_line}: judge_prompt lacks the required placeholder '{{{{{name}}}}}'; "
                "without it the judge never sees the session"
            )


def _describe_yaml_error(exc: yaml.YAMLError) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc)
    if mark is not None:
        return f"line {mark.line + 1}, column {mark.column + 1}: {problem}"
    return problem


class _Resolver:
    """Builds plain Python values from YAML nodes, substituting ``${...}`` and remembering line numbers."""

    def __init__(self, path: Path, variables: Mapping[str, str]) -> None:
        self._path = path
        self._variables = variables
        self._lines: dict[tuple[str | int, ...], tuple[int, int]] = {}

    def line_of(self, loc: tuple[str | int, ...]) -> int:
        while loc:
            if loc in self._lines:
                return self._lines[loc][0]
            loc = loc[:-1]
        return 1

    def first_content_line(self, loc: tuple[str | int, ...]) -> int:
        return self._lines.get(loc, (1, 1))[1]

    def build(self, node: yaml.Node, loc: tuple[str | int, ...] = ()) -> Any:
        if isinstance(node, yaml.MappingNode):
            result: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = str(key_node.value)
                self._lines[(*loc, key)] = (key_node.start_mark.line + 1, self._content_line(value_node))
                result[key] = self.build(value_node, (*loc, key))
            return result
        if isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self._lines.setdefault((*loc, index), (item.start_mark.line + 1, self._content_line(item)))
            return [self.build(item, (*loc, index)) for index, item in enumerate(node.value)]
        assert isinstance(node, yaml.ScalarNode)
        raw = str(node.value)
        if "$" not in raw:
            return yaml.safe_load(raw) if node.style is None and raw else raw
        value = substitute(raw, self._variables, self._path, self._content_line(node))
        if node.style is None:
            return yaml.safe_load(value) if value.strip() else ""
        return value

    @staticmethod
    def _content_line(node: yaml.Node) -> int:
        """1-based line of a node's first content line (block scalars start on the line after ``|``)."""
        line = int(node.start_mark.line) + 1
        if isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
            return line + 1
        return line
