"""The exporter Lambda: runs the export job each exports-queue record names (batch size 1). The outcome is recorded on
the job, so the record is acknowledged whatever the export's fate; only a database that cannot record it raises (the
record comes back, and after the last delivery waits in the exports dead-letter queue, which an alarm watches).
"""

from __future__ import annotations

from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from session_scoring.container import get_container
from session_scoring.log import logger
from session_scoring.models.export import ExportMessage
from session_scoring.observability import get_tracer, metrics

processor = BatchProcessor(event_type=EventType.SQS)
tracer = get_tracer()

DEFAULT_REMAINING_SECONDS = 900.0


def record_handler(record: SQSRecord, lambda_context: LambdaContext | None = None) -> str:
    message = ExportMessage.model_validate_json(record.body)
    remaining = lambda_context.get_remaining_time_in_millis() / 1000.0 if lambda_context else DEFAULT_REMAINING_SECONDS
    receive_count = int(record.attributes.approximate_receive_count or 1)
    logger.append_keys(export_id=str(message.export_id))
    try:
        return get_container().training_export.run(message, receive_count, remaining)
    finally:
        logger.remove_keys(["export_id"])


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, object], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor, context=context)
