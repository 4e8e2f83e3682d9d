"""Scores of a session: request one (POST), the latest attempt, every attempt."""

from typing import Annotated

from fastapi import APIRouter, Body, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep, Requester
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX, SessionId
from functions.api.responses import json_response
from session_scoring.models.api import ScoreRequest, SessionScore, SessionScoring
from session_scoring.models.scores import ScoreStatus

router = APIRouter(prefix=API_PREFIX)


@router.post(
    "/sessions/{session_id}/score",
    response_model=SessionScore,
    status_code=202,
    responses={
        200: {"model": SessionScore, "description": "The latest completed score (no new attempt was queued)"},
        202: {
            "model": SessionScore,
            "description": "An attempt is queued or already running; poll the URL in the Location header",
        },
        **error_responses(400, 404, 409, 413, 422, 500, 502, 503),
    },
    summary="Request a score for a session",
)
async def score_session(
    session_id: SessionId,
    scoring: ContainerDep,
    requester: Requester,
    body: Annotated[ScoreRequest | None, Body()] = None,
) -> Response:
    score = await run_blocking(
        scoring.scoring_service.request_score,
        session_id,
        force_rescore=(body or ScoreRequest()).force_rescore,
        triggered_by=requester,
    )
    if score.status == ScoreStatus.COMPLETED:
        return json_response(score, status_code=200)
    return json_response(score, status_code=202, headers={"Location": f"{API_PREFIX}/sessions/{session_id}/score"})


@router.get(
    "/sessions/{session_id}/score",
    response_model=SessionScore,
    responses=error_responses(404, 422, 500, 503),
    summary="The latest scoring attempt of a session, whatever its status",
)
async def get_score(session_id: SessionId, scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.scoring_service.latest_score, session_id))


@router.get(
    "/sessions/{session_id}/scoring",
    response_model=SessionScoring,
    responses=error_responses(404, 422, 500, 503),
    summary="A session's scores for its page: the latest completed under the criteria in force, the latest attempt "
    "and every attempt (200 with nulls when never scored)",
)
async def session_scoring(session_id: SessionId, scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.scoring_service.session_scoring, session_id))


@router.get(
    "/sessions/{session_id}/scores",
    response_model=list[SessionScore],
    responses=error_responses(404, 422, 500, 503),
    summary="Every scoring attempt of a session, newest first",
)
async def list_scores(session_id: SessionId, scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.scoring_service.score_history, session_id))
