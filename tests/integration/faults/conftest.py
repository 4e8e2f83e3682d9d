"""Fixtures of the fault suite: a stack whose judge is the real SDK against the fake Claude server, a ledger of
injected faults and of the end state of every job, and helpers that stand for time passing (no sleeps).

At the end of the run the suite prints ``faults injected: N, jobs lost: L, duplicate scores: D``.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from tests.conftest import SAMPLES, THOROUGH_ID, Stack
from tests.support.fault_ledger import LEDGER
from tests.support.postgres import restartable_postgres  # noqa: F401 - a fixture of this folder's tests


@dataclass(frozen=True)
class EndState:
    completed: int
    failed: list[tuple[str, str]]
    """(session id, reason) of every failed attempt."""
    lost: list[str]
    duplicates: int

    def reason(self, session_id: str) -> str:
        return next(reason for session, reason in self.failed if session == session_id)


def end_state(database_url: str) -> EndState:
    """Every attempt in the database: completed, failed with a reason, or lost (still pending/in progress)."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT score_id, session_id, status, error_message FROM session_scores")).all()
            # A duplicate: a session with two completed attempts from one request, or child rows stored twice.
            duplicate_sessions = conn.execute(
                text(
                    "SELECT count(*) FROM (SELECT session_id FROM session_scores WHERE status = 'completed' "
                    "GROUP BY session_id HAVING count(*) > 1) d"
                )
            ).scalar_one()
            duplicate_children = conn.execute(
                text(
                    "SELECT count(*) FROM (SELECT score_id, position FROM score_missing_tools "
                    "GROUP BY score_id, position HAVING count(*) > 1) d"
                )
            ).scalar_one()
    finally:
        engine.dispose()
    failed = [(str(r.session_id), str(r.error_message or "")) for r in rows if r.status == "failed"]
    lost = [str(r.session_id) for r in rows if r.status in ("pending", "in_progress")]
    lost += [session for session, reason in failed if not reason.strip()]
    completed = sum(1 for r in rows if r.status == "completed")
    return EndState(completed, failed, lost, int(duplicate_sessions) + int(duplicate_children))


@pytest.fixture
def settle(request: pytest.FixtureRequest) -> Any:
    """``settle(stack, faults=n, jobs=m)``: drain, then assert nothing was lost or duplicated and record it."""

    def check(stack: Stack, *, faults: int, jobs: int, drain: bool = True) -> EndState:
        if drain:
            stack.poller.drain()
        state = end_state(stack.env["SCORING_DATABASE_URL"])
        LEDGER.tests += 1
        LEDGER.faults += faults
        LEDGER.jobs += jobs
        LEDGER.lost += len(state.lost)
        LEDGER.duplicates += state.duplicates
        assert state.lost == [], f"jobs lost: {state.lost}"
        assert state.duplicates == 0
        assert state.completed + len(state.failed) == jobs
        return state

    return check


@pytest.fixture(autouse=True)
def _fresh_breaker_counters() -> None:
    """Powertools' circuit breaker counts failures in process-wide dicts keyed by circuit name; start each test
    at zero so one test's failure streak cannot trip the next test's circuit (each test has its own table)."""
    from aws_lambda_powertools.utilities.circuit_breaker import base

    for counters in (base._LOCAL_FAILURES, base._LOCAL_SUCCESSES, base._LAST_OBSERVED_STATE):
        counters.clear()


FAULT_ENV = {
    "SCORING_LLM_PROVIDER": "anthropic",
    "ANTHROPIC_API_KEY": "test-key-not-secret",
    "JUDGE_TIMEOUT_SECONDS": "1",
    "JUDGE_RETRY_BASE_SECONDS": "0",
    "SCORING_BREAKER_CACHE_SECONDS": "0",
    "SCORING_BREAKER_RECOVERY_SECONDS": "60",
    "SCORING_LEASE_SECONDS": "30",
    # The counted path: the suite moves visibility delays to stand for time passing, and an outage here is meant to
    # reach the dead-letter queue. A deferred copy's DelaySeconds is not movable through SQS; deferral (a busy judge
    # handed back as a fresh copy) is tested in tests/integration/test_deferred_handbacks.py.
    "SCORING_MAX_DEFERRALS": "0",
}


@pytest.fixture
def fault_stack(make_stack: Any, fake_claude: Any) -> Stack:
    """The judge is Claude through the real SDK, pointed at the fake server; a 1 s judge timeout; the breaker
    re-reads DynamoDB on every call so tests can move its clock."""
    result: Stack = make_stack(**FAULT_ENV, ANTHROPIC_BASE_URL=fake_claude.base_url)
    return result


def breaker_items(stack: Stack) -> list[dict[str, Any]]:
    from devstack.aws import client

    dynamodb = client("dynamodb", stack.env["AWS_ENDPOINT_URL"])
    items: list[dict[str, Any]] = dynamodb.scan(TableName=stack.resources.breaker_table)["Items"]
    return items


def breaker_state(stack: Stack) -> str:
    items = breaker_items(stack)
    states = [item["state"]["S"] for item in items if "state" in item]
    return states[0] if states else "CLOSED"


def pass_recovery_timeout(stack: Stack) -> None:
    """Stand for the breaker's recovery timeout passing: move its opened_at (and any probe lease) into the past."""
    from devstack.aws import client

    dynamodb = client("dynamodb", stack.env["AWS_ENDPOINT_URL"])
    recovery = int(stack.env["SCORING_BREAKER_RECOVERY_SECONDS"])
    for item in breaker_items(stack):
        updates, values = [], {}
        for attribute in ("opened_at", "probe_lease_expiry"):
            if attribute in item:
                updates.append(f"{attribute} = :{attribute}")
                values[f":{attribute}"] = {"N": str(int(item[attribute]["N"]) - recovery - 1)}
        if updates:
            dynamodb.update_item(
                TableName=stack.resources.breaker_table,
                Key={"id": item["id"]},
                UpdateExpression="SET " + ", ".join(updates),
                ExpressionAttributeValues=values,
            )


def dead_letter_count(stack: Stack) -> int:
    attributes = stack.sqs.get_queue_attributes(
        QueueUrl=stack.resources.dead_letter_queue_url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return int(attributes["ApproximateNumberOfMessages"]) + int(attributes["ApproximateNumberOfMessagesNotVisible"])


@pytest.fixture
def many_sessions() -> Iterator[Any]:
    """``many_sessions(n)``: a directory of n completed sessions (copies of a sample with their own ids)."""
    directory = Path(tempfile.mkdtemp(prefix="scoring-sessions-"))

    def make(count: int) -> tuple[Path, list[str]]:
        template = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())
        ids = []
        for _ in range(count):
            session_id = str(uuid.uuid4())
            (directory / f"{session_id}.json").write_text(json.dumps({**template, "session_id": session_id}))
            ids.append(session_id)
        return directory, ids

    yield make
    shutil.rmtree(directory, ignore_errors=True)
