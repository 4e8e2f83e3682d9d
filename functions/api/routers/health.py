"""Health: the status for anyone (outside the API prefix, for load balancers and monitors), the details behind it for
an authenticated caller."""

from fastapi import APIRouter, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX
from functions.api.responses import json_response
from session_scoring.models.api import Health, HealthStatus

router = APIRouter()


@router.get(
    "/health",
    response_model=HealthStatus,
    responses=error_responses(422, 500, 503),
    summary="Liveness: ok, or degraded (200) when the judge's circuit is open or the queue is unreachable; 503 "
    "without the database. Why, and what runs: GET /api/v1/scoring/health/details",
)
async def health(scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.health_service.status))


@router.get(
    f"{API_PREFIX}/health/details",
    response_model=Health,
    responses=error_responses(422, 500, 503),
    summary="The status with its problems, the version, criteria hash, judge model, circuit state and queue depth",
)
async def health_details(scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.health_service.check))
