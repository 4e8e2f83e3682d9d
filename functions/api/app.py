"""The request Lambda: the scoring REST API (FastAPI), served through Mangum behind API Gateway.

Routes parse input, call one service function and shape the output. Errors from the core are mapped to HTTP
status codes in ``STATUS_BY_ERROR``, the one place that does it.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Body, FastAPI, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from mangum import Mangum
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Receive, Scope, Send

from functions.api.dashboard import mount_dashboard
from functions.api.limits import BodyLimit
from functions.api.routers import imports
from session_scoring import __version__
from session_scoring.container import Container, get_container
from session_scoring.errors import (
    ConfigurationError,
    DatabaseUnavailableError,
    InvalidRequestError,
    QueueUnavailableError,
    ScoreNotFoundError,
    ScoringDisabledError,
    ScoringError,
    SecretUnavailableError,
    SessionDataError,
    SessionNotFoundError,
    SessionNotScorableError,
    SourceUnavailableError,
)
from session_scoring.log import logger
from session_scoring.models.api import (
    SESSION_ID_PATTERN,
    CriteriaDefinition,
    CriteriaUsage,
    ErrorBody,
    Health,
    MissingToolsReport,
    ScoreDistribution,
    ScoreRequest,
    ScoreStatus,
    SessionDetail,
    SessionListPage,
    SessionScore,
)
from session_scoring.models.session import SessionStatus

API_PREFIX = "/api/v1/scoring"
MAX_BODY_BYTES = 4096
DEFAULT_REQUESTER = "api-client"

STATUS_BY_ERROR: list[tuple[type[ScoringError], int, str]] = [
    (InvalidRequestError, 400, "invalid_request"),
    (SessionNotScorableError, 400, "session_not_scorable"),
    (SessionNotFoundError, 404, "session_not_found"),
    (ScoreNotFoundError, 404, "score_not_found"),
    (SessionDataError, 502, "session_data_invalid"),
    (ScoringDisabledError, 503, "scoring_disabled"),
    (QueueUnavailableError, 503, "queue_unavailable"),
    (SourceUnavailableError, 503, "source_unavailable"),
    (DatabaseUnavailableError, 503, "database_unavailable"),
    (SecretUnavailableError, 503, "secret_unavailable"),
    (ConfigurationError, 500, "configuration_error"),
]


def _error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    descriptions = {
        400: "Session not completed, or an invalid request",
        404: "Session unknown to the source, or never scored",
        413: "Request body too large",
        422: "Invalid session id, unknown field or malformed body",
        500: "Service misconfigured",
        502: "The session source returned data that cannot be parsed",
        503: "Scoring disabled, or the queue, session source or database unavailable",
    }
    return {status: {"model": ErrorBody, "description": descriptions[status]} for status in statuses}


SessionId = Annotated[
    str,
    Path(
        pattern=SESSION_ID_PATTERN,
        max_length=128,
        description="The session's id at its source (letters, digits, '.', '_', ':', '-'; at most 128)",
    ),
]

CriteriaHashFilter = Annotated[
    str | None,
    Query(
        pattern=r"^[0-9a-f]{64}$",
        description="Count only scores made with this criteria hash (64 lowercase hex digits); all when absent",
    ),
]


def container() -> Container:
    return get_container()


def body_limit(path: str) -> int:
    """Largest request body per route: the import limit for uploads, MAX_BODY_BYTES for everything else."""
    return container().settings.import_max_bytes if path == imports.IMPORT_PATH else MAX_BODY_BYTES


def requester(request: Request) -> str:
    """Who asked: the JWT authorizer's claims, else a trusted proxy's header, else ``api-client``.

    ``X-Forwarded-User``/``X-Forwarded-Email`` are honoured only when SCORING_TRUST_FORWARDED_USER says a proxy in
    front (oauth2-proxy) sets them; otherwise any client could choose its identity.
    """
    event = request.scope.get("aws.event") or {}
    claims = (((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt") or {}).get("claims") or {}
    for claim in ("email", "sub"):
        if claims.get(claim):
            return str(claims[claim])[:255]
    if container().settings.trust_forwarded_user:
        for header in ("x-forwarded-user", "x-forwarded-email"):
            value = request.headers.get(header, "").strip()
            if value:
                return value[:255]
    return DEFAULT_REQUESTER


class ConfiguredCORS:
    """CORS for the origins in SCORING_CORS_ORIGINS (comma-separated; none: no CORS headers at all).

    Settings are read on the first request, never at import; the middleware is rebuilt only if they change. Behind
    API Gateway the HTTP API's own CORS configuration answers browsers first (template.yaml sets both from the same
    parameter), so this matters for the local run and any deployment without API Gateway.
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._origins: str | None = None
        self._inner: ASGIApp = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        origins = container().settings.cors_origins
        if origins != self._origins:
            allowed = [origin.strip() for origin in origins.split(",") if origin.strip()]
            self._inner = (
                CORSMiddleware(
                    self._app,
                    allow_origins=allowed,
                    allow_methods=["GET", "POST", "OPTIONS"],
                    allow_headers=["authorization", "content-type"],
                    expose_headers=["location"],
                    max_age=600,
                )
                if allowed
                else self._app
            )
            self._origins = origins
        await self._inner(scope, receive, send)


