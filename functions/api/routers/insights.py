"""The fleet query across many scores (``GET /scores``): JSON pages, or every matching row streamed as CSV or JSON
Lines.

Streamed answers are produced while they are sent (a server-side cursor feeds them). Behind API Gateway, Mangum
buffers the whole body and a Lambda response is capped at 6 MB: page with ``format=json`` (at most 500 rows a page)
or pass ``limit`` there; stream large results from a local API or the CLI.
"""

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX
from functions.api.responses import json_response, streamed_response
from session_scoring.models.api import FilterValues, FleetScorePage
from session_scoring.models.insights import FleetParams

router = APIRouter(prefix=API_PREFIX)

_STREAMED = {
    "content": {
        "text/csv": {"schema": {"type": "string"}},
        "application/x-ndjson": {"schema": {"type": "string"}},
    }
}


@router.get(
    "/scores",
    response_model=FleetScorePage,
    responses={200: _STREAMED, **error_responses(400, 422, 500, 503)},
    summary="The fleet query: scores filtered, sorted and paged (JSON), or streamed as CSV or JSON Lines",
)
async def fleet_scores(scoring: ContainerDep, params: Annotated[FleetParams, Query()]) -> Response:
    answer = await run_blocking(scoring.insights_service.fleet, params)
    return json_response(answer) if isinstance(answer, FleetScorePage) else streamed_response(answer)


@router.get(
    "/scores/values",
    response_model=FilterValues,
    responses=error_responses(400, 422, 500, 503),
    summary="The values a text filter of the fleet query can take (agents, alert types, missing tools), each with "
    "its sessions, the most frequent first",
)
async def fleet_filter_values(
    scoring: ContainerDep,
    field: Annotated[Literal["agent", "alert_type", "missing_tool"], Query(description="The filter")],
    criteria_hash: Annotated[str, Query(description="'current' (default), 'any', or a criteria hash")] = "current",
    limit: Annotated[int, Query(ge=1, le=500)] = 200,
) -> Response:
    return json_response(await run_blocking(scoring.facet_service.values, field, criteria_hash, limit))
