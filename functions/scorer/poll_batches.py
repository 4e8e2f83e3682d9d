"""The batch poller function (an EventBridge schedule, every 5 minutes): submit batch-mode runs' attempts to Message
Batches and collect the verdicts of ended batches. An error raises: the function's Errors metric drives its alarm."""

from __future__ import annotations

from aws_lambda_powertools.utilities.typing import LambdaContext

from session_scoring.container import get_container
from session_scoring.log import logger
from session_scoring.observability import Metric, count, metrics, traced_handler


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True)
@traced_handler
def handler(event: dict[str, object], context: LambdaContext) -> dict[str, object]:
    result = get_container().batch_poller.poll(context.get_remaining_time_in_millis() / 1000.0)
    count(Metric.BATCH_REQUESTS_SUBMITTED, result.submitted)
    count(Metric.RUNS_STUCK_PLANNING, result.runs_stuck_planning)  # every tick, zero included: its alarm's gauge
    return {**result.counts(), "notes": result.notes[:50]}
