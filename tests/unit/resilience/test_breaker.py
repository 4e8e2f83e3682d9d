"""The judge's circuit breaker (Powertools' utility) on an in-process moto DynamoDB table."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from moto import mock_aws

from session_scoring.errors import JudgePermanentError, JudgeTransientError, JudgeUnavailableError
from session_scoring.resilience.breaker import DynamoJudgeBreaker

TABLE = "breaker"


@pytest.fixture
def dynamodb(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    for key, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(key, value)
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(
            TableName=TABLE,
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        yield client


def _breaker(client: Any, name: str | None = None, **hooks: Any) -> DynamoJudgeBreaker:
    # A circuit of its own per test: the utility keeps its failure counters per process and circuit name.
    return DynamoJudgeBreaker(
        client, TABLE, name or f"judge-{uuid.uuid4().hex}", recovery_seconds=60, cache_seconds=0, **hooks
    )


def _state_item(client: Any) -> dict[str, Any]:
    items = [item for item in client.scan(TableName=TABLE)["Items"] if "state" in item]
    assert len(items) == 1
    return items[0]


def _raise(error: Exception) -> Any:
    def call() -> Any:
        raise error

    return call


def test_five_transient_failures_open_it_and_calls_then_fail_fast(dynamodb: Any) -> None:
    breaker = _breaker(dynamodb)
    for _ in range(5):
        with pytest.raises(JudgeTransientError):
            breaker.call(_raise(JudgeTransientError("529")))
    called: list[int] = []

    with pytest.raises(JudgeUnavailableError, match="is open") as opened:
        breaker.call(lambda: called.append(1))

    assert called == []
    assert 55 <= (opened.value.retry_at - datetime.now(UTC)).total_seconds() <= 61
    item = _state_item(dynamodb)
    assert item["state"]["S"] == "OPEN"
    assert "expiration" in item  # the TTL attribute the table is configured with


def test_permanent_errors_do_not_count(dynamodb: Any) -> None:
    breaker = _breaker(dynamodb)
    for _ in range(10):
        with pytest.raises(JudgePermanentError):
            breaker.call(_raise(JudgePermanentError("401")))

    assert breaker.call(lambda: "verdict") == "verdict"
    assert [i for i in dynamodb.scan(TableName=TABLE)["Items"] if "state" in i] == []  # never a transition


def test_a_success_resets_the_streak(dynamodb: Any) -> None:
    breaker = _breaker(dynamodb)
    for _ in range(4):
        with pytest.raises(JudgeTransientError):
            breaker.call(_raise(JudgeTransientError("500")))
    breaker.call(lambda: "verdict")
    for _ in range(4):
        with pytest.raises(JudgeTransientError):
            breaker.call(_raise(JudgeTransientError("500")))

    assert breaker.call(lambda: "still closed") == "still closed"


def test_failures_spread_over_several_instances_open_the_circuit_once(dynamodb: Any) -> None:
    """Five scorer instances each see one transient failure: the fleet has failed five times in a row."""
    from aws_lambda_powertools.utilities.circuit_breaker import base

    name = f"judge-{uuid.uuid4().hex}"
    transitions: list[tuple[str, str]] = []
    instances = [_breaker(dynamodb, name, on_transition=lambda a, b: transitions.append((a, b))) for _ in range(5)]
    for instance in instances:
        base._LOCAL_FAILURES.clear()  # each instance is its own execution environment: no shared memory
        with pytest.raises(JudgeTransientError):
            instance.call(_raise(JudgeTransientError("529")))

    called: list[int] = []
    for instance in instances:
        with pytest.raises(JudgeUnavailableError):
            instance.call(lambda: called.append(1))

    assert called == []
    assert transitions == [("CLOSED", "OPEN")]
    assert _state_item(dynamodb)["state"]["S"] == "OPEN"


def test_a_success_anywhere_resets_the_fleet_count(dynamodb: Any) -> None:
    name = f"judge-{uuid.uuid4().hex}"
    first, second = _breaker(dynamodb, name), _breaker(dynamodb, name)
    for _ in range(4):
        with pytest.raises(JudgeTransientError):
            first.call(_raise(JudgeTransientError("500")))
    assert second.call(lambda: "verdict") == "verdict"
    for _ in range(4):
        with pytest.raises(JudgeTransientError):
            first.call(_raise(JudgeTransientError("500")))

    assert second.call(lambda: "still closed") == "still closed"


def test_state_store_unreachable_fails_open_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    from botocore.config import Config

    unreachable = boto3.client(
        "dynamodb",
        region_name="us-east-1",
        endpoint_url="http://127.0.0.1:9",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(connect_timeout=0.2, read_timeout=0.2, retries={"max_attempts": 1}),
    )
    unavailable: list[int] = []
    breaker = _breaker(unreachable, on_state_unavailable=lambda: unavailable.append(1))

    for _ in range(6):
        with pytest.raises(JudgeTransientError):
            breaker.call(_raise(JudgeTransientError("529")))
    assert breaker.call(lambda: "verdict") == "verdict"  # never opened: no protection, but no outage either

    assert len(unavailable) == 7
    assert "judge circuit state unavailable; failing open" in caplog.text
