"""Errors as HTTP answers: the one place that maps the core's errors to a status code and a stable ``code``.

The mapping follows the error's category (``session_scoring/errors.py``): a ``TransientError`` is 503 (retry
later), a ``PermanentError`` is 500, unless its class needs its own status in ``STATUS_BY_CLASS`` (the caller's
mistakes are 4xx, unparseable source data is 502). The ``code`` is the class name in snake case without ``Error``
(``QueueUnavailableError`` -> ``queue_unavailable``) unless the table names another. Framework errors (unknown path,
malformed body, validation) are answered in the same ``{"code", "detail"}`` shape.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.models import Schema
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from session_scoring.errors import (
    AttemptConflictError,
    AuthenticationRequiredError,
    ConfigurationError,
    CriteriaNotFoundError,
    ExportModeError,
    ExportNotFoundError,
    InvalidParametersError,
    InvalidRequestError,
    PermanentError,
    RoleRequiredError,
    RunNotFoundError,
    ScoreNotFoundError,
    ScoringDisabledError,
    ScoringError,
    SessionDataError,
    SessionNotFoundError,
    SessionNotScorableError,
    TransientError,
)

STATUS_BY_CLASS: dict[type[ScoringError], tuple[int, str | None]] = {
    InvalidRequestError: (400, None),
    InvalidParametersError: (422, "invalid_parameters"),
    AuthenticationRequiredError: (401, None),
    RoleRequiredError: (403, None),
    SessionNotScorableError: (400, None),
    AttemptConflictError: (409, None),
    SessionNotFoundError: (404, None),
    ScoreNotFoundError: (404, None),
    RunNotFoundError: (404, None),
    CriteriaNotFoundError: (404, None),
    ExportNotFoundError: (404, None),
    ExportModeError: (405, None),
    SessionDataError: (502, "session_data_invalid"),
    ConfigurationError: (500, "configuration_error"),
    TransientError: (503, None),
    PermanentError: (500, None),
}
"""The status of each category, and of the few classes whose status differs from their category's (or whose code is
not derived from their name): an error's most specific class listed here decides."""

UNMAPPED = (500, "internal_error")

RETRY_AFTER_SECONDS = 5
"""The ``Retry-After`` of a 503 for something unavailable right now (not sent while scoring is switched off)."""

ERROR_DESCRIPTIONS = {
    400: "Session not completed, or an invalid request",
    401: "Authentication is required (SCORING_REQUIRE_AUTH) and the request carried no identity: no token claims, "
    "nor a trusted proxy's user",
    403: "The caller lacks the role this route needs; the detail names the role and where the caller's roles come from",
    404: "Session unknown to the source, never scored, or no such export job",
    409: "The session's active attempt kept changing under the request (concurrent requests and scorers): GET the "
    "score, or send the request again",
    405: "This deployment serves the export the other way (streamed locally, an S3 job in AWS): see the Allow header",
    413: "Request body too large",
    422: "Invalid session id, unknown field, malformed body, query parameters that cannot be combined, or a label "
    "breakdown that does not fit the rubric in force",
    500: "Service misconfigured",
    502: "The session source returned data that cannot be parsed",
    503: "Scoring disabled, or the queue, session source or database unavailable (Retry-After: seconds to wait)",
}

_FRAMEWORK_CODES = {400: "malformed_body", 404: "not_found", 405: "method_not_allowed"}

_INTERNAL_ADDRESS = re.compile(
    r"\b[a-z][a-z0-9+.-]*://[^\s'\"<>]+"  # a URL (TARSy's, a trace store's, the database's)
    r"|\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b"  # an IPv4 address, with its port
    r"|\[[0-9a-fA-F:]*:[0-9a-fA-F:]*\](?::\d+)?"  # a bracketed IPv6 address
    r"|\blocalhost(?::\d+)?\b",
    re.IGNORECASE,
)
WITHHELD = "[internal address withheld; see the service log]"


def public_detail(message: str) -> str:
    """``message`` as a caller may read it: internal addresses (URLs, IP addresses, ``localhost``) replaced. The
    errors name no exception class or host of their own (``db/calls.py``, ``infrastructure/json_http.py`` log them);
    this is the one guard of every answer against a message that still would."""
    return _INTERNAL_ADDRESS.sub(WITHHELD, message)


