"""The URL prefix and the path/query parameters more than one router declares."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

from session_scoring.models.api import SESSION_ID_PATTERN

API_PREFIX = "/api/v1/scoring"

SessionId = Annotated[
    str,
    Path(
        pattern=SESSION_ID_PATTERN,
        max_length=128,
        description="The session's id at its source (letters, digits, '.', '_', ':', '-'; at most 128)",
    ),
]

CriteriaHashFilter = Annotated[
    str | None,
    Query(
        pattern=r"^[0-9a-f]{64}$",
        description="Count only scores made with this criteria hash (64 lowercase hex digits); all when absent",
    ),
]
