"""``POST /api/v1/scoring/sessions:import``: store an uploaded session (any recognised trace format) for scoring."""

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep, Requester
from functions.api.errors import error_response
from functions.api.params import API_PREFIX, IMPORT_PATH
from functions.api.responses import json_response
from session_scoring.models.api import ImportedSession

router = APIRouter()

_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "description": "The session document as saved by the agent: JSON, or JSON Lines (one event per line). "
        "Formats: see docs/trace-formats.md.",
        "content": {
            "application/json": {"schema": {"type": "object"}},
            "application/x-ndjson": {"schema": {"type": "string"}},
        },
    }
}


@router.post(
    IMPORT_PATH,
    response_model=ImportedSession,
    status_code=201,
    summary="Upload a session (OpenAI, Anthropic, OpenTelemetry GenAI, Codex or Claude Code trace) for scoring",
    responses={
        400: error_response("The upload is not a session in a recognised format"),
        413: error_response("The upload exceeds SCORING_IMPORT_MAX_BYTES (5 MiB by default)"),
        422: error_response("Invalid query parameter"),
        500: error_response("Service misconfigured"),
        503: error_response("The database is unavailable"),
    },
    openapi_extra=_BODY,
)
async def import_session(
    request: Request,
    scoring: ContainerDep,
    caller: Requester,
    file_name: Annotated[
        str | None,
        Query(
            max_length=255,
            pattern=r"^[\w.\- ]+$",
            description="The file's name; a name ending in .jsonl reads the body as JSON Lines",
        ),
    ] = None,
) -> Response:
    body = await request.body()
    imported = await run_blocking(
        scoring.import_service.import_session, body, file_name, request.headers.get("content-type"), caller
    )
    location = f"{API_PREFIX}/sessions/{imported.session_id}"
    return json_response(imported, status_code=201, headers={"Location": location})
