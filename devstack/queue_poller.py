"""Feeds SQS messages to the real scoring Lambda handler, the way the Lambda SQS poller does.

It long-polls the queue, hands SQS-shaped batches to the handler, deletes what the handler acknowledged and leaves
the ``batchItemFailures`` on the queue (they come back after their visibility timeout, and move to the dead-letter
queue after ``maxReceiveCount`` receives).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse

Handler = Callable[[dict[str, Any], Any], PartialItemFailureResponse]

_ATTRIBUTES = (
    ("ApproximateReceiveCount", "1"),
    ("SentTimestamp", "0"),
    ("SenderId", "local"),
    ("ApproximateFirstReceiveTimestamp", "0"),
)
"""The message attributes an SQS event record carries, with what stands for one SQS did not return."""


@dataclass
class LocalLambdaContext:
    """What the handlers read from a Lambda context: the one stand-in for it, here and in the tests."""

    budget_seconds: float = 900.0
    function_name: str = "session-scoring-scorer-local"
    memory_limit_in_mb: int = 1024
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    _started: float = field(default_factory=time.monotonic)

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:us-east-1:000000000000:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.budget_seconds - (time.monotonic() - self._started)) * 1000))


def to_sqs_event(messages: list[dict[str, Any]], queue_arn: str) -> dict[str, Any]:
    return {
        "Records": [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": {name: m.get("Attributes", {}).get(name, default) for name, default in _ATTRIBUTES},
                "messageAttributes": {},
                "md5OfBody": m.get("MD5OfBody", ""),
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": "us-east-1",
            }
            for m in messages
        ]
    }


@dataclass(eq=False)
class QueuePoller:
    sqs: Any
    queue_url: str
    handler: Handler
    batch_size: int = 5
    wait_seconds: int = 2
    budget_seconds: float = 900.0
    _deferred: dict[str, str] = field(default_factory=dict, init=False)
    # Deferrals are made visible again from another thread than the loop (make_deferred_visible).
    _deferred_lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        arn = self.sqs.get_queue_attributes(QueueUrl=self.queue_url, AttributeNames=["QueueArn"])
        self._queue_arn = arn["Attributes"]["QueueArn"]

    def poll_once(self, wait_seconds: int | None = None) -> int:
        """Receive one batch and run it through the handler; returns how many messages were received."""
        response = self.sqs.receive_message(
            QueueUrl=self.queue_url,
            MaxNumberOfMessages=self.batch_size,
            WaitTimeSeconds=self.wait_seconds if wait_seconds is None else wait_seconds,
            AttributeNames=["All"],
        )
        messages = response.get("Messages", [])
        if not messages:
            return 0
        failed: set[str]
        try:
            result = self.handler(
                to_sqs_event(messages, self._queue_arn), LocalLambdaContext(budget_seconds=self.budget_seconds)
            )
            failed = {str(item["itemIdentifier"]) for item in result.get("batchItemFailures", [])}  # SQS: message ids
        except BatchProcessingError:
            failed = {m["MessageId"] for m in messages}
        done = [m for m in messages if m["MessageId"] not in failed]
        with self._deferred_lock:
            for m in messages:
                if m["MessageId"] in failed:
                    self._deferred[m["MessageId"]] = m["ReceiptHandle"]
                else:
                    self._deferred.pop(m["MessageId"], None)
        if done:
            self.sqs.delete_message_batch(
                QueueUrl=self.queue_url,
                Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(done)],
            )
        return len(messages)

    def drain(self, max_batches: int = 100) -> int:
        """Process until a receive comes back empty (tests use this instead of waiting)."""
        total = 0
        for _ in range(max_batches):
            received = self.poll_once(wait_seconds=0)
            if received == 0:
                break
            total += received
        return total

    def make_deferred_visible(self) -> int:
        """Let the messages the handler deferred come back now rather than after their delay.

        Tests use this to stand for time passing, without sleeping. Messages already gone are skipped.
        """
        from botocore.exceptions import ClientError

        with self._deferred_lock:
            handles = list(self._deferred.values())
            self._deferred.clear()
        count = 0
        for handle in handles:
            try:
                self.sqs.change_message_visibility(QueueUrl=self.queue_url, ReceiptHandle=handle, VisibilityTimeout=0)
                count += 1
            except ClientError:
                continue
        return count

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="queue-poller", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.wait_seconds + 5)

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                self.poll_once()
            except Exception as exc:  # noqa: BLE001 - keep the local poller alive, like the Lambda poller
                print(f"[poller] error: {exc}", flush=True)
                self._stop.wait(2)
