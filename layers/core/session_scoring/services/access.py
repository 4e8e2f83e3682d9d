"""Who the caller is and whether they may: the identity and roles of a request, and the check every API route makes.

The identity comes from the JWT authorizer's claims (``email``, else ``sub``), else, only where a proxy in front is
trusted (SCORING_TRUST_FORWARDED_USER), from its ``X-Forwarded-User``/``-Email`` headers; the roles from one claim
(SCORING_ROLE_CLAIM) or ``X-Forwarded-Groups``, mapped by SCORING_ROLE_MAP, plus SCORING_DEFAULT_ROLE. Roles are
checked only with SCORING_REQUIRE_AUTH, so ``make run`` works without an identity provider (docs/api.md).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from session_scoring.errors import AuthenticationRequiredError, RoleRequiredError
from session_scoring.models.access import (
    ROLE_ORDER,
    CallerAccess,
    IdentitySource,
    Role,
    roles_granted_by,
    roles_that_may,
)

PUBLIC = "public"
"""A route anyone may call, identity or not (``GET /health``)."""
AUTHENTICATED = "authenticated"
"""A route any identified caller may call, whatever their roles (``GET /me``)."""

IDENTITY_CLAIMS = ("email", "sub")
"""The claims naming the caller, the first present wins."""
MAX_IDENTITY = 255
"""The width of the columns that record who did something."""
MAX_VALUES_SHOWN = 10

SEPARATORS = " \t"
"""The only characters trimmed from an identity or a role value, or splitting a list of them: ASCII space and tab
(HTTP's own whitespace). Any other whitespace or control character is refused, never trimmed: ``admin`` followed by
U+00A0 is not ``admin``."""


@dataclass(frozen=True)
class ProxyHeaders:
    """What a proxy in front (oauth2-proxy) says about the caller: ``X-Forwarded-User``, ``X-Forwarded-Email`` and
    ``X-Forwarded-Groups`` (comma-separated), as received; any client can send them, so they count only when
    configuration says a proxy sets them."""

    user: str = ""
    email: str = ""
    groups: str = ""
    repeated: tuple[str, ...] = ()
    """The names of the identity headers the request carried more than once (a proxy sets each once)."""


@dataclass(frozen=True)
class Caller:
    """The request's caller: who (None: nobody said), where that came from, the values the roles were looked up by,
    and the roles they grant (least to most, each with the ones before it)."""

    identity: str | None
    source: IdentitySource
    values: tuple[str, ...] = ()
    roles: tuple[Role, ...] = ()


ANONYMOUS = Caller(None, "none")


def identity_problem(text: str) -> str | None:
    """Why ``text`` (an identity, or one role value) cannot name anyone, or None: it holds a control or format
    character, or whitespace other than the ASCII space (U+00A0, U+0085, U+3000, ...). Such a value is refused,
    never trimmed into another name."""
    for character in text:
        if character == " ":
            continue
        category = unicodedata.category(character)
        if category in ("Cc", "Cf", "Zl", "Zp", "Zs") or character.isspace():
            name = unicodedata.name(character, "a control character")
            return f"U+{ord(character):04X} ({name})"
    return None


def _exact(text: str, where: str) -> str:
    """``text`` without ASCII spaces and tabs around it, or a 401 naming ``where`` and the character refused."""
    problem = identity_problem(text.strip(SEPARATORS))
    if problem is not None:
        raise AuthenticationRequiredError(
            f"{where} holds {problem}: identities and roles must not contain control characters or whitespace other "
            "than the ASCII space; send the name exactly, without such characters"
        )
    return text.strip(SEPARATORS)


def claim_values(value: object, where: str = "the role claim") -> list[str]:
    """The values of a list claim however it arrived: a list (a token read directly), API Gateway's rendering of a
    list claim in the event (``"[a b c]"``: its JWT authorizer passes every claim as a string), a JSON array in a
    string, comma-separated, or space-separated (OAuth's ``scope``). A value holding a space or a comma cannot be
    told apart in those renderings: map values without them. Only ASCII spaces and tabs separate or are trimmed; a
    value with any other whitespace or a control character is refused (401)."""
    if value is None:
        return []
    if isinstance(value, list | tuple):
        return [text for item in value if (text := _exact(str(item), where))]
    text = _exact(str(value), where)
    if text.startswith("[") and text.endswith("]"):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        if isinstance(parsed, list):
            return claim_values(parsed, where)
        text = text[1:-1]
    parts = text.split(",") if "," in text else text.replace("\t", " ").split(" ")
    return [part for raw in parts if (part := _exact(raw, where))]


class AccessPolicy:
    """Resolves a request's caller and decides whether they may call a route."""

    def __init__(
        self,
        *,
        enforced: bool,
        trust_proxy: bool,
        role_claim: str,
        role_map: Mapping[str, str],
        default_role: str | None = None,
    ) -> None:
        self._enforced = enforced
        self._trust_proxy = trust_proxy
        self._claim = role_claim
        self._mapped = bool(role_map)
        self._map = {value: Role(role) for value, role in role_map.items()} or {role.value: role for role in Role}
        self._default = Role(default_role) if default_role else None

    @property
    def enforced(self) -> bool:
        return self._enforced

    def caller(self, claims: Mapping[str, object], proxy: ProxyHeaders) -> Caller:
        """The caller of a request: the token's claims win over any header; the proxy's headers count only when a
        proxy is trusted to set them. An identity or role holding a control character or whitespace other than the
        ASCII space, or an identity header given twice, is refused (401 with the reason), never read as another
        name."""
        for claim in IDENTITY_CLAIMS:
            name = _exact(str(claims.get(claim) or ""), f"the token's {claim} claim")
            if name:
                values = claim_values(claims.get(self._claim), f"the token's {self._claim} claim")
                return self._with_roles(name[:MAX_IDENTITY], "token", values)
        if self._trust_proxy:
            if proxy.repeated:
                raise AuthenticationRequiredError(
                    f"the request carries {', '.join(proxy.repeated)} more than once: one identity per request, "
                    "each header once (as the proxy in front sets it)"
                )
            user = _exact(proxy.user, "the X-Forwarded-User header")
            email = _exact(proxy.email, "the X-Forwarded-Email header")
            name = user or email
            if "," in name:
                raise AuthenticationRequiredError(
                    "the identity header names more than one caller (a comma: repeated headers joined); send one"
                )
            if name:
                where = "the X-Forwarded-Groups header"
                groups = [group for raw in proxy.groups.split(",") if (group := _exact(raw, where))]
                return self._with_roles(name[:MAX_IDENTITY], "proxy", groups)
        return ANONYMOUS

    def authorize(self, caller: Caller, requirement: str, action: str) -> None:
        """Raise unless ``caller`` may do ``action`` (``POST /api/v1/scoring/runs``), which needs ``requirement``: a
        role, :data:`AUTHENTICATED` or :data:`PUBLIC`."""
        if not self._enforced or requirement == PUBLIC:
            return
        if caller.identity is None:
            raise AuthenticationRequiredError(f"authentication required: {self._how_to_authenticate()}")
        if requirement == AUTHENTICATED:
            return
        role = Role(requirement)
        if role not in caller.roles:
            others = [str(other) for other in roles_that_may(role)[1:]]
            also = f" ({' or '.join(others)} also may)" if others else ""
            raise RoleRequiredError(
                f"{action} needs the {role} role{also}; {caller.identity} has {self._roles_in_words(caller)}. "
                f"{self._where_roles_come_from(caller)}",
                required_role=role.value,
            )

    def roles(self, caller: Caller) -> tuple[Role, ...]:
        """The roles ``caller`` acts with: every role while roles are not checked."""
        return caller.roles if self._enforced else ROLE_ORDER

    def describe(self, caller: Caller) -> CallerAccess:
        """``GET /me``: who the caller is and what they may do, in data and in words."""
        roles = self.roles(caller)
        if not self._enforced:
            detail = "SCORING_REQUIRE_AUTH is off: roles are not checked and every caller may do everything (as admin)"
        else:
            detail = f"{caller.identity} has {self._roles_in_words(caller)}. {self._where_roles_come_from(caller)}"
        return CallerAccess(
            identity=caller.identity,
            source=caller.source,
            role=roles[-1] if roles else None,
            roles=list(roles),
            enforced=self._enforced,
            detail=detail,
        )

    def _with_roles(self, identity: str, source: IdentitySource, values: Sequence[str]) -> Caller:
        granted = {self._map[value] for value in values if value in self._map}
        if self._default is not None:
            granted.add(self._default)
        highest = max(granted, key=ROLE_ORDER.index, default=None)
        return Caller(identity, source, tuple(values), roles_granted_by(highest) if highest else ())

    def _how_to_authenticate(self) -> str:
        how = "call the API with a bearer token accepted by its JWT authorizer"
        if self._trust_proxy:
            how += ", or through the proxy that sets X-Forwarded-User"
        return how

    @staticmethod
    def _roles_in_words(caller: Caller) -> str:
        return f"the {caller.roles[-1]} role" if caller.roles else "no role"

    def _where_roles_come_from(self, caller: Caller) -> str:
        where = f"the token's {self._claim} claim" if caller.source == "token" else "the X-Forwarded-Groups header"
        shown = ", ".join(caller.values[:MAX_VALUES_SHOWN]) + (", ..." if len(caller.values) > MAX_VALUES_SHOWN else "")
        values = f" ({shown})" if shown else " (absent or empty)"
        mapping = (
            "mapped to roles by SCORING_ROLE_MAP"
            if self._mapped
            else "whose values viewer, labeller, operator and admin grant those roles (no SCORING_ROLE_MAP)"
        )
        default = f"; every caller has at least {self._default} (SCORING_DEFAULT_ROLE)" if self._default else ""
        return f"Roles come from {where}{values}, {mapping}{default}."
