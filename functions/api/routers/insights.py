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
from functions.api.params import API_PREFIX, MAX_STREAMED_ROWS
from functions.api.responses import json_response, streamed_response
from session_scoring.models.api import FilterValues, FleetScorePage
from session_scoring.models.ids import SESSION_ID_PATTERN
from session_scoring.models.request import IsoDateTime

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
async def fleet_scores(
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
    scored_after: IsoDateTime | None = None,
    scored_before: IsoDateTime | None = None,
    session_started_after: IsoDateTime | None = None,
    session_started_before: IsoDateTime | None = None,
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
    session_id: Annotated[
        str | None, Query(max_length=128, pattern=SESSION_ID_PATTERN, description="Only this session's attempts")
    ] = None,
    compared_to: Annotated[
        str | None,
        Query(
            description="With compared_band: only sessions whose latest completed score under this criteria "
            "('current' or a hash) is in compared_band (a cell of the criteria comparison)"
        ),
    ] = None,
    compared_band: Annotated[str | None, Query(description="The band under compared_to")] = None,
    with_total: Annotated[bool, Query(description="Also count the rows matching the filters (format json)")] = False,
) -> Response:
    # Imported here, not with the router: the service module imports the repositories and SQLAlchemy.
    from session_scoring.services.insights import FleetParams, StreamedRows

    answer = await run_blocking(
        scoring.insights_service.fleet,
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
            session_id=session_id,
            compared_to=compared_to,
            compared_band=compared_band,
            with_total=with_total,
        ),
    )
    return streamed_response(answer) if isinstance(answer, StreamedRows) else json_response(answer)


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
