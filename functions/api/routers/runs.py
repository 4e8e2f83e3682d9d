"""Scoring runs: create one (or estimate it with a dry run), list them, read one, cancel one."""

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Query, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep, Requester
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX, Page, PageSize
from functions.api.responses import json_response
from session_scoring.models.runs import DryRunResult, RunPage, RunRequest, RunSessionPage, RunSummary, ScoringRun
from session_scoring.models.scores import ScoreStatus

router = APIRouter(prefix=API_PREFIX)


@router.post(
    "/runs",
    response_model=ScoringRun | DryRunResult,
    status_code=202,
    responses={
        200: {"model": DryRunResult, "description": "dry_run: what the run would select and cost; nothing stored"},
        202: {"model": ScoringRun, "description": "The run, planning; poll the URL in the Location header"},
        **error_responses(400, 413, 422, 500, 502, 503),
    },
    summary="Start a scoring run (or estimate one with dry_run)",
)
async def create_run(request: RunRequest, scoring: ContainerDep, requester: Requester) -> Response:
    if request.dry_run:
        return json_response(await run_blocking(scoring.run_service.dry_run, request))
    run = await run_blocking(scoring.run_service.create, request, started_by=requester)
    return json_response(run, status_code=202, headers={"Location": f"{API_PREFIX}/runs/{run.run_id}"})


@router.get(
    "/runs",
    response_model=RunPage,
    responses=error_responses(422, 500, 503),
    summary="Scoring runs, newest first",
)
async def list_runs(scoring: ContainerDep, page: Page = 1, page_size: PageSize = 20) -> Response:
    return json_response(await run_blocking(scoring.run_service.list_runs, page, page_size))


@router.get(
    "/runs/{run_id}",
    response_model=ScoringRun,
    responses=error_responses(404, 422, 500, 503),
    summary="One scoring run: its status, counts by attempt status, usage, cost and ETA",
)
async def get_run(run_id: UUID, scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.run_service.get, run_id))


@router.get(
    "/runs/{run_id}/sessions",
    response_model=RunSessionPage,
    responses=error_responses(404, 422, 500, 503),
    summary="A run's attempts by session id: status, score, band and error of each",
)
async def list_run_sessions(
    run_id: UUID,
    scoring: ContainerDep,
    page: Page = 1,
    page_size: PageSize = 20,
    status: Annotated[ScoreStatus | None, Query(description="Only attempts with this status")] = None,
) -> Response:
    return json_response(await run_blocking(scoring.run_service.list_sessions, run_id, page, page_size, status))


@router.get(
    "/runs/{run_id}/summary",
    response_model=RunSummary,
    responses=error_responses(404, 422, 500, 503),
    summary="A run's completed scores by band, and how they moved against each session's previous score",
)
async def run_summary(run_id: UUID, scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.run_service.summary, run_id))


@router.post(
    "/runs/{run_id}/cancel",
    response_model=ScoringRun,
    responses=error_responses(400, 404, 422, 500, 503),
    summary="Cancel a run: attempts not yet claimed end cancelled and their jobs never reach the judge",
)
async def cancel_run(run_id: UUID, scoring: ContainerDep, requester: Requester) -> Response:
    return json_response(await run_blocking(scoring.run_service.cancel, run_id, cancelled_by=requester))
