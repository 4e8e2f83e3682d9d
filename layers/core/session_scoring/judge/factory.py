"""Build the configured judge. The Anthropic SDK is imported here lazily, only for LLM providers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError
from session_scoring.judge.base import Judge

if TYPE_CHECKING:
    from session_scoring.judge.batches import MessageBatches


def build_judge(config: ScoringConfig, settings: Settings) -> Judge:
    provider = config.llm_provider
    if provider == "heuristic":
        from session_scoring.judge.heuristic import HeuristicJudge

        return HeuristicJudge(config.llm_model, config.rubric)
    import anthropic
    import httpx2

    from session_scoring.judge.claude import ClaudeJudge

    timeout = httpx2.Timeout(settings.judge_timeout_seconds, connect=5.0)
    if provider == "bedrock":
        bedrock = anthropic.AnthropicBedrock(aws_region=settings.aws_region, timeout=timeout, max_retries=0)
        return ClaudeJudge(bedrock, "bedrock", config.llm_model, settings.judge_max_tokens, config.rubric)
    if provider == "anthropic":
        client = anthropic.Anthropic(
            api_key=_anthropic_api_key(settings),
            base_url=settings.anthropic_base_url,
            timeout=timeout,
            max_retries=0,
        )
        return ClaudeJudge(client, "anthropic", config.llm_model, settings.judge_max_tokens, config.rubric)
    raise ConfigurationError(f"unknown llm_provider '{provider}'")


def build_batches(config: ScoringConfig, settings: Settings) -> MessageBatches:
    """The Message Batches client for batch-mode runs: the Anthropic API only (its judge builds the requests)."""
    if config.llm_provider != "anthropic":
        raise ConfigurationError(
            f"batch-mode runs need llm_provider 'anthropic' (the Message Batches API); it is '{config.llm_provider}'"
        )
    import anthropic
    import httpx2

    from session_scoring.judge.batches import MessageBatches
    from session_scoring.judge.claude import ClaudeJudge

    timeout = httpx2.Timeout(settings.judge_timeout_seconds, connect=5.0)
    client = anthropic.Anthropic(
        api_key=_anthropic_api_key(settings), base_url=settings.anthropic_base_url, timeout=timeout, max_retries=0
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
