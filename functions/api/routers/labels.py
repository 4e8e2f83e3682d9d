"""Human labels of a session (PUT: the caller's label, a new revision each time; GET: every labeller's), the
session's reference root cause (PUT: set it, DELETE: withdraw it; a new revision each time) and the judge's agreement
with the labels."""

from typing import Annotated

from fastapi import APIRouter, Query, Response

from functions.api.blocking import run_blocking
from functions.api.deps import ContainerDep, Requester
from functions.api.errors import error_responses
from functions.api.params import API_PREFIX, SessionId
from functions.api.responses import json_response
from session_scoring.models.ids import SESSION_ID_PATTERN
from session_scoring.models.quality import (
    AgreementReport,
    LabelQueue,
    LabelRequest,
    ReferenceRequest,
    SessionLabel,
    SessionLabels,
    SessionReference,
)

router = APIRouter(prefix=API_PREFIX)


@router.put(
    "/sessions/{session_id}/labels",
    response_model=SessionLabel,
    responses=error_responses(400, 404, 413, 422, 500, 503),
    summary="Store the caller's human label of a session (a revision of their earlier one; every revision is kept); "
    "404 for a session that exists nowhere",
)
async def put_label(session_id: SessionId, body: LabelRequest, scoring: ContainerDep, requester: Requester) -> Response:
    return json_response(await run_blocking(scoring.label_service.put_label, session_id, requester, body))


@router.get(
    "/sessions/{session_id}/labels",
    response_model=SessionLabels,
    responses=error_responses(404, 422, 500, 503),
    summary="Every labeller's current label of a session, and every revision",
)
async def get_labels(session_id: SessionId, scoring: ContainerDep) -> Response:
    return json_response(await run_blocking(scoring.label_service.labels, session_id))


@router.put(
    "/sessions/{session_id}/labels/reference",
    response_model=SessionReference,
    responses=error_responses(400, 404, 413, 422, 500, 503),
    summary="Set the session's reference root cause (a new revision; every revision is kept with who set it): the "
    "judges compare the conclusion with it; 404 for a session that exists nowhere",
)
async def put_reference(
    session_id: SessionId, body: ReferenceRequest, scoring: ContainerDep, requester: Requester
) -> Response:
    return json_response(await run_blocking(scoring.label_service.put_reference, session_id, requester, body))


@router.delete(
    "/sessions/{session_id}/labels/reference",
    response_model=SessionLabels,
    responses=error_responses(404, 422, 500, 503),
    summary="Withdraw the session's reference root cause (kept as a revision); answers the session's labels",
)
async def withdraw_reference(session_id: SessionId, scoring: ContainerDep, requester: Requester) -> Response:
    return json_response(await run_blocking(scoring.label_service.withdraw_reference, session_id, requester))


@router.get(
    "/labels/next",
    response_model=LabelQueue,
    responses=error_responses(422, 500, 503),
    summary="The caller's labelling queue: the next session scored under the current criteria that they have not "
    "labelled, and how many are left",
)
async def next_to_label(
    scoring: ContainerDep,
    requester: Requester,
    after: Annotated[
        str | None,
        Query(
            pattern=SESSION_ID_PATTERN,
            max_length=128,
            description="Start after this session id (the one just labelled or skipped); from the first when absent",
        ),
    ] = None,
) -> Response:
    criteria = scoring.scoring_service.criteria_hash
    return json_response(await run_blocking(scoring.label_service.next_to_label, requester, criteria, after))


@router.get(
    "/analytics/agreement",
    response_model=AgreementReport,
    responses=error_responses(422, 500, 503),
    summary="How the judge agrees with human labels under one criteria hash",
)
async def agreement(
    scoring: ContainerDep,
    criteria_hash: Annotated[
        str | None,
        Query(
            pattern=r"^[0-9a-f]{64}$",
            description="The criteria hash whose scores are compared (64 lowercase hex digits); the current one "
            "when absent",
        ),
    ] = None,
    with_reference: Annotated[
        bool, Query(description="Only the sessions whose latest score was judged against a reference root cause")
    ] = False,
) -> Response:
    criteria = criteria_hash or scoring.scoring_service.criteria_hash
    return json_response(await run_blocking(scoring.agreement_service.agreement, criteria, with_reference))
