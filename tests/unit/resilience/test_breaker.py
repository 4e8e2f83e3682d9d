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


def _breaker(client: Any) -> DynamoJudgeBreaker:
    # A circuit of its own per test: the utility keeps its failure counters per process and circuit name.
    return DynamoJudgeBreaker(client, TABLE, f"judge-{uuid.uuid4().hex}", recovery_seconds=60, cache_seconds=0)


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
    item = dynamodb.scan(TableName=TABLE)["Items"][0]
    assert item["state"]["S"] == "OPEN"
    assert "expiration" in item  # the TTL attribute the table is configured with


def test_permanent_errors_do_not_count(dynamodb: Any) -> None:
    breaker = _breaker(dynamodb)
    for _ in range(10):
        with pytest.raises(JudgePermanentError):
            breaker.call(_raise(JudgePermanentError("401")))

    assert breaker.call(lambda: "verdict") == "verdict"
    assert dynamodb.scan(TableName=TABLE)["Items"] == []  # never a transition


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
