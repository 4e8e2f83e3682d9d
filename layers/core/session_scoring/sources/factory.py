"""Build the configured session source."""

from __future__ import annotations

from session_scoring.configuration.criteria import SessionSourceSection, TraceImportSection
from session_scoring.configuration.settings import Settings
from session_scoring.errors import SourceUnavailableError
from session_scoring.sources.base import SessionSource


def build_source(
    section: SessionSourceSection, settings: Settings, trace_import: TraceImportSection | None = None
) -> SessionSource:
    """``file``, ``tarsy`` (tarsy-bot History API), ``tarsy-go`` (TARSy's Go API), ``phoenix`` (an Arize Phoenix
    project) or ``mlflow`` (MLflow experiments), from ``session_source``; ``trace_import`` says how the file source
    reads other agents' traces."""
    if section.type == "file":
        from session_scoring.sources.file import FileSessionSource

        return FileSessionSource(
            settings.resolve_path(section.directory),
            include_chat=section.include_chat,
            submit_tools=(trace_import or TraceImportSection()).submit_tool_names,
        )
    from session_scoring.infrastructure.json_http import TRACE_STORES, source_credentials, trace_store_client

    timeouts = {
        "connect_timeout_seconds": section.connect_timeout_seconds,
        "read_timeout_seconds": section.read_timeout_seconds,
        "max_retries": section.max_retries,
        "retry_base_seconds": settings.source_retry_base_seconds,
    }
    if section.type in TRACE_STORES:
        store = trace_store_client(
            section, settings, unavailable=SourceUnavailableError, rejected=SourceUnavailableError, **timeouts
        )
        if section.type == "phoenix":
            from session_scoring.sources.phoenix import PhoenixSessionSource

            return PhoenixSessionSource(store, section.project)
        from session_scoring.sources.mlflow import MlflowSessionSource

        return MlflowSessionSource(store, section.project)
    from session_scoring.sources.http import TarsyGoSessionSource, TarsyHttpClient, TarsySessionSource

    client = TarsyHttpClient(section.base_url, **source_credentials(section, settings), **timeouts)
    if section.type == "tarsy":
        return TarsySessionSource(client, include_chat=section.include_chat)
    return TarsyGoSessionSource(client, include_chat=section.include_chat)
