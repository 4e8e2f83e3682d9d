"""Build the write-back sink for the configured session source."""

from __future__ import annotations

from session_scoring.configuration.criteria import SessionSourceSection
from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError, WriteBackRejectedError, WriteBackUnavailableError
from session_scoring.infrastructure.json_http import TRACE_STORES, trace_store_client
from session_scoring.sinks.base import VerdictSink


def build_sink(section: SessionSourceSection, settings: Settings) -> VerdictSink:
    """The sink writing to the store the sessions come from (its URL, project and credentials); a configuration
    error when write-back is asked for and the sessions come from elsewhere."""
    if section.type not in TRACE_STORES:
        raise ConfigurationError(
            f"SCORING_WRITEBACK is on but sessions come from '{section.type}', which has no traces to write to; "
            "write-back needs session_source.type phoenix or mlflow (SCORING_SESSION_SOURCE), or set "
            "SCORING_WRITEBACK=false"
        )
    client = trace_store_client(
        section,
        settings,
        unavailable=WriteBackUnavailableError,
        rejected=WriteBackRejectedError,
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
