"""The judging criteria in force."""

from fastapi import APIRouter

from functions.api.deps import ContainerDep
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX
from session_scoring.models.api import CriteriaDefinition

router = APIRouter(prefix=API_PREFIX)


@router.get(
    "/criteria/current",
    response_model=CriteriaDefinition,
    responses=error_responses(500, 503),
    summary="The judging criteria in force and their hash",
)
def current_criteria(scoring: ContainerDep) -> CriteriaDefinition:
    return scoring.scoring_service.current_criteria()