def create_app() -> FastAPI:
    app = FastAPI(
        title="Session Scoring API",
        version=__version__,
        description="Scores completed TARSy investigations with a judge LLM. Scoring is asynchronous: POST queues "
        "an attempt (202) and GET polls it until it is completed or failed.",
    )

    app.add_middleware(BodyLimit, limit_for=body_limit)
    app.add_middleware(ConfiguredCORS)

    @app.exception_handler(ScoringError)
    async def scoring_error(request: Request, exc: ScoringError) -> JSONResponse:
        for error_type, status, code in STATUS_BY_ERROR:
            if isinstance(exc, error_type):
                if status >= 500:
                    logger.error("request failed", extra={"code": code, "error": exc.message, "path": request.url.path})
                return JSONResponse(status_code=status, content={"code": code, "detail": exc.message})
        logger.exception("unmapped scoring error")
        return JSONResponse(status_code=500, content={"code": "internal_error", "detail": exc.message})

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        """Errors raised by the framework itself (unparseable body, unknown path, wrong method), in our error shape."""
        codes = {400: "malformed_body", 404: "not_found", 405: "method_not_allowed"}
        detail = str(exc.detail)
        if exc.status_code == 400:
            detail = f'{detail}: send JSON such as {{"force_rescore": true}}, or no body'
        return JSONResponse(
            status_code=exc.status_code,
            content={"code": codes.get(exc.status_code, "http_error"), "detail": detail},
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [
            {"loc": list(err.get("loc", ())), "msg": err.get("msg", ""), "type": err.get("type", "")}
            for err in exc.errors()
        ]
        return JSONResponse(status_code=422, content={"code": "validation_error", "detail": problems})

    @app.post(
        f"{API_PREFIX}/sessions/{{session_id}}/score",
        response_model=SessionScore,
        status_code=202,
        responses={
            200: {"model": SessionScore, "description": "The latest completed score (no new attempt was queued)"},
            202: {
                "model": SessionScore,
                "description": "An attempt is queued or already running; poll the URL in the Location header",
            },
            **_error_responses(400, 404, 413, 422, 500, 502, 503),
        },
        summary="Request a score for a session",
    )
    def score_session(
        session_id: SessionId,
        request: Request,
        response: Response,
        body: Annotated[ScoreRequest | None, Body()] = None,
    ) -> SessionScore:
        score = container().scoring_service.request_score(
            session_id, force_rescore=(body or ScoreRequest()).force_rescore, triggered_by=requester(request)
        )
        if score.status == ScoreStatus.COMPLETED:
            response.status_code = 200
        else:
            response.headers["Location"] = f"{API_PREFIX}/sessions/{session_id}/score"
        return score

    @app.get(
        f"{API_PREFIX}/sessions/{{session_id}}/score",
        response_model=SessionScore,
        responses=_error_responses(404, 422, 500, 503),
        summary="The latest scoring attempt of a session, whatever its status",
    )
    def get_score(session_id: SessionId) -> SessionScore:
        return container().scoring_service.latest_score(session_id)

    @app.get(
        f"{API_PREFIX}/sessions/{{session_id}}/scores",
        response_model=list[SessionScore],
        responses=_error_responses(404, 422, 500, 503),
        summary="Every scoring attempt of a session, newest first",
    )
    def list_scores(session_id: SessionId) -> list[SessionScore]:
        return container().scoring_service.score_history(session_id)

    @app.get(
        f"{API_PREFIX}/sessions",
        response_model=SessionListPage,
        responses=_error_responses(422, 500, 502, 503),
        summary="Sessions known to the source, with their latest scoring attempt",
    )
    def list_sessions(
        page: Annotated[int, Query(ge=1, le=100_000)] = 1,
        page_size: Annotated[int, Query(ge=1, le=100)] = 20,
        status: Annotated[
            list[SessionStatus] | None,
            Query(description="Only sessions with one of these statuses at the source (repeatable)"),
        ] = None,
    ) -> SessionListPage:
        return container().scoring_service.list_sessions(page, page_size, [s.value for s in status or []])

    @app.get(
        f"{API_PREFIX}/criteria/current",
        response_model=CriteriaDefinition,
        responses=_error_responses(500, 503),
        summary="The judging criteria in force and their hash",
    )
    def current_criteria() -> CriteriaDefinition:
        return container().scoring_service.current_criteria()

    @app.get(
        f"{API_PREFIX}/sessions/{{session_id}}",
        response_model=SessionDetail,
        responses=_error_responses(404, 422, 500, 502, 503),
        summary="One session as its source has it: the alert, each stage's steps and tool calls, the final analysis",
    )
    def get_session(session_id: SessionId) -> SessionDetail:
        return container().session_view_service.session_detail(session_id)

    @app.get(
        f"{API_PREFIX}/analytics/score-distribution",
        response_model=ScoreDistribution,
        responses=_error_responses(422, 500, 503),
        summary="Sessions per score band (latest completed score of each session)",
    )
    def score_distribution(criteria_hash: CriteriaHashFilter = None) -> ScoreDistribution:
        return container().analytics_service.score_distribution(criteria_hash)

    @app.get(
        f"{API_PREFIX}/analytics/missing-tools",
        response_model=MissingToolsReport,
        responses=_error_responses(422, 500, 503),
        summary="The tools judged missing most often (latest completed score of each session)",
    )
    def missing_tools(
        criteria_hash: CriteriaHashFilter = None, limit: Annotated[int, Query(ge=1, le=100)] = 10
    ) -> MissingToolsReport:
        return container().analytics_service.missing_tools(criteria_hash, limit)

    @app.get(
        f"{API_PREFIX}/analytics/criteria",
        response_model=list[CriteriaUsage],
        responses=_error_responses(500, 503),
        summary="Stored criteria definitions with the sessions each has scored, the current one first",
    )
    def criteria_in_use() -> list[CriteriaUsage]:
        return container().analytics_service.criteria_in_use()

    @app.get(
        "/health", response_model=Health, responses=_error_responses(500, 503), summary="Liveness and database check"
    )
    def health() -> Health:
        return container().scoring_service.health()

    app.include_router(imports.router)
    mount_dashboard(app)
    return app


app = create_app()
handler = Mangum(app, lifespan="off")
