"""Who the caller is and what they may do (``services/access.py``): identities and roles from token claims in every
shape they arrive in, or from a trusted proxy's headers; the role hierarchy; 401 and 403 with what to do."""

from __future__ import annotations

from typing import get_args

import pytest

from session_scoring.configuration.settings import RoleName
from session_scoring.errors import AuthenticationRequiredError, RoleRequiredError
from session_scoring.models.access import ROLE_ORDER, Role
from session_scoring.services.access import (
    ANONYMOUS,
    AUTHENTICATED,
    PUBLIC,
    AccessPolicy,
    Caller,
    ProxyHeaders,
    claim_values,
)

NO_PROXY = ProxyHeaders()


def _policy(
    *,
    enforced: bool = True,
    trust_proxy: bool = False,
    role_claim: str = "cognito:groups",
    role_map: dict[str, str] | None = None,
    default_role: str | None = None,
) -> AccessPolicy:
    return AccessPolicy(
        enforced=enforced,
        trust_proxy=trust_proxy,
        role_claim=role_claim,
        role_map=role_map or {},
        default_role=default_role,
    )


def test_the_settings_and_the_model_name_the_same_roles_in_the_same_order() -> None:
    assert get_args(RoleName) == tuple(role.value for role in ROLE_ORDER) == tuple(Role)


@pytest.mark.parametrize(
    ("claim", "values"),
    [
        ("[sre-admins sre]", ["sre-admins", "sre"]),  # API Gateway's rendering of a list claim in the v2 event
        ("[admin]", ["admin"]),
        ('["sre-admins", "sre"]', ["sre-admins", "sre"]),  # a JSON array in a string
        ("sre-admins, sre", ["sre-admins", "sre"]),
        ("openid email scoring/read", ["openid", "email", "scoring/read"]),  # OAuth's scope
        (["operator", " viewer "], ["operator", "viewer"]),  # a list, as a token decoded directly has it
        ("[a,b]", ["a", "b"]),
        ("", []),
        ("[]", []),
        (None, []),
    ],
)
def test_a_list_claim_is_read_in_every_shape_it_arrives_in(claim: object, values: list[str]) -> None:
    assert claim_values(claim) == values


def test_cognito_groups_as_api_gateway_passes_them_grant_the_highest_mapped_role() -> None:
    policy = _policy(role_map={"sre-admins": "admin", "sre": "operator", "support": "viewer"})

    caller = policy.caller({"sub": "u-1", "email": "alice@example.com", "cognito:groups": "[support sre]"}, NO_PROXY)

    assert caller == Caller(
        "alice@example.com", "token", ("support", "sre"), (Role.VIEWER, Role.LABELLER, Role.OPERATOR)
    )


def test_oauth_scopes_map_to_roles() -> None:
    policy = _policy(role_claim="scope", role_map={"scoring/read": "viewer", "scoring/label": "labeller"})

    caller = policy.caller({"sub": "client-7", "scope": "openid scoring/read scoring/label"}, NO_PROXY)

    assert caller.identity == "client-7"
    assert caller.roles == (Role.VIEWER, Role.LABELLER)


def test_without_a_mapping_the_role_names_grant_themselves_and_nothing_else_does() -> None:
    policy = _policy(role_claim="groups")

    assert policy.caller({"sub": "u", "groups": "[labeller]"}, NO_PROXY).roles == (Role.VIEWER, Role.LABELLER)
    assert policy.caller({"sub": "u", "groups": "[sre admins]"}, NO_PROXY).roles == ()


def test_a_configured_mapping_replaces_the_role_names() -> None:
    policy = _policy(role_map={"sre": "operator"})

    assert policy.caller({"sub": "u", "cognito:groups": "[admin]"}, NO_PROXY).roles == ()


