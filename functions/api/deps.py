"""FastAPI dependencies: the container and the caller's identity.

Routes declare them with ``Depends`` (through the ``ContainerDep``/``SettingsDep``/``Requester`` aliases) instead
of calling ``get_container()``, so a test swaps any of them with ``app.dependency_overrides``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Query, Request

from functions.api.params import CRITERIA_SCOPE_PATTERN
from session_scoring.container import Container, get_container
from session_scoring.errors import AuthenticationRequiredError

if TYPE_CHECKING:
    # Not imported at run time: pydantic-settings is a tenth of the cold start, and the first request imports it
    # anyway. FastAPI never validates a dependency's own type, so the forward reference below is never resolved.
    from session_scoring.configuration.settings import Settings

DEFAULT_REQUESTER = "api-client"


async def container() -> Container:
    """The process's container, built on the first request (never at import).

    The dependencies here are ``async def`` because they do no I/O: a ``def`` dependency would run in a worker
    thread, which behind Mangum means a new thread per request (see ``blocking.py``)."""
    return get_container()


ContainerDep = Annotated[Container, Depends(container)]


async def settings(scoring: ContainerDep) -> Settings:
    return scoring.settings


SettingsDep = Annotated["Settings", Depends(settings)]


async def criteria_scope(
    scoring: ContainerDep,
    criteria_hash: Annotated[
        str | None,
        Query(
            pattern=CRITERIA_SCOPE_PATTERN,
            description="Count only scores made with this criteria hash (64 lowercase hex digits); `current`: the "
            "criteria in force; `any` or absent: every criteria",
        ),
    ] = None,
) -> str | None:
    """The criteria hash an analytics query is scoped to, None for every criteria."""
    if criteria_hash == "current":
        return scoring.config.criteria_hash
    return None if criteria_hash in (None, "any") else criteria_hash


CriteriaScope = Annotated[str | None, Depends(criteria_scope)]


def authorizer_claims(request: Request) -> dict[str, object]:
    """The JWT authorizer's claims API Gateway put on the event (none when the request did not pass an authorizer)."""
    event = request.scope.get("aws.event") or {}
    claims = (((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt") or {}).get("claims") or {}
    return claims if isinstance(claims, dict) else {}


async def authenticated(request: Request, settings: SettingsDep) -> None:
    """With SCORING_REQUIRE_AUTH (set by the template whenever a JWT issuer is configured), a scoring route answers
    only a request that carries authorizer claims, whatever API Gateway route delivered it: the public ``$default``
    route (the dashboard) has no authorizer, and a percent-encoded path (``/%61pi/...``) must not reach the API
    through it."""
    if settings.require_authentication and not any(authorizer_claims(request).get(c) for c in ("sub", "email")):
        raise AuthenticationRequiredError(
            "authentication required: call the API with a bearer token accepted by its JWT authorizer"
        )


async def requester(request: Request, settings: SettingsDep) -> str:
    """Who asked: the JWT authorizer's claims, else a trusted proxy's header, else ``api-client``.

    ``X-Forwarded-User``/``X-Forwarded-Email`` are honoured only when SCORING_TRUST_FORWARDED_USER says a proxy in
    front (oauth2-proxy) sets them; otherwise any client could choose its identity.
    """
    claims = authorizer_claims(request)
    for claim in ("email", "sub"):
        if claims.get(claim):
            return str(claims[claim])[:255]
    if settings.trust_forwarded_user:
        for header in ("x-forwarded-user", "x-forwarded-email"):
            value = request.headers.get(header, "").strip()
            if value:
                return value[:255]
    return DEFAULT_REQUESTER


Requester = Annotated[str, Depends(requester)]
