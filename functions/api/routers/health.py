"""Liveness and the database check (outside the API prefix, for load balancers and monitors)."""

from fastapi import APIRouter, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep
from functions.api.errors import error_responses
from functions.api.responses import json_response
from session_scoring.models.api import Health

router = APIRouter()


@router.get(
    "/health",
    response_model=Health,
    responses=error_responses(500, 503),
    summary="Liveness: 503 without the database; degraded (200) when the judge's circuit is open or the queue is "
    "unreachable",
)
async def health(scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.health_service.check))
