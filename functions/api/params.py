"""The URL prefix and the path/query parameters more than one router declares."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path

from session_scoring.models.ids import SESSION_ID_PATTERN

API_PREFIX = "/api/v1/scoring"

IMPORT_PATH = f"{API_PREFIX}/sessions:import"
"""The upload route, whose body limit differs (``middleware.body_limit`` reads it without importing its router)."""

SessionId = Annotated[
    str,
    Path(
        pattern=SESSION_ID_PATTERN,
        max_length=128,
        description="The session's id at its source (letters, digits, '.', '_', ':', '-'; at most 128)",
    ),
]

TEXT_PATTERN = r"^[^\x00]*$"
"""Free text that PostgreSQL can hold: anything but the NUL character (a 422 names it instead of a 500)."""

CRITERIA_SCOPE_PATTERN = r"^([0-9a-f]{64}|current|any)$"
"""A criteria hash, ``current`` (the criteria in force) or ``any`` (every criteria): what every endpoint that
filters by criteria accepts, so one spelling works across the scores, analytics and exports."""
