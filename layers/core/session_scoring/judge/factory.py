"""Build the configured judge(s). Each SDK (anthropic, openai, google-genai) is imported here lazily, only for the
providers that need it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from pydantic import SecretStr

from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.configuration.providers import JudgeTarget
from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError
from session_scoring.judge.base import Judge
from session_scoring.models.rubric import Rubric

if TYPE_CHECKING:
    import openai
    from google import genai

    from session_scoring.judge.batches import MessageBatches
    from session_scoring.judge.google_batches import GoogleBatches
    from session_scoring.judge.openai_batches import OpenAIBatches


def build_judge(config: ScoringConfig, settings: Settings) -> Judge:
    """The judge of a configuration without a jury (a jury's jurors are built by :func:`build_judge_for`)."""
    return build_judge_for(config.the_target, settings, config.rubric)


def build_judge_for(target: JudgeTarget, settings: Settings, rubric: Rubric) -> Judge:
    """The judge ``target`` names, judging by ``rubric``, its SDK imported only now (the API function never builds
    one)."""
    provider = target.provider
    if provider == "heuristic":
        from session_scoring.judge.heuristic import HeuristicJudge

        return HeuristicJudge(target.model, rubric)
    if provider == "openai":
        return _openai_judge(target, settings, rubric)
    if provider == "google":
        return _google_judge(target, settings, rubric)
    import anthropic
    import httpx2

    from session_scoring.judge.claude import ClaudeJudge

    timeout = httpx2.Timeout(settings.judge_timeout_seconds, connect=5.0)
    if provider == "bedrock":
        bedrock = anthropic.AnthropicBedrock(aws_region=settings.aws_region, timeout=timeout, max_retries=0)
        return ClaudeJudge(bedrock, "bedrock", target.model, settings.judge_max_tokens, rubric)
    if provider == "vertex":
        vertex = anthropic.AnthropicVertex(
            region=_required(target.location, target, "a location (GOOGLE_CLOUD_LOCATION, or its location_env)"),
            project_id=_required(target.project, target, "a project (GOOGLE_CLOUD_PROJECT, or its project_env)"),
            access_token=_secret(settings.vertex_access_token),
            base_url=target.base_url or settings.vertex_base_url,
            timeout=timeout,
            max_retries=0,
        )
        return ClaudeJudge(cast(Any, vertex), "vertex", target.model, settings.judge_max_tokens, rubric)
    if provider == "anthropic":
        client = anthropic.Anthropic(
            api_key=_anthropic_key_for(target, settings),
            base_url=target.base_url or settings.anthropic_base_url,
            timeout=timeout,
            max_retries=0,
        )
        return ClaudeJudge(client, "anthropic", target.model, settings.judge_max_tokens, rubric)
    raise ConfigurationError(f"unknown llm_provider '{provider}'")


def lazy_judge(target: JudgeTarget, settings: Settings, rubric: Rubric) -> Callable[[], Judge]:
    """The judge of ``target``, built on the first call (inside a job's error handling) and kept."""
    built: list[Judge] = []

    def get() -> Judge:
        if not built:
            built.append(build_judge_for(target, settings, rubric))
        return built[0]

    return get


def _openai_judge(target: JudgeTarget, settings: Settings, rubric: Rubric) -> Judge:
    from session_scoring.judge.openai_judge import OpenAIJudge

    return OpenAIJudge(_openai_client(target, settings), target.model, settings.judge_max_tokens, rubric)


def _openai_client(target: JudgeTarget, settings: Settings) -> openai.OpenAI:
    import httpx2
    import openai

    return openai.OpenAI(
        api_key=_api_key(target, settings, "OPENAI_API_KEY"),
        base_url=target.base_url or settings.openai_base_url,
        timeout=httpx2.Timeout(settings.judge_timeout_seconds, connect=5.0),
        max_retries=0,
    )


def _google_judge(target: JudgeTarget, settings: Settings, rubric: Rubric) -> Judge:
    from session_scoring.judge.google_judge import GoogleJudge

    return GoogleJudge(_google_client(target, settings), target.model, settings.judge_max_tokens, rubric)


def _google_client(target: JudgeTarget, settings: Settings) -> genai.Client:
    from google import genai
    from google.genai import types

    from session_scoring.judge.google_judge import no_retries

    http = types.HttpOptions(
        base_url=target.base_url or settings.google_base_url,
        timeout=int(settings.judge_timeout_seconds * 1000),
        retry_options=no_retries(),
    )
    if target.vertex_ai:
        credentials = None
        token = _secret(settings.vertex_access_token)
        if token is not None:
            from google.oauth2.credentials import Credentials

            credentials = Credentials(token=token)  # type: ignore[no-untyped-call]
        return genai.Client(
            vertexai=True,
            project=_required(target.project, target, "a project (GOOGLE_CLOUD_PROJECT, or its project_env)"),
            location=_required(target.location, target, "a location (GOOGLE_CLOUD_LOCATION, or its location_env)"),
            credentials=credentials,
            http_options=http,
        )
    return genai.Client(api_key=_api_key(target, settings, "GOOGLE_API_KEY"), http_options=http)


def _secret(value: SecretStr | None) -> str | None:
    return value.get_secret_value() if value is not None and value.get_secret_value() else None


def _required(value: str | None, target: JudgeTarget, what: str) -> str:
    if not value:
        raise ConfigurationError(f"llm_provider '{target.name}' ({target.provider} on Vertex AI) needs {what}; set it")
    return value


def _api_key(target: JudgeTarget, settings: Settings, default_env: str) -> str:
    """The key in the variable the provider entry names, read through the settings object."""
    variable = target.api_key_env or default_env
    key = settings.template_variables.get(variable, "").strip()
    if not key:
        raise ConfigurationError(
            f"llm_provider '{target.name}' needs an API key and {variable} is not set; set {variable}, or choose "
            "another provider (SCORING_LLM_PROVIDER=heuristic needs none)"
        )
    return key


def _anthropic_key_for(target: JudgeTarget, settings: Settings) -> str:
    """An entry naming its own key variable reads that; else ANTHROPIC_API_KEY or its Secrets Manager secret."""
    if target.api_key_env and target.api_key_env != "ANTHROPIC_API_KEY":
        return _api_key(target, settings, "ANTHROPIC_API_KEY")
    return _anthropic_api_key(settings)


def build_batches(config: ScoringConfig, settings: Settings) -> MessageBatches | OpenAIBatches | GoogleBatches:
    """The batch API client of batch-mode runs (its judge builds the requests): the Anthropic Message Batches API,
    the OpenAI Batch API or Gemini batch mode on the Gemini API (runs.BATCH_PROVIDERS)."""
    provider = config.llm_provider
    if provider == "google" and not config.the_target.vertex_ai:
        from session_scoring.judge.google_batches import GoogleBatches
        from session_scoring.judge.google_judge import GoogleJudge

        google_client = _google_client(config.the_target, settings)
        google_judge = GoogleJudge(google_client, config.llm_model, settings.judge_max_tokens, config.rubric)
        return GoogleBatches(google_client, google_judge, settings.judge_timeout_seconds)
    if provider == "openai":
        from session_scoring.judge.openai_batches import OpenAIBatches
        from session_scoring.judge.openai_judge import OpenAIJudge

        openai_client = _openai_client(config.the_target, settings)
        openai_judge = OpenAIJudge(openai_client, config.llm_model, settings.judge_max_tokens, config.rubric)
        return OpenAIBatches(openai_client, openai_judge, settings.judge_timeout_seconds)
    if provider != "anthropic":
        raise ConfigurationError(
            f"batch-mode runs need llm_provider 'anthropic' (the Message Batches API), 'openai' (the Batch API) or "
            f"'google' on the Gemini API (Gemini batch mode); it is '{provider}'"
            + (" on Vertex AI" if provider == "google" else "")
        )
    import anthropic
    import httpx2

    from session_scoring.judge.batches import MessageBatches
    from session_scoring.judge.claude import ClaudeJudge

    target = config.the_target
    timeout = httpx2.Timeout(settings.judge_timeout_seconds, connect=5.0)
    client = anthropic.Anthropic(
        api_key=_anthropic_key_for(target, settings),
        base_url=target.base_url or settings.anthropic_base_url,
        timeout=timeout,
        max_retries=0,
    )
    judge = ClaudeJudge(client, "anthropic", config.llm_model, settings.judge_max_tokens, config.rubric)
    return MessageBatches(client, judge, settings.judge_timeout_seconds)


def _anthropic_api_key(settings: Settings) -> str:
    if settings.anthropic_api_key is not None and settings.anthropic_api_key.get_secret_value():
        return settings.anthropic_api_key.get_secret_value()
    if settings.anthropic_api_key_secret_arn:
        from session_scoring.infrastructure.secrets import read_secret

        return read_secret(settings, settings.anthropic_api_key_secret_arn, "ANTHROPIC_API_KEY_SECRET_ARN")
    raise ConfigurationError(
        "llm_provider is 'anthropic' but no API key is configured: set ANTHROPIC_API_KEY, or "
        "ANTHROPIC_API_KEY_SECRET_ARN to a Secrets Manager secret holding the key, or SCORING_LLM_PROVIDER=heuristic"
    )
