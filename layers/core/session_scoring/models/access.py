"""Who may do what through the API: the roles, in order, and ``GET /me``'s answer (who the caller is, what they may do).

Each role may do everything the roles before it may:

| role | may |
|---|---|
| viewer | read scores, sessions, analytics, runs, labels |
| labeller | viewer + write labels |
| operator | labeller + score, force re-score, import sessions, start and cancel runs |
| admin | operator + training exports and anything that changes configuration |

No ``from __future__ import annotations`` here (see ``models/api.py``).
"""

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Role(StrEnum):
    VIEWER = "viewer"
    LABELLER = "labeller"
    OPERATOR = "operator"
    ADMIN = "admin"


ROLE_ORDER: tuple[Role, ...] = (Role.VIEWER, Role.LABELLER, Role.OPERATOR, Role.ADMIN)
"""Least to most: a role grants itself and every role before it."""


def roles_granted_by(role: Role) -> tuple[Role, ...]:
    """``operator`` -> viewer, labeller, operator."""
    return ROLE_ORDER[: ROLE_ORDER.index(role) + 1]


def roles_that_may(role: Role) -> tuple[Role, ...]:
    """The roles that may do what ``role`` may: ``operator`` -> operator, admin."""
    return ROLE_ORDER[ROLE_ORDER.index(role) :]


IdentitySource = Literal["token", "proxy", "none"]


class CallerAccess(BaseModel):
    """``GET /api/v1/scoring/me``: who the caller is, where that came from, and the roles they have."""

    model_config = ConfigDict(frozen=True, json_schema_serialization_defaults_required=True)

    identity: str | None = Field(
        description="The caller as runs, labels, imports, exports and scores record them (the token's email, else "
        "its sub; or the trusted proxy's user); null when the request carried no identity"
    )
    source: IdentitySource = Field(
        description="token: the JWT authorizer's claims; proxy: a trusted proxy's X-Forwarded-* headers; none"
    )
    role: Role | None = Field(description="The highest role the caller has; null: none (every API route answers 403)")
    roles: list[Role] = Field(description="Every role the caller has, least to most (a role grants the ones before it)")
    enforced: bool = Field(
        description="Whether roles are checked (SCORING_REQUIRE_AUTH); false: every caller may do everything"
    )
    detail: str = Field(description="The above in words, and where the roles come from")
