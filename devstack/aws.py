"""moto's server on loopback, with the scoring and runs queues, their dead-letter queue and the breaker table."""

from __future__ import annotations

import json
import logging
import socket
from dataclasses import dataclass
from typing import Any, Literal

import boto3

REGION = "us-east-1"
LOCAL_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": REGION}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_moto() -> tuple[str, Any]:
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one access-log line per SQS poll drowns the output

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    return f"http://127.0.0.1:{port}", server


@dataclass(frozen=True)
class LocalResources:
    queue_url: str
    dead_letter_queue_url: str
    breaker_table: str
    runs_queue_url: str = ""
    """The runs queue (scoring runs' jobs and planning messages), sharing the dead-letter queue."""


LocalService = Literal["sqs", "dynamodb", "secretsmanager"]


def client(service: LocalService, endpoint: str) -> Any:
    return boto3.client(
        service,
        region_name=REGION,
        endpoint_url=endpoint,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def create_resources(
    endpoint: str, prefix: str = "session-scoring", max_receive_count: int = 5, visibility_timeout: int = 60
) -> LocalResources:
    """Create the queues (scoring and runs, with the same redrive policy as template.yaml) and the breaker table.

    The table's key (``id``, a string) and TTL attribute (``expiration``) are the defaults of Powertools'
    CircuitBreakerDynamoDBPersistence, which the scorer's circuit breaker uses.
    """
    sqs = client("sqs", endpoint)
    dlq_url = sqs.create_queue(QueueName=f"{prefix}-dlq", Attributes={"MessageRetentionPeriod": "1209600"})["QueueUrl"]
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    attributes = {
        "VisibilityTimeout": str(visibility_timeout),
        "MessageRetentionPeriod": "345600",
        "RedrivePolicy": json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": str(max_receive_count)}),
    }
    queue_url, runs_queue_url = (
        sqs.create_queue(QueueName=f"{prefix}-{name}", Attributes=attributes)["QueueUrl"] for name in ("jobs", "runs")
    )
    table = f"{prefix}-breaker"
    dynamodb = client("dynamodb", endpoint)
    if table not in dynamodb.list_tables()["TableNames"]:
        dynamodb.create_table(
            TableName=table,
            KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        # The attribute Powertools' CircuitBreakerDynamoDBPersistence stamps its TTL on (moto never expires items).
        dynamodb.update_time_to_live(
            TableName=table, TimeToLiveSpecification={"Enabled": True, "AttributeName": "expiration"}
        )
    return LocalResources(queue_url, dlq_url, table, runs_queue_url)
