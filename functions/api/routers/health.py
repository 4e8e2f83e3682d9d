"""Liveness and the database check (outside the API prefix, for load balancers and monitors)."""

from __future__ import annotations

from fastapi import APIRouter

from functions.api.deps import ContainerDep
from functions.api.errors import error_responses
from session_scoring.models.api import Health

router = APIRouter()


@router.get(
    "/health", response_model=Health, responses=error_responses(500, 503), summary="Liveness and database check"
)
def health(scoring: ContainerDep) -> Health:
    return scoring.scoring_service.health()
