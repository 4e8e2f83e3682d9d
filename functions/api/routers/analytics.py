"""Analytics over the latest completed score of each session: score bands, missing tools, criteria in use."""

from typing import Annotated

from fastapi import APIRouter, Query, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX, CriteriaHashFilter
from functions.api.responses import json_response
from session_scoring.models.api import CriteriaUsage, MissingToolsReport, ScoreDistribution

router = APIRouter(prefix=f"{API_PREFIX}/analytics")


@router.get(
    "/score-distribution",
    response_model=ScoreDistribution,
    responses=error_responses(422, 500, 503),
    summary="Sessions per score band (latest completed score of each session)",
)
async def score_distribution(scoring: ContainerDep, criteria_hash: CriteriaHashFilter = None) -> Response:
    return json_response(await run_blocking(scoring.analytics_service.score_distribution, criteria_hash))


@router.get(
    "/missing-tools",
    response_model=MissingToolsReport,
    responses=error_responses(422, 500, 503),
    summary="The tools judged missing most often (latest completed score of each session)",
)
async def missing_tools(
    scoring: ContainerDep,
    criteria_hash: CriteriaHashFilter = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
) -> Response:
    return json_response(await run_blocking(scoring.analytics_service.missing_tools, criteria_hash, limit))


@router.get(
    "/criteria",
    response_model=list[CriteriaUsage],
    responses=error_responses(500, 503),
    summary="Stored criteria definitions with the sessions each has scored, the current one first",
)
async def criteria_in_use(scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.analytics_service.criteria_in_use))
