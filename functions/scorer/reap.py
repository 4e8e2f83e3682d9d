"""The reaper function (an EventBridge schedule, every minute): requeue or fail the attempts whose queue message or
scorer is gone (the reaper publishes its metrics)."""

from __future__ import annotations

from aws_lambda_powertools.utilities.typing import LambdaContext

from session_scoring.container import get_container
from session_scoring.log import logger
from session_scoring.observability import metrics, traced_handler


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True)
@traced_handler
def handler(event: dict[str, object], context: LambdaContext) -> dict[str, object]:
    result = get_container().reaper.reap()
    return {
        "requeued": result.requeued,
        "failed": result.failed,
        "planning_resent": result.planning_resent,
        "notes": result.notes[:50],
    }
