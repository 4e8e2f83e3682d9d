"""Insights across many scores: the fleet query (``GET /scores``, JSON pages or streamed CSV / JSON Lines) and the
training export: streamed JSON Lines (``GET /exports/training``) where no exports bucket is configured, else a job
written to S3 (``POST /exports/training``, then ``GET /exports/{export_id}`` for its presigned download URL).

Streamed answers are produced while they are sent (a server-side cursor feeds them). Behind API Gateway, Mangum
buffers the whole body and a Lambda response is capped at 6 MB: page with ``format=json`` (at most 500 rows a page)
or pass ``limit`` there; stream large results from a local API or the CLI.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated
from uuid import UUID

from fastapi import APIRouter, Body, Path, Query, Response
from fastapi.responses import StreamingResponse

from functions.api.deps import ContainerDep, Requester
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX, MAX_STREAMED_ROWS
from session_scoring.models.api import ExportJob, FleetScorePage, MissingToolSessionsPage, TrainingExportJobRequest

if TYPE_CHECKING:
    # Imported by the route when it runs: the insights service imports the repositories and SQLAlchemy, which
    # building the app does not need (cold init, issue 10).
    from session_scoring.services.insights import StreamedRows

router = APIRouter(prefix=API_PREFIX)

_STREAMED = {
    "content": {
        "text/csv": {"schema": {"type": "string"}},
        "application/x-ndjson": {"schema": {"type": "string"}},
    }
}


def _streamed(rows: StreamedRows) -> StreamingResponse:
    return StreamingResponse(
        rows.chunks,
        media_type=rows.media_type,
        headers={"Content-Disposition": f'attachment; filename="{rows.filename}"'},
    )


@router.get(
    "/scores",
    response_model=FleetScorePage,
    responses={200: _STREAMED, **error_responses(400, 422, 500, 503)},
    summary="The fleet query: scores filtered, sorted and paged (JSON), or streamed as CSV or JSON Lines",
)
def fleet_scores(
    scoring: ContainerDep,
    criteria_hash: Annotated[str, Query(description="'current' (default), 'any', or a criteria hash")] = "current",
    min_score: Annotated[int | None, Query(ge=0, le=100)] = None,
    max_score: Annotated[int | None, Query(ge=0, le=100)] = None,
    band: Annotated[str | None, Query(description="failed, weak, adequate, good or near_perfect")] = None,
    status: Annotated[str, Query(description="Attempt status; other than completed needs latest_only=false")] = (
        "completed"
    ),
    agent: str | None = None,
    alert_type: str | None = None,
    provider: Annotated[str | None, Query(description="The judge's provider (e.g. anthropic, heuristic)")] = None,
    scored_after: datetime | None = None,
    scored_before: datetime | None = None,
    session_started_after: datetime | None = None,
    session_started_before: datetime | None = None,
    latest_only: Annotated[
        bool, Query(description="Only each session's latest completed attempt under the criteria")
    ] = True,
    missing_tool: Annotated[str | None, Query(description="Attempts that name this tool missing")] = None,
    outcome: Annotated[
        str | None, Query(description="Attempts with this outcome: found, partly_found, missed or no_reference")
    ] = None,
    sort: Annotated[str, Query(description="total_score, a dimension, scored_at or session_started_at")] = "scored_at",
    order: Annotated[str, Query(description="asc or desc")] = "desc",
    cursor: Annotated[str | None, Query(description="next_cursor of the previous page")] = None,
    limit: Annotated[
        int | None,
        Query(
            ge=1,
            le=MAX_STREAMED_ROWS,
            description="Rows (json: 50 by default, at most 500; csv/jsonl: all by default, at most "
            f"{MAX_STREAMED_ROWS:,})",
        ),
    ] = None,
    format: Annotated[str, Query(description="json, csv or jsonl")] = "json",
) -> FleetScorePage | StreamingResponse:
    from session_scoring.services.insights import FleetParams, StreamedRows

    answer = scoring.insights_service.fleet(
        FleetParams(
            criteria_hash=criteria_hash,
            min_score=min_score,
            max_score=max_score,
            band=band,
            status=status,
            agent=agent,
            alert_type=alert_type,
            provider=provider,
            scored_after=scored_after,
            scored_before=scored_before,
            session_started_after=session_started_after,
            session_started_before=session_started_before,
            latest_only=latest_only,
            missing_tool=missing_tool,
            outcome=outcome,
            sort=sort,
            order=order,
            cursor=cursor,
            limit=limit,
            format=format,
        )
    )
    return _streamed(answer) if isinstance(answer, StreamedRows) else answer


@router.get(
    "/exports/training",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "One JSON line per session: score, breakdown, criteria hash, session id, and the "
            "conversation (openai-chat) or the normalised session (normalized)",
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        },
        **error_responses(400, 405, 422, 500, 503),
    },
    summary="Training export: sessions scoring at least min_score, streamed as JSON Lines (where no exports bucket "
    "is configured; else 405: POST it as a job)",
)
def training_export(
    scoring: ContainerDep,
    min_score: Annotated[int, Query(ge=0, le=100)] = 85,
    criteria_hash: Annotated[str, Query(description="'current' (default), 'any', or a criteria hash")] = "current",
    format: Annotated[str, Query(description="openai-chat or normalized")] = "openai-chat",
) -> StreamingResponse:
    return _streamed(scoring.training_export.stream(min_score, criteria_hash, format))


@router.post(
    "/exports/training",
    status_code=202,
    response_model=ExportJob,
    responses=error_responses(400, 405, 422, 500, 503),
    summary="Training export as a job written to S3 (where an exports bucket is configured); poll the Location",
)
def request_training_export(
    scoring: ContainerDep,
    requested_by: Requester,
    response: Response,
    body: Annotated[TrainingExportJobRequest | None, Body()] = None,
) -> ExportJob:
    request = body or TrainingExportJobRequest()
    job = scoring.export_jobs.request(request.min_score, request.criteria_hash, request.format, requested_by)
    response.headers["Location"] = f"{API_PREFIX}/exports/{job.export_id}"
    return job


@router.get(
    "/exports/{export_id}",
    response_model=ExportJob,
    responses=error_responses(404, 422, 500, 503),
    summary="An export job; once completed, a presigned download URL and when it expires",
)
def export_job(scoring: ContainerDep, export_id: UUID) -> ExportJob:
    return scoring.export_jobs.get(export_id)


@router.get(
    "/analytics/missing-tools/{tool_name}/sessions",
    response_model=MissingToolSessionsPage,
    responses=error_responses(400, 422, 500, 503),
    summary="Sessions whose latest completed score names a tool missing (any spelling of it), with the rationale",
)
def missing_tool_sessions(
    scoring: ContainerDep,
    tool_name: Annotated[str, Path(min_length=1, max_length=255)],
    criteria_hash: Annotated[str, Query(description="'current' (default), 'any', or a criteria hash")] = "current",
    cursor: Annotated[str | None, Query(description="next_cursor of the previous page")] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> MissingToolSessionsPage:
    return scoring.insights_service.tool_sessions(tool_name, criteria_hash, cursor, limit)
