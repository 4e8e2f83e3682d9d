"""The migration custom resource: brings the database schema to the newest revision on every deploy.

CloudFormation sends Create when the stack is created and Update whenever the resource's properties change (the
template passes the core layer's version, which changes with every new migration, config or code). Both run the
migrations under the PostgreSQL advisory lock through one service call. Delete does nothing: the data outlives the
stack's resource. CloudFormation always gets an answer: SUCCESS with the revision, FAILED with the error as the
reason (which fails and rolls back the deploy), and FAILED shortly before the function would time out.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from session_scoring.container import get_container
from session_scoring.errors import ScoringError
from session_scoring.log import logger

PHYSICAL_RESOURCE_ID = "session-scoring-database-schema"
RESPONSE_TIMEOUT_SECONDS = 15.0
TIMEOUT_MARGIN_SECONDS = 20.0
REASON_LIMIT = 1500  # CloudFormation caps the whole response at 4 KB


class CloudFormationResponse:
    """Answers one custom resource request exactly once (the timeout guard and the handler may race)."""

    def __init__(self, event: dict[str, Any]) -> None:
        self._event = event
        self._lock = threading.Lock()
        self.status: str | None = None

    def send(self, status: str, reason: str, data: dict[str, str] | None = None) -> bool:
        with self._lock:
            if self.status is not None:
                return False
            self.status = status
        body = json.dumps(
            {
                "Status": status,
                "Reason": reason[:REASON_LIMIT],
                "PhysicalResourceId": self._event.get("PhysicalResourceId") or PHYSICAL_RESOURCE_ID,
                "StackId": self._event["StackId"],
                "RequestId": self._event["RequestId"],
                "LogicalResourceId": self._event["LogicalResourceId"],
                "Data": data or {},
            }
        ).encode()
        url = str(self._event["ResponseURL"])
        if not url.startswith(("https://", "http://")):
            logger.error("custom resource response URL is not HTTP(S); no answer sent", extra={"status": status})
            return False
        request = urllib.request.Request(  # noqa: S310 - the URL is CloudFormation's pre-signed S3 URL (scheme checked)
            url, data=body, method="PUT", headers={"Content-Type": "", "Content-Length": str(len(body))}
        )
        try:
            with urllib.request.urlopen(request, timeout=RESPONSE_TIMEOUT_SECONDS) as answer:  # noqa: S310
                logger.info("answered CloudFormation", extra={"status": status, "http_status": answer.status})
        except OSError as exc:
            logger.error("could not answer CloudFormation", extra={"status": status, "error": str(exc)})
            return False
        return True


def _reason(exc: Exception) -> str:
    """What CloudFormation shows in the stack events: our errors say what to fix; anything else is named."""
    if isinstance(exc, ScoringError):
        return exc.message
    return f"database migration failed: {type(exc).__name__}: {exc}"


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    response = CloudFormationResponse(event)
    request_type = event.get("RequestType")
    budget = context.get_remaining_time_in_millis() / 1000.0 - TIMEOUT_MARGIN_SECONDS
    guard = threading.Timer(
        max(1.0, budget),
        response.send,
        args=("FAILED", "database migration did not finish before the migration function's timeout"),
    )
    guard.daemon = True
    guard.start()
    try:
        if request_type == "Delete":
            response.send("SUCCESS", "delete leaves the database schema and its data in place")
        elif request_type in ("Create", "Update"):
            state = get_container().schema_service.upgrade()
            response.send(
                "SUCCESS",
                f"database schema at revision {state.revision}",
                {"Revision": state.revision or "", "PreviousRevision": state.previous_revision or ""},
            )
        else:
            response.send("FAILED", f"unknown custom resource RequestType {request_type!r}")
    except Exception as exc:  # noqa: BLE001 - CloudFormation must get an answer whatever failed
        logger.exception("database migration failed")
        response.send("FAILED", _reason(exc))
    finally:
        guard.cancel()
    return {"Status": response.status, "RequestType": request_type}
