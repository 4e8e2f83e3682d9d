"""The scoring queue (SQS) and its dead-letter queue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from session_scoring.errors import ConfigurationError, QueueUnavailableError
from session_scoring.infrastructure.aws import aws_call
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.runs import RunPlanningJob


class JobQueue(Protocol):
    def send(self, job: ScoringJob) -> None: ...


MAX_VISIBILITY_SECONDS = 43_200
MAX_DELAY_SECONDS = 900
"""SQS's longest ``DelaySeconds`` on a sent message."""


def _approximate_count(client: Any, queue_url: str, failure: str) -> int:
    """Messages waiting or in flight, as SQS approximates them."""
    names = ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"]
    attributes = aws_call(
        client, "get_queue_attributes", QueueUnavailableError, failure, QueueUrl=queue_url, AttributeNames=names
    )["Attributes"]
    return sum(int(attributes.get(name, 0)) for name in names)


@dataclass(frozen=True)
class QueuedMessage:
    """A message received from a queue, as the redrive tools see it."""

    message_id: str
    receipt_handle: str
    body: str
    receive_count: int


class SqsQueue:
    """A queue the service sends to. Any failure becomes QueueUnavailableError (the API answers 503)."""

    unset = "SCORING_QUEUE_URL is not set; the API cannot queue scoring jobs"
    """The configuration error when the queue's URL is not set."""

    def __init__(self, client: Any, queue_url: str | None) -> None:
        if not queue_url:
            raise ConfigurationError(self.unset)
        self._client = client
        self._url = queue_url

    def _send(self, failure: str, body: str, **options: Any) -> None:
        aws_call(
            self._client,
            "send_message",
            QueueUnavailableError,
            failure,
            QueueUrl=self._url,
            MessageBody=body,
            **options,
        )


class SqsJobQueue(SqsQueue):
    """Sends scoring jobs to SQS."""

    def send(self, job: ScoringJob) -> None:
        self._send("the scoring queue did not accept the job", job.model_dump_json())

    def send_later(self, job: ScoringJob, delay_seconds: int) -> None:
        """Send ``job`` as a new message delivered after ``delay_seconds`` (SQS ``DelaySeconds``, 0 to 900): a fresh
        message whose receive count starts at zero. QueueUnavailableError when SQS does not accept it."""
        if not 0 <= delay_seconds <= MAX_DELAY_SECONDS:
            raise ValueError(f"delay_seconds must be 0 to {MAX_DELAY_SECONDS} (SQS DelaySeconds), not {delay_seconds}")
        self._send("the queue did not accept the delayed job", job.model_dump_json(), DelaySeconds=delay_seconds)

    def depth(self) -> int:
        """Jobs waiting or in flight (SQS's approximate counts); QueueUnavailableError when SQS does not answer."""
        return _approximate_count(self._client, self._url, "the scoring queue did not answer")

    def delay(self, receipt_handle: str, seconds: int) -> None:
        """Make a received message visible again only after ``seconds`` (capped at SQS's 12 hours)."""
        self._client.change_message_visibility(
            QueueUrl=self._url, ReceiptHandle=receipt_handle, VisibilityTimeout=min(MAX_VISIBILITY_SECONDS, seconds)
        )


class SqsRunsQueue(SqsJobQueue):
    """The runs queue: the jobs of scoring runs and their planning messages, apart from single requests."""

    unset = "SCORING_RUNS_QUEUE_URL is not set; scoring runs need their own queue (the RunsQueue of the template)"

    def send_many(self, jobs: list[ScoringJob]) -> None:
        """Send jobs ten at a time (``SendMessageBatch``): a planned page of 100 costs 10 calls, not 100. Raises
        QueueUnavailableError when any is refused (a replayed page sends the run's pending attempts again)."""
        for start in range(0, len(jobs), 10):
            entries = [
                {"Id": str(i), "MessageBody": job.model_dump_json()} for i, job in enumerate(jobs[start : start + 10])
            ]
            failure = "the runs queue did not accept the jobs"
            answer = aws_call(
                self._client, "send_message_batch", QueueUnavailableError, failure, QueueUrl=self._url, Entries=entries
            )
            failed = answer.get("Failed", [])
            if failed:
                raise QueueUnavailableError(f"the runs queue refused {len(failed)} job(s): {failed[0].get('Message')}")

    def send_planning(self, job: RunPlanningJob) -> None:
        self._send("the runs queue did not accept the planning message", job.model_dump_json())


