"""The judging criteria in force."""

from fastapi import APIRouter, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX, CriteriaHash
from functions.api.responses import json_response
from session_scoring.models.api import CriteriaDefinition

router = APIRouter(prefix=API_PREFIX)


@router.get(
    "/criteria/current",
    response_model=CriteriaDefinition,
    responses=error_responses(422, 500, 503),
    summary="The judging criteria in force and their hash",
)
async def current_criteria(scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.scoring_service.current_criteria))


@router.get(
    "/criteria/{criteria_hash}",
    response_model=CriteriaDefinition,
    responses=error_responses(404, 422, 500, 503),
    summary="Stored criteria by their hash, with the rubric their scores were judged by",
)
async def criteria_by_hash(criteria_hash: CriteriaHash, scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.scoring_service.criteria, criteria_hash))
