"""The training export: streamed JSON Lines (``GET /exports/training``) where no exports bucket is configured, else a
job written to S3 (``POST /exports/training``, then ``GET /exports/{export_id}`` for its presigned download URL)."""

from typing import Annotated
from uuid import UUID

from fastapi import APIRouter, Body, Query, Response
from fastapi.responses import StreamingResponse

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep, Requester
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX
from functions.api.responses import json_response, streamed_response
from session_scoring.models.api import ExportJob, TrainingExportJobRequest

router = APIRouter(prefix=f"{API_PREFIX}/exports")


@router.get(
    "/training",
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
async def training_export(
    scoring: ContainerDep,
    requested_by: Requester,
    min_score: Annotated[int, Query(ge=0, le=100)] = 85,
    criteria_hash: Annotated[str, Query(description="'current' (default), 'any', or a criteria hash")] = "current",
    format: Annotated[str, Query(description="openai-chat or normalized")] = "openai-chat",
) -> StreamingResponse:
    return streamed_response(
        await run_blocking(scoring.training_export.stream, min_score, criteria_hash, format, requested_by)
    )


@router.post(
    "/training",
    status_code=202,
    response_model=ExportJob,
    responses=error_responses(400, 405, 413, 422, 500, 503),
    summary="Training export as a job written to S3 (where an exports bucket is configured); poll the Location",
)
async def request_training_export(
    scoring: ContainerDep,
    requested_by: Requester,
    body: Annotated[TrainingExportJobRequest | None, Body()] = None,
) -> Response:
    request = body or TrainingExportJobRequest()
    job = await run_blocking(
        scoring.training_export.request, request.min_score, request.criteria_hash, request.format, requested_by
    )
    return json_response(job, status_code=202, headers={"Location": f"{API_PREFIX}/exports/{job.export_id}"})


@router.get(
    "/{export_id}",
    response_model=ExportJob,
    responses=error_responses(404, 422, 500, 503),
    summary="An export job; once completed, a presigned download URL and when it expires",
)
async def export_job(scoring: ContainerDep, export_id: UUID) -> Response:
    return json_response(await run_blocking(scoring.training_export.get, export_id))
