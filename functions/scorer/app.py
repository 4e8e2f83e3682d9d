"""The scoring Lambda: consumes the scoring queue and the runs queue, one record at a time, with partial batch failures.

A record is a scoring job (handed to the job service) or, on the runs queue, a planning message (one page of a run's
selection is planned). A record that must come back later (or is no job) raises, so Powertools reports it in
``batchItemFailures``; SQS dead-letters it after the allowed receives. Each record is a ``## job`` X-Ray subsegment.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from session_scoring.container import get_container
from session_scoring.log import logger
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.runs import QueueMessage, RunPlanningJob
from session_scoring.observability import metrics, subsegment, traced_handler

if TYPE_CHECKING:
    from session_scoring.services.jobs import JobService

processor = BatchProcessor(event_type=EventType.SQS)

DEFAULT_REMAINING_SECONDS = 900.0


class JobDeferred(Exception):
    """The job must be delivered again; the record is reported as a batch item failure."""


def record_handler(record: SQSRecord, lambda_context: LambdaContext | None = None) -> str:
    message = QueueMessage.validate_json(record.body)
    if isinstance(message, RunPlanningJob):
        return plan_run(message)
    job: ScoringJob = message
    logger.append_keys(score_id=str(job.score_id), session_id=job.session_id)
    remaining = lambda_context.get_remaining_time_in_millis() / 1000.0 if lambda_context else DEFAULT_REMAINING_SECONDS
    try:
        with subsegment("job", score_id=str(job.score_id), session_id=job.session_id):
            outcome = job_service_for(record.get("eventSourceARN")).handle(
                job,
                receipt_handle=record.receipt_handle,
                receive_count=int(record.attributes.approximate_receive_count or 1),
                remaining_seconds=remaining,
            )
    finally:
        logger.remove_keys(["score_id", "session_id"])  # the next record of the batch has its own ids
    if not outcome.done:
        raise JobDeferred(outcome.reason)
    return outcome.reason


def job_service_for(queue_arn: str | None) -> JobService:
    """The job service for a record of the queue ``queue_arn`` (its ``eventSourceARN``): a runs-queue job's delays go
    back to the runs queue, any other's to the scoring queue."""
    container = get_container()
    runs_url = container.settings.runs_queue_url
    if queue_arn and runs_url and queue_arn.rsplit(":", 1)[-1] == runs_url.rstrip("/").rsplit("/", 1)[-1]:
        return container.run_job_service
    return container.job_service


def plan_run(message: RunPlanningJob) -> str:
    """A planning message of a scoring run (runs queue): plan one page of its selection."""
    logger.append_keys(run_id=str(message.run_id))
    try:
        outcome = get_container().run_service.plan_page(message)
    finally:
        logger.remove_keys(["run_id"])
    if not outcome.done:
        raise JobDeferred(outcome.reason)
    return outcome.reason


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True)
@traced_handler
def handler(event: dict[str, object], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
