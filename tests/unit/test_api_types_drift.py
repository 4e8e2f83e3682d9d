"""The dashboard's committed OpenAPI document is the one the API produces now.

The dashboard's TypeScript types are generated from ``dashboard/openapi.json`` (its Vitest suite checks that the
generated code matches that file). This test closes the loop on the Python side: a change to a route or a response
model that is not regenerated into the dashboard fails here, before the dashboard reads a field that is gone.
"""

from __future__ import annotations

import difflib
import json

from functions.api.export_openapi import DEFAULT_PATH, openapi_json


def test_committed_openapi_document_matches_the_api() -> None:
    current = openapi_json()
    committed = DEFAULT_PATH.read_text(encoding="utf-8") if DEFAULT_PATH.exists() else ""
    if committed == current:
        return
    diff = "".join(
        difflib.unified_diff(
            committed.splitlines(keepends=True),
            current.splitlines(keepends=True),
            "dashboard/openapi.json (committed)",
            "openapi.json (the API now)",
            n=2,
        )
    )
    shown = diff if len(diff) < 4000 else diff[:4000] + "\n[... diff cut ...]\n"
    raise AssertionError(
        "The API's OpenAPI document differs from the committed dashboard/openapi.json, so the dashboard's generated "
        f"types are stale. Run `make api-types` and commit the result.\n{shown}"
    )


def test_export_is_valid_json_that_documents_the_scoring_routes() -> None:
    document = json.loads(openapi_json())
    assert document["info"]["title"] == "Session Scoring API"
    assert "/api/v1/scoring/sessions/{session_id}/score" in document["paths"]
