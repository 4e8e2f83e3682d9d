"""FastAPI dependencies: the container and the caller's identity.

Routes declare them with ``Depends`` (through the ``ContainerDep``/``SettingsDep``/``Requester`` aliases) instead
of calling ``get_container()``, so a test swaps any of them with ``app.dependency_overrides``.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from session_scoring.configuration.settings import Settings
from session_scoring.container import Container, get_container

DEFAULT_REQUESTER = "api-client"


def container() -> Container:
    """The process's container, built on the first request (never at import)."""
    return get_container()


ContainerDep = Annotated[Container, Depends(container)]


def settings(scoring: ContainerDep) -> Settings:
    return scoring.settings


SettingsDep = Annotated[Settings, Depends(settings)]


def requester(request: Request, settings: SettingsDep) -> str:
    """Who asked: the JWT authorizer's claims, else a trusted proxy's header, else ``api-client``.

    ``X-Forwarded-User``/``X-Forwarded-Email`` are honoured only when SCORING_TRUST_FORWARDED_USER says a proxy in
    front (oauth2-proxy) sets them; otherwise any client could choose its identity.
    """
    event = request.scope.get("aws.event") or {}
    claims = (((event.get("requestContext") or {}).get("authorizer") or {}).get("jwt") or {}).get("claims") or {}
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
