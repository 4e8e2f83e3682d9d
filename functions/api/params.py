"""The URL prefix and the path/query parameters more than one router declares.

Every page number, page size and row limit is bounded here: an unbounded integer becomes a SQL ``OFFSET`` or
``LIMIT`` that overflows PostgreSQL's ``bigint`` (a 500 instead of a 422 naming the parameter).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

from session_scoring.models.ids import SESSION_ID_PATTERN

API_PREFIX = "/api/v1/scoring"

IMPORT_PATH = f"{API_PREFIX}/sessions:import"
"""The upload route, whose body limit differs (``limits.body_limit`` reads it without importing its router)."""

SessionId = Annotated[
    str,
    Path(
        pattern=SESSION_ID_PATTERN,
        max_length=128,
        description="The session's id at its source (letters, digits, '.', '_', ':', '-'; at most 128)",
    ),
]

CriteriaHash = Annotated[
    str, Path(pattern=r"^[0-9a-f]{64}$", description="A criteria hash (64 lower-case hexadecimal characters)")
]

CRITERIA_SCOPE_PATTERN = r"^([0-9a-f]{64}|current|any)$"
"""A criteria hash, ``current`` (the criteria in force) or ``any`` (every criteria): what every endpoint that
filters by criteria accepts, so one spelling works across the scores, analytics and exports."""

MAX_PAGE = 100_000
"""The highest page number any list serves (page sizes are at most 100: ten million rows deep)."""

MAX_PAGE_SIZE = 100

Page = Annotated[int, Query(ge=1, le=MAX_PAGE, description=f"Page number, from 1 (at most {MAX_PAGE:,})")]

PageSize = Annotated[int, Query(ge=1, le=MAX_PAGE_SIZE, description=f"Items per page (at most {MAX_PAGE_SIZE})")]
