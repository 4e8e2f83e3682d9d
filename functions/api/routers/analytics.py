"""Analytics over the latest completed score of each session: score bands, missing tools (and the sessions missing
one), failure tags (and the sessions given one), criteria in use, trends, the comparison of two criteria, and the
outcomes (was the known root cause found)."""

from typing import Annotated, Literal

from fastapi import APIRouter, Path, Query, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep, CriteriaScope
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX, Page, PageSize
from functions.api.responses import json_response
from session_scoring.models.api import (
    CriteriaUsage,
    FailureTagSessionsPage,
    FailureTagsReport,
    MissingToolSessionsPage,
    MissingToolsReport,
    OutcomeReport,
    ScoreDistribution,
)
from session_scoring.models.request import IsoDateTime
from session_scoring.models.trends import CriteriaComparison, TrendBucket, TrendGroup, TrendsReport

router = APIRouter(prefix=f"{API_PREFIX}/analytics")


@router.get(
    "/score-distribution",
    response_model=ScoreDistribution,
    responses=error_responses(422, 500, 503),
    summary="Sessions per score band (latest completed score of each session)",
)
async def score_distribution(scoring: ContainerDep, criteria_hash: CriteriaScope) -> Response:
    return json_response(await run_blocking(scoring.analytics_service.score_distribution, criteria_hash))


@router.get(
    "/missing-tools",
    response_model=MissingToolsReport,
    responses=error_responses(422, 500, 503),
    summary="The tools judged missing most often (latest completed score of each session)",
)
async def missing_tools(
    scoring: ContainerDep,
    criteria_hash: CriteriaScope,
    limit: Annotated[int, Query(ge=1, le=100)] = 10,
    bucket: Annotated[Literal["day", "week"], Query(description="Each tool's trend per day or week (UTC)")] = "week",
    periods: Annotated[int, Query(ge=1, le=104, description="Buckets in each trend, ending with the current")] = 12,
) -> Response:
    return json_response(
        await run_blocking(scoring.analytics_service.missing_tools, criteria_hash, limit, bucket, periods)
    )


@router.get(
    "/missing-tools/{tool_name}/sessions",
    response_model=MissingToolSessionsPage,
    responses=error_responses(400, 404, 422, 500, 503),
    summary="Sessions whose latest completed score names a tool missing (any spelling of it), with the rationale",
)
async def missing_tool_sessions(
    scoring: ContainerDep,
    tool_name: Annotated[str, Path(min_length=1, max_length=255)],
    criteria_hash: Annotated[str, Query(description="'current' (default), 'any', or a criteria hash")] = "current",
    cursor: Annotated[str | None, Query(description="next_cursor of the previous page")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> Response:
    return json_response(
        await run_blocking(scoring.insights_service.tool_sessions, tool_name, criteria_hash, cursor, limit)
    )


@router.get(
    "/failure-tags",
    response_model=FailureTagsReport,
    responses=error_responses(422, 500, 503),
    summary="The failure tags given most often (latest completed score of each session), each with its trend",
)
async def failure_tags(
    scoring: ContainerDep,
    criteria_hash: CriteriaScope,
    bucket: Annotated[Literal["day", "week"], Query(description="Each tag's trend per day or week (UTC)")] = "week",
    periods: Annotated[int, Query(ge=1, le=104, description="Buckets in each trend, ending with the current")] = 12,
) -> Response:
    return json_response(await run_blocking(scoring.analytics_service.failure_tags, criteria_hash, bucket, periods))


@router.get(
    "/failure-tags/{tag}/sessions",
    response_model=FailureTagSessionsPage,
    responses=error_responses(404, 422, 500, 503),
    summary="Sessions whose latest completed score has a failure tag, most recently scored first",
)
async def failure_tag_sessions(
    scoring: ContainerDep,
    tag: Annotated[str, Path(pattern=r"^[a-z][a-z0-9_]{0,62}$", description="A failure tag")],
    criteria_hash: CriteriaScope,
    page: Page = 1,
    page_size: PageSize = 50,
) -> Response:
    return json_response(
        await run_blocking(scoring.analytics_service.failure_tag_sessions, tag, criteria_hash, page, page_size)
    )


@router.get(
    "/criteria",
    response_model=list[CriteriaUsage],
    responses=error_responses(422, 500, 503),
    summary="Stored criteria definitions with the sessions each has scored, the current one first",
)
async def criteria_in_use(scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.analytics_service.criteria_in_use))


@router.get(
    "/trends",
    response_model=TrendsReport,
    responses=error_responses(422, 500, 503),
    summary="Score statistics per day or week of scoring, optionally per agent or alert type",
)
async def trends(
    scoring: ContainerDep,
    criteria_hash: CriteriaScope,
    bucket: TrendBucket = TrendBucket.DAY,
    group_by: TrendGroup = TrendGroup.NONE,
    scored_after: Annotated[IsoDateTime | None, Query(description="Scored at or after (ISO 8601)")] = None,
    scored_before: Annotated[IsoDateTime | None, Query(description="Scored before (ISO 8601)")] = None,
) -> Response:
    return json_response(
        await run_blocking(scoring.trends_service.trends, criteria_hash, bucket, group_by, scored_after, scored_before)
    )


_HASH = r"^[0-9a-f]{64}$"


@router.get(
    "/criteria-comparison",
    response_model=CriteriaComparison,
    responses=error_responses(422, 500, 503),
    summary="How a candidate criteria scores the sessions a base criteria scored (latest completed under each)",
)
async def criteria_comparison(
    scoring: ContainerDep,
    base: Annotated[str, Query(pattern=_HASH, description="The criteria hash in use (64 lowercase hex digits)")],
    candidate: Annotated[str, Query(pattern=_HASH, description="The criteria hash to compare with it")],
    with_reference: Annotated[
        bool, Query(description="Only the sessions judged against a reference root cause under either criteria")
    ] = False,
) -> Response:
    return json_response(
        await run_blocking(scoring.trends_service.criteria_comparison, base, candidate, with_reference)
    )


@router.get(
    "/outcome",
    response_model=OutcomeReport,
    responses=error_responses(422, 500, 503),
    summary="Per agent and alert type, the share of sessions that found their reference root cause, and the mean "
    "score of found against missed sessions (latest completed score of each session)",
)
async def outcome(scoring: ContainerDep, criteria_hash: CriteriaScope) -> Response:
    return json_response(await run_blocking(scoring.analytics_service.outcome, criteria_hash))
