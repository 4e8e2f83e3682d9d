"""Sessions as their source has them: the list (with each latest attempt) and one session in detail."""

from typing import Annotated

from fastapi import APIRouter, Query, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX, SessionId
from functions.api.responses import json_response
from session_scoring.models.api import SessionDetail, SessionListPage
from session_scoring.models.session import SessionStatus

router = APIRouter(prefix=API_PREFIX)


@router.get(
    "/sessions",
    response_model=SessionListPage,
    responses=error_responses(422, 500, 502, 503),
    summary="Sessions known to the source, with their latest scoring attempt",
)
async def list_sessions(
    scoring: ContainerDep,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    page_size: Annotated[int, Query(ge=1, le=100)] = 20,
    status: Annotated[
        list[SessionStatus] | None,
        Query(description="Only sessions with one of these statuses at the source (repeatable)"),
    ] = None,
) -> Response:
    statuses = [s.value for s in status or []]
    return json_response(await run_blocking(scoring.scoring_service.list_sessions, page, page_size, statuses))


@router.get(
    "/sessions/{session_id}",
    response_model=SessionDetail,
    responses=error_responses(404, 422, 500, 502, 503),
    summary="One session as its source has it: the alert, each stage's steps and tool calls, the final analysis",
)
async def get_session(session_id: SessionId, scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.session_view_service.session_detail, session_id))
