"""FastAPI dependencies: the container, the caller (who, and their roles) and the authorization of every route.

Routes declare them with ``Depends`` (through the ``ContainerDep``/``CallerDep``/``Requester`` aliases) instead of
calling ``get_container()``, so a test swaps any of them with ``app.dependency_overrides``. ``authorized`` is not
declared by routes: the app includes every router with it (``app.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Query, Request

from functions.api.params import CRITERIA_SCOPE_PATTERN
from functions.api.route_roles import required_access
from session_scoring.container import Container, get_container
from session_scoring.errors import ConfigurationError

if TYPE_CHECKING:
    # FastAPI never validates a dependency's own type: the forward reference below is never resolved.
    from session_scoring.services.access import Caller

DEFAULT_REQUESTER = "api-client"


async def container() -> Container:
    """The process's container, built on the first request. The dependencies here are ``async def`` (no I/O): a
    ``def`` one would run in a worker thread, behind Mangum a new thread per request (``blocking.py``)."""
    return get_container()


ContainerDep = Annotated[Container, Depends(container)]


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


async def caller(request: Request, scoring: ContainerDep) -> Caller:
    """Who the request comes from and their roles (``services/access.py``): the JWT authorizer's claims, else a
    trusted proxy's ``X-Forwarded-*`` headers (ignored unless SCORING_TRUST_FORWARDED_USER says a proxy sets them)."""
    from session_scoring.services.access import ProxyHeaders

    # The claims API Gateway put on the event (none when the request did not pass an authorizer).
    event = request.scope.get("aws.event") or {}
    claims = (((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt") or {}).get("claims") or {}
    headers = request.headers
    names = ("X-Forwarded-User", "X-Forwarded-Email", "X-Forwarded-Groups")
    proxy = ProxyHeaders(
        user=headers.get("x-forwarded-user", ""),
        email=headers.get("x-forwarded-email", ""),
        groups=headers.get("x-forwarded-groups", ""),
        repeated=tuple(name for name in names if len(headers.getlist(name)) > 1),
    )
    return scoring.access_policy.caller(claims if isinstance(claims, dict) else {}, proxy)


CallerDep = Annotated["Caller", Depends(caller)]


async def authorized(request: Request, scoring: ContainerDep, who: CallerDep) -> None:
    """The one check of every API route: the caller has the role ``route_roles.ROUTE_ROLES`` declares for it (401
    without an identity, 403 without the role, when SCORING_REQUIRE_AUTH is set); a route missing from the table is
    refused. Checked here whatever API Gateway route delivered the request (``$default`` has no authorizer)."""
    template = getattr(request.scope.get("route"), "path", None)
    access = required_access(request.method, template) if isinstance(template, str) else None
    if access is None:
        raise ConfigurationError(
            f"{request.method} {template} has no role in functions/api/route_roles.py: refused until one is declared"
        )
    scoring.access_policy.authorize(who, access, f"{request.method} {template}")


async def requester(who: CallerDep) -> str:
    """Who asked, as runs, labels, imports, exports and scores record it: the caller's identity, else
    ``api-client`` (nobody said, where no identity is required)."""
    return who.identity or DEFAULT_REQUESTER


Requester = Annotated[str, Depends(requester)]
