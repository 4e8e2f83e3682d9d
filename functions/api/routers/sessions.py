"""Sessions: the list (the source's, or only the scored or unscored ones, with each latest attempt) and one session in
detail."""

from typing import Annotated

from fastapi import APIRouter, Query, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX, MAX_PAGE, PageSize, SessionId
from functions.api.responses import json_bytes_response, json_response
from session_scoring.models.api import SessionDetail, SessionListPage, SessionSearchResult, SessionStepsPage
from session_scoring.models.request import IsoDateTime
from session_scoring.models.session import SessionStatus
from session_scoring.models.session_list import SessionListParams

router = APIRouter(prefix=API_PREFIX)


@router.get(
    "/sessions",
    response_model=SessionListPage,
    responses=error_responses(422, 500, 502, 503),
    summary="Sessions known to the source with their latest attempt; or only the scored (by band, by score) or "
    "the unscored ones",
)
async def list_sessions(
    scoring: ContainerDep,
    page: Annotated[
        int, Query(ge=1, le=MAX_PAGE, description="Page number (not with scored=unscored: use cursor)")
    ] = 1,
    page_size: PageSize = 20,
    status: Annotated[
        list[SessionStatus] | None,
        Query(description="Only sessions with one of these statuses at the source (repeatable; source lists only)"),
    ] = None,
    scored: Annotated[
        str,
        Query(
            description="any (default), scored (a completed score, read from the scores alone) or unscored (the "
            "source's list minus the scored: a bounded scan, continued with next_cursor)"
        ),
    ] = "any",
    band: Annotated[
        list[str] | None,
        Query(
            description="Only scores in these bands (repeatable; implies scored): failed, weak, adequate, good, "
            "near_perfect"
        ),
    ] = None,
    criteria: Annotated[
        str,
        Query(description="any (default): a score under any criteria counts; current: only under the current criteria"),
    ] = "any",
    sort: Annotated[
        str,
        Query(
            description="source (default: the source's order; newest score first for scored lists), score_desc or "
            "score_asc (imply scored)"
        ),
    ] = "source",
    cursor: Annotated[
        str | None,
        Query(description="scored=unscored, or a source list in a start range: the next_cursor of the previous page"),
    ] = None,
    started_after: Annotated[
        IsoDateTime | None,
        Query(
            description="Only sessions that started at or after this instant (ISO 8601; without a zone, UTC). A "
            "scored list filters in the scores; a source or unscored list is a bounded scan continued with next_cursor"
        ),
    ] = None,
    started_before: Annotated[
        IsoDateTime | None, Query(description="Only sessions that started before this instant (ISO 8601, exclusive)")
    ] = None,
) -> Response:
    params = SessionListParams(
        page=page,
        page_size=page_size,
        statuses=tuple(s.value for s in status or []),
        scored=scored,
        bands=tuple(band or []),
        criteria=criteria,
        sort=sort,
        cursor=cursor,
        started_after=started_after,
        started_before=started_before,
    )
    return json_response(await run_blocking(scoring.session_list_service.list_sessions, params))


@router.get(
    "/search",
    response_model=SessionSearchResult,
    responses=error_responses(422, 500, 503),
    summary="Sessions whose id, agent or alert type contains the text (any case): uploads and scored sessions, "
    "best match first",
)
async def search_sessions(
    scoring: ContainerDep,
    q: Annotated[
        str,
        Query(
            min_length=2,
            max_length=128,
            description="A piece of a session id, an agent or an alert",
        ),
    ],
    limit: Annotated[int, Query(ge=1, le=50)] = 10,
) -> Response:
    return json_response(await run_blocking(scoring.search_service.search, q, limit))


@router.get(
    "/sessions/{session_id}",
    response_model=SessionDetail,
    responses=error_responses(404, 422, 500, 502, 503),
    summary="One session as its source has it: the alert, each stage's steps and tool calls, the final analysis",
)
async def get_session(session_id: SessionId, scoring: ContainerDep) -> Response:
    return json_bytes_response(await run_blocking(scoring.session_view_service.session_detail_json, session_id))


@router.get(
    "/sessions/{session_id}/steps",
    response_model=SessionStepsPage,
    responses=error_responses(404, 422, 500, 502, 503),
    summary="A page of a session's steps, across its stages in order: the ones after the first page "
    "GET /sessions/{session_id} shows",
)
async def get_session_steps(
    session_id: SessionId,
    scoring: ContainerDep,
    offset: Annotated[int, Query(ge=0, le=10_000_000, description="The first step's position (from 0)")] = 0,
    limit: Annotated[int, Query(ge=1, le=500, description="At most this many steps (and at most 512 KiB)")] = 500,
) -> Response:
    return json_bytes_response(
        await run_blocking(scoring.session_view_service.session_steps_json, session_id, offset, limit)
    )
