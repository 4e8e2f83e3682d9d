"""The scoring queue (SQS) and its dead-letter queue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from session_scoring.errors import ConfigurationError, QueueUnavailableError
from session_scoring.models.jobs import ScoringJob


class JobQueue(Protocol):
    def send(self, job: ScoringJob) -> None: ...


MAX_VISIBILITY_SECONDS = 43_200


@dataclass(frozen=True)
class QueuedMessage:
    """A message received from a queue, as the redrive tools see it."""

    message_id: str
    receipt_handle: str
    body: str
    receive_count: int


class SqsJobQueue:
    """Sends scoring jobs to SQS. Any failure becomes QueueUnavailableError (the API answers 503)."""

    def __init__(self, client: Any, queue_url: str | None) -> None:
        if not queue_url:
            raise ConfigurationError("SCORING_QUEUE_URL is not set; the API cannot queue scoring jobs")
        self._client = client
        self._url = queue_url

    def send(self, job: ScoringJob) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            self._client.send_message(QueueUrl=self._url, MessageBody=job.model_dump_json())
        except (BotoCoreError, ClientError) as exc:
            raise QueueUnavailableError(f"the scoring queue did not accept the job: {exc}") from exc

    def delay(self, receipt_handle: str, seconds: int) -> None:
        """Make a received message visible again only after ``seconds`` (capped at SQS's 12 hours)."""
        self._client.change_message_visibility(
            QueueUrl=self._url, ReceiptHandle=receipt_handle, VisibilityTimeout=min(MAX_VISIBILITY_SECONDS, seconds)
        )