def test_the_default_role_is_granted_to_every_identified_caller() -> None:
    policy = _policy(default_role="viewer", role_map={"sre": "operator"})

    assert policy.caller({"sub": "u"}, NO_PROXY).roles == (Role.VIEWER,)
    assert policy.caller({"sub": "u", "cognito:groups": "[sre]"}, NO_PROXY).roles[-1] == Role.OPERATOR
    assert policy.caller({}, NO_PROXY) == ANONYMOUS


def test_a_trusted_proxy_names_the_caller_and_their_groups() -> None:
    policy = _policy(trust_proxy=True)

    caller = policy.caller({}, ProxyHeaders(user="bob", email="bob@example.com", groups="viewer, labeller"))

    assert caller == Caller("bob", "proxy", ("viewer", "labeller"), (Role.VIEWER, Role.LABELLER))
    assert policy.caller({}, ProxyHeaders(email="eve@example.com")).identity == "eve@example.com"
    assert policy.caller({}, ProxyHeaders(user="  ", groups="admin")) == ANONYMOUS  # groups alone name nobody


def test_proxy_headers_count_for_nothing_unless_a_proxy_is_trusted() -> None:
    policy = _policy(trust_proxy=False)

    assert policy.caller({}, ProxyHeaders(user="mallory", groups="admin")) == ANONYMOUS


def test_token_claims_win_over_the_proxy_headers() -> None:
    policy = _policy(trust_proxy=True)

    caller = policy.caller({"sub": "u-1", "cognito:groups": "[viewer]"}, ProxyHeaders(user="mallory", groups="admin"))

    assert (caller.identity, caller.roles) == ("u-1", (Role.VIEWER,))


def test_an_identity_is_cut_to_the_width_of_the_columns_that_record_it() -> None:
    assert _policy().caller({"sub": "a" * 300}, NO_PROXY).identity == "a" * 255


@pytest.mark.parametrize("role", ROLE_ORDER)
def test_each_role_may_do_what_it_and_the_roles_below_it_may_and_no_more(role: Role) -> None:
    policy = _policy()
    caller = policy.caller({"sub": "u", "cognito:groups": f"[{role}]"}, NO_PROXY)

    for required in ROLE_ORDER:
        if ROLE_ORDER.index(required) <= ROLE_ORDER.index(role):
            policy.authorize(caller, required, "GET /x")
        else:
            with pytest.raises(RoleRequiredError) as refused:
                policy.authorize(caller, required, "GET /x")
            assert refused.value.required_role == required


def test_the_403_names_the_role_needed_the_callers_and_where_roles_come_from() -> None:
    policy = _policy(role_map={"support": "viewer"})
    caller = policy.caller({"email": "vic@example.com", "cognito:groups": "[support]"}, NO_PROXY)

    with pytest.raises(RoleRequiredError) as refused:
        policy.authorize(caller, "operator", "POST /api/v1/scoring/runs")

    assert refused.value.message == (
        "POST /api/v1/scoring/runs needs the operator role (admin also may); vic@example.com has the viewer role. "
        "Roles come from the token's cognito:groups claim (support), mapped to roles by SCORING_ROLE_MAP."
    )


def test_an_identity_without_any_role_is_told_so() -> None:
    policy = _policy(trust_proxy=True)
    caller = policy.caller({}, ProxyHeaders(user="newcomer"))

    with pytest.raises(RoleRequiredError) as refused:
        policy.authorize(caller, "viewer", "GET /api/v1/scoring/sessions")

    assert "newcomer has no role" in refused.value.message
    assert "X-Forwarded-Groups header (absent or empty)" in refused.value.message


def test_without_an_identity_an_enforcing_policy_answers_401_except_on_public_routes() -> None:
    policy = _policy(trust_proxy=True)

    policy.authorize(ANONYMOUS, PUBLIC, "GET /health")
    for requirement in (AUTHENTICATED, "viewer"):
        with pytest.raises(AuthenticationRequiredError, match=r"bearer token.*X-Forwarded-User"):
            policy.authorize(ANONYMOUS, requirement, "GET /api/v1/scoring/me")


