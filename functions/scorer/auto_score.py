"""The auto-scoring function (an EventBridge schedule, disabled unless AutoScoringEnabled): start the auto run of
unscored completed sessions that is due, if any."""

from __future__ import annotations

from aws_lambda_powertools.utilities.typing import LambdaContext

from session_scoring.container import get_container
from session_scoring.log import logger
from session_scoring.observability import metrics, traced_handler


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics(capture_cold_start_metric=True)
@traced_handler
def handler(event: dict[str, object], context: LambdaContext) -> dict[str, object]:
    outcome = get_container().auto_scorer.tick()
    return {"run_id": None if outcome.run_id is None else str(outcome.run_id), "reason": outcome.reason}