@dataclass(frozen=True)
class MoveTaskStatus:
    """Progress of an SQS message move task (StartMessageMoveTask)."""

    status: str
    moved: int
    to_move: int | None
    failure_reason: str | None = None


class MoveTaskUnsupportedError(Exception):
    """The SQS endpoint does not implement StartMessageMoveTask (moto); move messages one by one instead."""


class SqsDeadLetterQueue:
    """The dead-letter queue and the scoring queue it drains back into, as the redrive service needs them."""

    def __init__(
        self, client: Any, queue_url: str | None, dead_letter_queue_url: str | None, use_move_task: bool = True
    ) -> None:
        if not queue_url or not dead_letter_queue_url:
            raise ConfigurationError(
                "SCORING_QUEUE_URL and SCORING_DLQ_URL must both be set to inspect or redrive dead letters"
            )
        self._client = client
        self.queue_url = queue_url
        self.dead_letter_queue_url = dead_letter_queue_url
        self.use_move_task = use_move_task

    def _call(self, operation: str, **kwargs: Any) -> Any:
        return aws_call(self._client, operation, QueueUnavailableError, f"SQS {operation} failed", **kwargs)

    def approximate_count(self) -> int:
        """Messages waiting in the dead-letter queue (visible and in flight), as SQS approximates them."""
        return _approximate_count(self._client, self.dead_letter_queue_url, "SQS get_queue_attributes failed")

    def receive(self, hold_seconds: int) -> list[QueuedMessage]:
        """Up to 10 dead letters, hidden from other readers for ``hold_seconds``."""
        response = self._call(
            "receive_message",
            QueueUrl=self.dead_letter_queue_url,
            MaxNumberOfMessages=10,
            WaitTimeSeconds=0,
            VisibilityTimeout=hold_seconds,
            AttributeNames=["ApproximateReceiveCount"],
        )
        return [
            QueuedMessage(
                message_id=m["MessageId"],
                receipt_handle=m["ReceiptHandle"],
                body=m["Body"],
                receive_count=int(m.get("Attributes", {}).get("ApproximateReceiveCount", "1")),
            )
            for m in response.get("Messages", [])
        ]

    def release(self, message: QueuedMessage) -> None:
        """Make a held dead letter visible again."""
        self._call(
            "change_message_visibility",
            QueueUrl=self.dead_letter_queue_url,
            ReceiptHandle=message.receipt_handle,
            VisibilityTimeout=0,
        )

    def resend(self, message: QueuedMessage) -> None:
        """Move one dead letter by hand: send its body to the scoring queue, then delete it from the DLQ."""
        self._call("send_message", QueueUrl=self.queue_url, MessageBody=message.body)
        self._call("delete_message", QueueUrl=self.dead_letter_queue_url, ReceiptHandle=message.receipt_handle)

    def _arn(self, url: str) -> str:
        attributes = self._call("get_queue_attributes", QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]
        return str(attributes["QueueArn"])

    def start_move_task(self) -> str:
        """Start SQS's own redrive (StartMessageMoveTask) from the DLQ to the scoring queue; returns its handle."""
        from botocore.exceptions import ClientError

        if not self.use_move_task:
            raise MoveTaskUnsupportedError("StartMessageMoveTask is off (SCORING_REDRIVE_METHOD, or a local endpoint)")

        try:
            response = self._client.start_message_move_task(
                SourceArn=self._arn(self.dead_letter_queue_url), DestinationArn=self._arn(self.queue_url)
            )
        except ClientError as exc:
            code = str(exc.response.get("Error", {}).get("Code", ""))
            if code in {"InvalidAction", "UnsupportedOperation", "NotImplemented"}:
                raise MoveTaskUnsupportedError(str(exc)) from exc
            raise QueueUnavailableError(f"SQS StartMessageMoveTask failed: {exc}") from exc
        return str(response["TaskHandle"])

    def move_task_status(self, task_handle: str) -> MoveTaskStatus:
        tasks = self._call("list_message_move_tasks", SourceArn=self._arn(self.dead_letter_queue_url), MaxResults=10)
        for task in tasks.get("Results", []):
            if task.get("TaskHandle") in (task_handle, None) or task.get("Status") == "RUNNING":
                return MoveTaskStatus(
                    status=str(task.get("Status", "UNKNOWN")),
                    moved=int(task.get("ApproximateNumberOfMessagesMoved", 0)),
                    to_move=task.get("ApproximateNumberOfMessagesToMove"),
                    failure_reason=task.get("FailureReason"),
                )
        return MoveTaskStatus(status="UNKNOWN", moved=0, to_move=None)