def test_any_identified_caller_passes_an_authenticated_route_whatever_their_roles() -> None:
    policy = _policy()

    policy.authorize(policy.caller({"sub": "u"}, NO_PROXY), AUTHENTICATED, "GET /api/v1/scoring/me")


def test_without_enforcement_nothing_is_checked_and_every_caller_acts_as_admin() -> None:
    policy = _policy(enforced=False)

    policy.authorize(ANONYMOUS, "admin", "POST /api/v1/scoring/exports/training")
    described = policy.describe(ANONYMOUS)

    assert (described.identity, described.role, described.roles, described.enforced) == (
        None,
        Role.ADMIN,
        list(ROLE_ORDER),
        False,
    )
    assert "SCORING_REQUIRE_AUTH is off" in described.detail


def test_me_describes_an_enforced_callers_roles() -> None:
    policy = _policy(trust_proxy=True)

    described = policy.describe(policy.caller({}, ProxyHeaders(user="lab", groups="labeller")))

    assert described.model_dump(mode="json") == {
        "identity": "lab",
        "source": "proxy",
        "role": "labeller",
        "roles": ["viewer", "labeller"],
        "enforced": True,
        "detail": "lab has the labeller role. Roles come from the X-Forwarded-Groups header (labeller), whose values "
        "viewer, labeller, operator and admin grant those roles (no SCORING_ROLE_MAP).",
    }


@pytest.mark.parametrize("hidden", ["\u00a0", "\u0085", "\u3000", "\x1f", "\u200b", "\u2028", "\t\u00a0"])
def test_a_role_with_non_ascii_whitespace_or_a_control_character_is_refused_not_trimmed(hidden: str) -> None:
    policy = _policy(trust_proxy=True)

    for claims, proxy in (
        ({}, ProxyHeaders(user="mallory", groups=f"viewer, admin{hidden}")),
        ({"sub": "mallory", "cognito:groups": f"[viewer admin{hidden}]"}, NO_PROXY),
        ({"sub": "mallory", "cognito:groups": ["viewer", f"admin{hidden}"]}, NO_PROXY),
    ):
        with pytest.raises(AuthenticationRequiredError, match=r"U\+[0-9A-F]{4}.*control characters or whitespace"):
            policy.caller(claims, proxy)


@pytest.mark.parametrize("hidden", ["\u00a0", "\u0085", "\u3000", "\x1f", "\ufeff"])
def test_an_identity_with_non_ascii_whitespace_or_a_control_character_is_refused_not_trimmed(hidden: str) -> None:
    policy = _policy(trust_proxy=True)

    for claims, proxy, where in (
        ({}, ProxyHeaders(user=f"alice{hidden}", groups="labeller"), "X-Forwarded-User"),
        ({}, ProxyHeaders(email=f"{hidden}alice@example.com"), "X-Forwarded-Email"),
        ({"email": f"alice@example.com{hidden}"}, NO_PROXY, "email claim"),
        ({"sub": f"al{hidden}ice"}, NO_PROXY, "sub claim"),
    ):
        with pytest.raises(AuthenticationRequiredError, match=where):
            policy.caller(claims, proxy)


def test_ascii_spaces_around_a_name_are_http_whitespace_and_trimmed() -> None:
    policy = _policy(trust_proxy=True)

    caller = policy.caller({}, ProxyHeaders(user=" alice\t", groups=" labeller ,\tviewer"))

    assert (caller.identity, caller.values) == ("alice", ("labeller", "viewer"))


def test_an_identity_header_given_twice_is_refused_not_first_wins() -> None:
    policy = _policy(trust_proxy=True)

    with pytest.raises(AuthenticationRequiredError, match="X-Forwarded-User more than once"):
        policy.caller({}, ProxyHeaders(user="alice", repeated=("X-Forwarded-User",)))
    with pytest.raises(AuthenticationRequiredError, match="more than one caller"):
        policy.caller({}, ProxyHeaders(user="alice,mallory"))  # two headers as API Gateway joins them
    assert policy.caller({}, ProxyHeaders(user="alice", email="alice@example.com")).identity == "alice"
