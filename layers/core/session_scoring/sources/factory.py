"""Build the configured session source."""

from __future__ import annotations

from session_scoring.configuration.criteria import SessionSourceSection, TraceImportSection
from session_scoring.configuration.settings import Settings
from session_scoring.sources.base import SessionSource


def build_source(
    section: SessionSourceSection, settings: Settings, trace_import: TraceImportSection | None = None
) -> SessionSource:
    """``file``, ``tarsy`` (tarsy-bot History API) or ``tarsy-go`` (TARSy's Go API), from ``session_source``;
    ``trace_import`` says how the file source reads other agents' traces."""
    if section.type == "file":
        from session_scoring.sources.file import FileSessionSource

        return FileSessionSource(
            settings.resolve_path(section.directory),
            include_chat=section.include_chat,
            submit_tools=(trace_import or TraceImportSection()).submit_tool_names,
        )
    from session_scoring.infrastructure.secrets import read_secret
    from session_scoring.sources.http import TarsyGoSessionSource, TarsyHttpClient, TarsySessionSource

    client = TarsyHttpClient(
        section.base_url,
        token=section.token,
        token_secret_arn=section.token_secret_arn,
        connect_timeout_seconds=section.connect_timeout_seconds,
        read_timeout_seconds=section.read_timeout_seconds,
        max_retries=section.max_retries,
        retry_base_seconds=settings.source_retry_base_seconds,
        secret_reader=lambda arn: read_secret(settings, arn, "session_source.token_secret_arn"),
    )
    if section.type == "tarsy":
        return TarsySessionSource(client, include_chat=section.include_chat)
    return TarsyGoSessionSource(client, include_chat=section.include_chat)
