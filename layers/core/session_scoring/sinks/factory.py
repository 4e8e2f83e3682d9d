"""Build the write-back sink for the configured session source."""

from __future__ import annotations

from session_scoring.configuration.criteria import SessionSourceSection
from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError, WriteBackRejectedError, WriteBackUnavailableError
from session_scoring.sinks.base import VerdictSink

STORES = {"phoenix": "Phoenix", "mlflow": "MLflow"}
URL_SETTING = "session_source.base_url (SCORING_SOURCE_URL)"
CREDENTIAL_SETTINGS = (
    "session_source.token (SCORING_SOURCE_TOKEN) or session_source.token_secret_arn (SCORING_SOURCE_TOKEN_SECRET_ARN)"
)


def build_sink(section: SessionSourceSection, settings: Settings) -> VerdictSink:
    """The sink writing to the store the sessions come from (its URL, project and credentials); a configuration
    error when write-back is asked for and the sessions come from elsewhere."""
    if section.type not in STORES:
        raise ConfigurationError(
            f"SCORING_WRITEBACK is on but sessions come from '{section.type}', which has no traces to write to; "
            "write-back needs session_source.type phoenix or mlflow (SCORING_SESSION_SOURCE), or set "
            "SCORING_WRITEBACK=false"
        )
    from session_scoring.infrastructure.json_http import JsonHttpClient
    from session_scoring.infrastructure.secrets import read_secret

    client = JsonHttpClient(
        STORES[section.type],
        section.base_url,
        url_setting=URL_SETTING,
        credential_settings=CREDENTIAL_SETTINGS,
        unavailable=WriteBackUnavailableError,
        rejected=WriteBackRejectedError,
        token=section.token,
        token_secret_arn=section.token_secret_arn,
        secret_reader=lambda arn: read_secret(settings, arn, "session_source.token_secret_arn"),
        connect_timeout_seconds=min(section.connect_timeout_seconds, settings.writeback_timeout_seconds),
        read_timeout_seconds=settings.writeback_timeout_seconds,
        # No retry inside the job: a POST that timed out may have been written, and the queue's next delivery
        # (which reads what is there first) is the retry.
        max_retries=0,
    )
    if section.type == "phoenix":
        from session_scoring.sinks.phoenix import DEFAULT_PROJECT, PhoenixVerdictSink

        return PhoenixVerdictSink(client, section.project.strip() or DEFAULT_PROJECT)
    from session_scoring.sinks.mlflow import MlflowVerdictSink

    return MlflowVerdictSink(client)
