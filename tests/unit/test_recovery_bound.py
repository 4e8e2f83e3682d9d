"""A scorer that dies is replaced within three minutes with the default settings, locally and in AWS.

After a scorer dies holding a claim, the attempt waits at most for its lease to run out (nobody renews it), then for
the reaper's next run (which requeues it), then for the requeued job itself. These tests compute that bound from the
settings the service really runs with (``Settings`` defaults and ``make run``'s reaper period; the SAM template's
environment and schedule) instead of waiting it out; ``make recovery`` measures it on a real kill and restart.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from devstack.__main__ import REAP_INTERVAL_SECONDS
from session_scoring.configuration.settings import Settings
from session_scoring.db.calls import SERVER_ERROR_PAUSE_SECONDS
from session_scoring.services.leases import RENEWALS_PER_LEASE
from tests.support.cfn import load_template

ROOT = Path(__file__).resolve().parents[2]

HEALED_WITHIN_SECONDS = 180
RESCORE_MARGIN_SECONDS = 60
"""The requeued job: its delivery and one scoring (the session read and one judge call of up to a minute)."""


def _default(name: str) -> Any:
    return Settings.model_fields[name].default


def _rate_seconds(expression: str) -> int:
    match = re.fullmatch(r"rate\((\d+) (minute|minutes|hour|hours)\)", expression)
    assert match, expression
    return int(match[1]) * (60 if match[2].startswith("minute") else 3600)


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template(ROOT / "template.yaml")


def test_with_the_defaults_a_dead_local_scorer_is_replaced_and_its_attempt_scored_within_three_minutes() -> None:
    bound = _default("lease_seconds") + REAP_INTERVAL_SECONDS + RESCORE_MARGIN_SECONDS

    assert bound <= HEALED_WITHIN_SECONDS


def test_in_aws_a_dead_scorer_is_replaced_and_its_attempt_scored_within_three_minutes(template: dict[str, Any]) -> None:
    resources = template["Resources"]
    scorer_lease = int(resources["ScorerFunction"]["Properties"]["Environment"]["Variables"]["SCORING_LEASE_SECONDS"])
    reaper = resources["ReaperFunction"]["Properties"]
    [schedule] = reaper["Events"].values()

    bound = scorer_lease + _rate_seconds(schedule["Properties"]["ScheduleExpression"]) + RESCORE_MARGIN_SECONDS

    assert bound <= HEALED_WITHIN_SECONDS
    # The reaper judges leases by the same length (its pending-idle limit is derived from it).
    assert int(reaper["Environment"]["Variables"]["SCORING_LEASE_SECONDS"]) == scorer_lease


def test_a_renewal_that_spends_its_whole_database_budget_still_lands_before_the_lease_ends() -> None:
    """The heartbeat's beat comes every third of the lease; one renewal may take two attempts at the database
    timeout (the repository retries once) and still keep the claim."""
    lease = _default("lease_seconds")
    slowest_renewal = 2 * _default("database_timeout_seconds") + SERVER_ERROR_PAUSE_SECONDS

    assert lease / RENEWALS_PER_LEASE + slowest_renewal < lease