def error_answer(status: int, code: str, detail: object, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """An answer in the API's error shape, ``{"code", "detail"}``."""
    return JSONResponse(status_code=status, content={"code": code, "detail": detail}, headers=headers)


def error_code(error_type: type[ScoringError]) -> str:
    """``QueueUnavailableError`` -> ``queue_unavailable``."""
    name = error_type.__name__.removesuffix("Error")
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def status_and_code(error: ScoringError) -> tuple[int, str]:
    """The HTTP status and ``code`` for an error: its class's own entry, else its category's status."""
    for error_type in type(error).__mro__:
        if error_type in STATUS_BY_CLASS:
            status, code = STATUS_BY_CLASS[error_type]
            return status, code or error_code(type(error))
    return UNMAPPED


def error_response(description: str) -> dict[str, Any]:
    """OpenAPI documentation of one error status, by reference to ``ErrorBody``'s schema (:func:`document_error_body`
    adds it): ``{"model": ErrorBody}`` would make FastAPI build a ``TypeAdapter`` per route, slowing the cold init."""
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
    }


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI documentation of a route's error statuses, all in the ``ErrorBody`` shape."""
    return {status: error_response(ERROR_DESCRIPTIONS[status]) for status in statuses}


def document_error_body(document: dict[str, Any]) -> dict[str, Any]:
    """Add ``ErrorBody``'s schema to an OpenAPI document, where and as FastAPI puts a response model's schema."""
    from session_scoring.models.api import ErrorBody  # the API's models are not needed to build the app

    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    if "ErrorBody" not in schemas:
        # Through FastAPI's ``Schema`` model, as FastAPI passes its document: the committed document's key order.
        schema = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}", mode="serialization")
        schemas["ErrorBody"] = Schema.model_validate(schema).model_dump(by_alias=True, exclude_none=True)
        document["components"]["schemas"] = {name: schemas[name] for name in sorted(schemas)}
    return document


async def scoring_error(request: Request, exc: Exception) -> JSONResponse:
    from session_scoring.log import logger  # imported when first needed: Powertools is not needed to build the app

    assert isinstance(exc, ScoringError)
    status, code = status_and_code(exc)
    detail = public_detail(exc.message)
    if (status, code) == UNMAPPED:
        logger.exception("unmapped scoring error")
    elif status >= 500:
        logger.error("request failed", extra={"code": code, "error": exc.message, "path": request.url.path})
    elif detail != exc.message:
        logger.info("an internal address was withheld from the answer", extra={"code": code, "error": exc.message})
    headers = {"Allow": exc.allow} if isinstance(exc, ExportModeError) else {}
    if status == 503 and not isinstance(exc, ScoringDisabledError):
        headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return error_answer(status, code, detail, headers)


async def http_error(request: Request, exc: Exception) -> JSONResponse:
    """Errors raised by the framework itself (unparseable body, unknown path, wrong method), in our error shape."""
    assert isinstance(exc, StarletteHTTPException)
    detail = str(exc.detail)
    if exc.status_code == 400:
        detail = f'{detail}: send JSON such as {{"force_rescore": true}}, or no body'
    code = _FRAMEWORK_CODES.get(exc.status_code, "http_error")
    return error_answer(exc.status_code, code, detail, getattr(exc, "headers", None))


async def validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    problems = [
        {"loc": list(err.get("loc", ())), "msg": err.get("msg", ""), "type": err.get("type", "")}
        for err in exc.errors()
    ]
    return error_answer(422, "validation_error", problems)


async def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    """Anything else is a bug: logged with its traceback, answered in the same JSON shape (never text/plain)."""
    from functions.api.middleware import security_headers
    from session_scoring.log import logger

    logger.exception("unexpected error", extra={"path": request.url.path})
    # Answered by Starlette's outermost middleware, outside ours.
    headers = {name.decode(): value.decode() for name, value in security_headers(request.url.scheme)}
    return error_answer(*UNMAPPED, "internal error; see the service log", headers)


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(Exception, unexpected_error)
    app.add_exception_handler(ScoringError, scoring_error)
    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(RequestValidationError, validation_error)
