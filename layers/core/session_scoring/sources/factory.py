"""Build the configured session source."""

from __future__ import annotations

from session_scoring.criteria import SessionSourceSection
from session_scoring.settings import Settings
from session_scoring.sources.base import SessionSource


def build_source(section: SessionSourceSection, settings: Settings) -> SessionSource:
    if section.type == "file":
        from session_scoring.sources.file import FileSessionSource

        return FileSessionSource(settings.resolve_path(section.directory))
    from session_scoring.errors import ConfigurationError

    raise ConfigurationError(f"session_source.type '{section.type}' is not available yet")
