"""The role each API route needs, keyed by method and path template: one table, read by ``deps.authorized``.

A route missing here is refused (500, naming this table) and fails ``tests/unit/api/test_route_roles.py``.
``public``: anyone; ``authenticated``: any identified caller; a role: that role or a higher one (viewer < labeller <
operator < admin). The OpenAPI document states each route's requirement (:func:`document_roles`).
"""

from __future__ import annotations

from typing import Any, Literal

from functions.api.params import API_PREFIX, IMPORT_PATH

RouteAccess = Literal["public", "authenticated", "viewer", "labeller", "operator", "admin"]

_S = f"{API_PREFIX}/sessions/{{session_id}}"
_RUN = f"{API_PREFIX}/runs/{{run_id}}"
_A = f"{API_PREFIX}/analytics"

ROUTE_ROLES: dict[tuple[str, str], RouteAccess] = {
    # health: the status for anyone, the details for a viewer
    ("GET", "/health"): "public",
    ("GET", f"{API_PREFIX}/health/details"): "viewer",
    # the caller
    ("GET", f"{API_PREFIX}/me"): "authenticated",
    # reading: scores, sessions, analytics, runs, labels
    ("GET", f"{_S}/score"): "viewer",
    ("GET", f"{_S}/scores"): "viewer",
    ("GET", f"{_S}/scoring"): "viewer",
    ("GET", f"{_S}/steps"): "viewer",
    ("GET", f"{API_PREFIX}/search"): "viewer",
    ("GET", f"{API_PREFIX}/scores/values"): "viewer",
    ("GET", f"{API_PREFIX}/sessions"): "viewer",
    ("GET", _S): "viewer",
    ("GET", f"{API_PREFIX}/criteria/current"): "viewer",
    ("GET", f"{API_PREFIX}/criteria/{{criteria_hash}}"): "viewer",
    ("GET", f"{_A}/score-distribution"): "viewer",
    ("GET", f"{_A}/missing-tools"): "viewer",
    ("GET", f"{_A}/missing-tools/{{tool_name}}/sessions"): "viewer",
    ("GET", f"{_A}/criteria"): "viewer",
    ("GET", f"{_A}/failure-tags"): "viewer",
    ("GET", f"{_A}/failure-tags/{{tag}}/sessions"): "viewer",
    ("GET", f"{_A}/trends"): "viewer",
    ("GET", f"{_A}/criteria-comparison"): "viewer",
    ("GET", f"{_A}/agreement"): "viewer",
    ("GET", f"{_A}/outcome"): "viewer",
    ("GET", f"{API_PREFIX}/scores"): "viewer",
    ("GET", f"{API_PREFIX}/runs"): "viewer",
    ("GET", _RUN): "viewer",
    ("GET", f"{_RUN}/sessions"): "viewer",
    ("GET", f"{_RUN}/summary"): "viewer",
    ("GET", f"{_S}/labels"): "viewer",
    ("GET", f"{API_PREFIX}/labels/next"): "viewer",
    # labelling
    ("PUT", f"{_S}/labels"): "labeller",
    ("PUT", f"{_S}/labels/reference"): "labeller",
    ("DELETE", f"{_S}/labels/reference"): "labeller",
    # paid or bulk work: scoring (forced or not), runs (a dry run included), imports
    ("POST", f"{_S}/score"): "operator",
    ("POST", f"{API_PREFIX}/runs"): "operator",
    ("POST", f"{_RUN}/cancel"): "operator",
    ("POST", IMPORT_PATH): "operator",
    # training data leaves the service: the export, streamed or as a job, and its download URL
    ("GET", f"{API_PREFIX}/exports/training"): "admin",
    ("POST", f"{API_PREFIX}/exports/training"): "admin",
    ("GET", f"{API_PREFIX}/exports/{{export_id}}"): "admin",
}

ACCESS_IN_WORDS: dict[RouteAccess, str] = {
    "public": "Anyone may call this route, without a token.",
    "authenticated": "Any authenticated caller, whatever their roles.",
    "viewer": "Needs the viewer role (or labeller, operator, admin).",
    "labeller": "Needs the labeller role (or operator, admin).",
    "operator": "Needs the operator role (or admin).",
    "admin": "Needs the admin role.",
}


def required_access(method: str, path: str) -> RouteAccess | None:
    """The route's requirement, None when the table has no entry for it."""
    return ROUTE_ROLES.get((method.upper(), path))


def document_roles(document: dict[str, Any]) -> dict[str, Any]:
    """Each operation of an OpenAPI document with its requirement: ``x-required-role``, a sentence at the end of its
    description, and the 401 and 403 answers where they can happen. Idempotent (called on every ``openapi()``)."""
    from functions.api.errors import error_responses

    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            access = required_access(method, path)
            if access is None or "x-required-role" in operation:
                continue
            operation["x-required-role"] = access
            words = ACCESS_IN_WORDS[access]
            operation["description"] = (
                f"{operation['description']}\n\n{words}" if operation.get("description") else words
            )
            statuses = () if access == "public" else (401,) if access == "authenticated" else (401, 403)
            for status, answer in error_responses(*statuses).items():
                operation["responses"] = _with_status(operation.setdefault("responses", {}), str(status), answer)
    return document


def _with_status(responses: dict[str, Any], status: str, answer: dict[str, Any]) -> dict[str, Any]:
    """``responses`` with ``status`` added before the first larger status (the others keep their order)."""
    if status in responses:
        return responses
    keys = list(responses)
    at = next((i for i, key in enumerate(keys) if key.isdigit() and int(key) > int(status)), len(keys))
    return {**{k: responses[k] for k in keys[:at]}, status: answer, **{k: responses[k] for k in keys[at:]}}
