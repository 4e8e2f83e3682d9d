"""The local stack's start-up summary says who may do what on the API."""

from __future__ import annotations

from devstack.server import access_summary
from session_scoring.configuration.settings import Settings


def test_the_summary_says_whether_roles_are_checked_and_how_a_local_caller_gets_them() -> None:
    assert "every caller acts as admin" in access_summary(Settings())
    trusted = access_summary(Settings(require_authentication=True, trust_forwarded_user=True))
    assert "X-Forwarded-Groups" in trusted
    assert "401" in trusted
    locked = access_summary(Settings(require_authentication=True))
    assert "nobody can sign in locally" in locked
    assert "SCORING_TRUST_FORWARDED_USER=true" in locked
