"""``GET /api/v1/scoring/me``: who the caller is and their roles (the dashboard disables what they may not do)."""

from fastapi import APIRouter, Response

from functions.api.blocking import run_blocking
from functions.api.deps import CallerDep, ContainerDep
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX
from functions.api.responses import json_response
from session_scoring.models.access import CallerAccess

router = APIRouter(prefix=API_PREFIX)


@router.get(
    "/me",
    response_model=CallerAccess,
    responses=error_responses(422, 500, 503),
    summary="The caller: their identity, where it came from, their roles, and whether roles are checked",
)
async def me(scoring: ContainerDep, who: CallerDep) -> Response:
    return json_response(await run_blocking(scoring.access_policy.describe, who))
