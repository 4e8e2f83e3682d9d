"""The migration custom resource: brings the database schema to the newest revision on every deploy.

CloudFormation sends Create when the stack is created and Update whenever the resource's properties change (the
template passes the core layer's version, which changes with every new migration, config or code). Both run the
migrations under the PostgreSQL advisory lock through one service call. Delete does nothing: the data outlives the
stack's resource. CloudFormation always gets an answer (``session_scoring.entrypoints.custom_resource``): SUCCESS
with the revision, FAILED with the error as the reason (which fails and rolls back the deploy), or FAILED shortly
before the function would time out. The run is traced in X-Ray (``## migrate schema``).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from session_scoring.container import get_container
from session_scoring.entrypoints.custom_resource import answer_custom_resource
from session_scoring.log import logger
from session_scoring.observability import get_tracer, subsegment

tracer = get_tracer()


def upgrade_schema() -> tuple[str, dict[str, str]]:
    with subsegment("migrate schema"):
        state = get_container().schema_service.upgrade()
    return (
        f"database schema at revision {state.revision}",
        {"Revision": state.revision or "", "PreviousRevision": state.previous_revision or ""},
    )


@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler(capture_response=False)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return answer_custom_resource(event, context.get_remaining_time_in_millis() / 1000.0, upgrade_schema)
