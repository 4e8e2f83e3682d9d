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
    second.settle()  # its job ends: the reset it started has landed
    for _ in range(4):
        with pytest.raises(JudgeTransientError):
            first.call(_raise(JudgeTransientError("500")))

    assert second.call(lambda: "still closed") == "still closed"


def _requests(client: Any) -> list[str]:
    """The DynamoDB operations ``client`` sends from now on, in order (botocore's own event, real requests)."""
    sent: list[str] = []
    client.meta.events.register("before-call.dynamodb.*", lambda model, **_: sent.append(model.name))
    return sent


def _counter(client: Any, name: str) -> int | None:
    item = client.get_item(TableName=TABLE, Key={"id": {"S": f"{name}#failures"}}, ConsistentRead=True).get("Item")
    return None if item is None else int(item["failures"]["N"])


def test_a_success_after_failures_sets_the_fleet_counter_back_to_zero(dynamodb: Any) -> None:
    name = f"judge-{uuid.uuid4().hex}"
    breaker = _breaker(dynamodb, name)
    for _ in range(3):
        with pytest.raises(JudgeTransientError):
            breaker.call(_raise(JudgeTransientError("529")))
    assert _counter(dynamodb, name) == 3

    assert breaker.call(lambda: "verdict") == "verdict"
    breaker.settle()

    assert _counter(dynamodb, name) == 0


def test_a_success_with_no_failures_to_reset_writes_nothing(dynamodb: Any) -> None:
    name = f"judge-{uuid.uuid4().hex}"
    breaker = _breaker(dynamodb, name)
    sent = _requests(dynamodb)

    for _ in range(3):
        assert breaker.call(lambda: "verdict") == "verdict"
    with pytest.raises(JudgeTransientError):
        breaker.call(_raise(JudgeTransientError("529")))
    assert breaker.call(lambda: "verdict") == "verdict"  # this one has a failure to reset
    assert breaker.call(lambda: "verdict") == "verdict"
    breaker.settle()

    writes = [op for op in sent if op not in ("GetItem", "Query", "Scan")]
    assert writes == ["UpdateItem", "UpdateItem"]  # the failure's ADD and the one reset it needed
    assert _counter(dynamodb, name) == 0


def test_a_failure_elsewhere_after_this_instance_read_the_state_is_still_reset(dynamodb: Any) -> None:
    """The state read before a call is cached; a failure recorded elsewhere meanwhile must not outlive the success."""
    name = f"judge-{uuid.uuid4().hex}"
    cached = DynamoJudgeBreaker(dynamodb, TABLE, name, recovery_seconds=60, cache_seconds=300)
    other = _breaker(dynamodb, name)
    assert cached.call(lambda: "verdict") == "verdict"  # reads the state (CLOSED) and caches it

    def succeed_after_a_failure_elsewhere() -> str:
        with pytest.raises(JudgeTransientError):
            other.call(_raise(JudgeTransientError("529")))
        return "verdict"

    assert cached.call(succeed_after_a_failure_elsewhere) == "verdict"
    cached.settle()

    assert _counter(dynamodb, name) == 0


def test_the_threshold_trips_across_two_instances_and_a_success_restarts_the_count(dynamodb: Any) -> None:
    from aws_lambda_powertools.utilities.circuit_breaker import base

    name = f"judge-{uuid.uuid4().hex}"
    first, second = _breaker(dynamodb, name), _breaker(dynamodb, name)

    def fail(instance: DynamoJudgeBreaker, times: int) -> None:
        for _ in range(times):
            base._LOCAL_FAILURES.clear()  # two execution environments: no shared memory
            with pytest.raises(JudgeTransientError):
                instance.call(_raise(JudgeTransientError("529")))

    fail(first, 2)
    fail(second, 2)
    assert second.call(lambda: "verdict") == "verdict"  # four failures in a row, then a success: count restarts
    second.settle()
    fail(first, 3)
    fail(second, 1)
    assert first.call(lambda: "closed") == "closed"  # four since the success: still closed
    first.settle()
    fail(second, 4)
    fail(first, 1)

    with pytest.raises(JudgeUnavailableError):
        second.call(lambda: "not called")
    with pytest.raises(JudgeUnavailableError):
        first.call(lambda: "not called")
    assert _state_item(dynamodb)["state"]["S"] == "OPEN"


def test_a_failure_right_after_a_success_on_the_same_instance_is_counted_after_its_reset(dynamodb: Any) -> None:
    """The reset runs in the background; a failure of the same instance waits for it, so the reset cannot land
    after the failure's count and erase it."""
    name = f"judge-{uuid.uuid4().hex}"
    breaker = _breaker(dynamodb, name)
    with pytest.raises(JudgeTransientError):
        breaker.call(_raise(JudgeTransientError("529")))

    for _ in range(20):
        assert breaker.call(lambda: "verdict") == "verdict"
        with pytest.raises(JudgeTransientError):
            breaker.call(_raise(JudgeTransientError("529")))
        assert _counter(dynamodb, name) == 1


def _unreachable_dynamodb() -> Any:
    """A DynamoDB client of a port nothing listens on, giving up at once."""
    from botocore.config import Config

    return boto3.client(
        "dynamodb",
        region_name="us-east-1",
        endpoint_url="http://127.0.0.1:9",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
        config=Config(connect_timeout=0.2, read_timeout=0.2, retries={"max_attempts": 1}),
    )


def test_state_store_unreachable_fails_open_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    unreachable = _unreachable_dynamodb()
    unavailable: list[int] = []
    breaker = _breaker(unreachable, on_state_unavailable=lambda: unavailable.append(1))

    for _ in range(6):
        with pytest.raises(JudgeTransientError):
            breaker.call(_raise(JudgeTransientError("529")))
    assert breaker.call(lambda: "verdict") == "verdict"  # never opened: no protection, but no outage either
    breaker.settle()

    assert len(unavailable) == 7
    assert "judge circuit state unavailable; failing open" in caplog.text


def test_the_state_health_reads_is_the_state_the_utility_keeps(dynamodb: Any) -> None:
    """``state()`` reads the utility's item by its persistence's key and state attributes: it must say what the
    utility's own ``get_state`` says, closed before any failure and open after the threshold, or fail here when
    Powertools changes how it stores a circuit."""
    from aws_lambda_powertools.utilities.circuit_breaker.persistence import CircuitBreakerDynamoDBPersistence

    def stored(name: str) -> str:  # a new persistence each time: the utility caches what it read
        return str(CircuitBreakerDynamoDBPersistence(table_name=TABLE, boto3_client=dynamodb).get_state(name).state)

    breaker = _breaker(dynamodb)
    closed = (breaker.state(), stored(breaker.circuit_name))
    for _ in range(5):
        with pytest.raises(JudgeTransientError):
            breaker.call(_raise(JudgeTransientError("529")))

    assert closed == ("CLOSED", "CLOSED")
    assert breaker.state() == stored(breaker.circuit_name) == "OPEN"


def test_an_unreadable_state_is_unknown_to_health() -> None:
    assert _breaker(_unreachable_dynamodb()).state() == "unknown"
