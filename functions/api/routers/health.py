"""Liveness and the database check (outside the API prefix, for load balancers and monitors)."""

from fastapi import APIRouter

from functions.api.deps import ContainerDep
from functions.api.errors import error_responses
from session_scoring.models.api import Health

router = APIRouter()


@router.get(
    "/health",
    response_model=Health,
    responses=error_responses(500, 503),
    summary="Liveness: 503 without the database; degraded (200) when the judge's circuit is open or the queue is "
    "unreachable",
)
def health(scoring: ContainerDep) -> Health:
    return scoring.health_service.check()
