"""Answering the migration custom resource's requests: exactly once, and before the function times out.

CloudFormation waits (up to an hour) for an answer PUT to the request's pre-signed ``ResponseURL``; a function that
dies without answering leaves the stack hanging. :func:`answer_custom_resource` runs the action for Create and
Update, does nothing for Delete, and always answers: SUCCESS with the action's reason and data, FAILED with the
error, or FAILED shortly before the function's time runs out.
"""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Callable
from typing import Any

from session_scoring.errors import ScoringError
from session_scoring.log import logger

PHYSICAL_RESOURCE_ID = "session-scoring-database-schema"
RESPONSE_TIMEOUT_SECONDS = 15.0
TIMEOUT_MARGIN_SECONDS = 20.0
REASON_LIMIT = 1500  # CloudFormation caps the whole response at 4 KB
DELETE_REASON = "delete leaves the database schema and its data in place"
TIMEOUT_REASON = "database migration did not finish before the migration function's timeout"


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


def failure_reason(exc: Exception) -> str:
    """What CloudFormation shows in the stack events: our errors say what to fix; anything else is named."""
    if isinstance(exc, ScoringError):
        return exc.message
    return f"database migration failed: {type(exc).__name__}: {exc}"


def answer_custom_resource(
    event: dict[str, Any], seconds_left: float, action: Callable[[], tuple[str, dict[str, str]]]
) -> dict[str, Any]:
    """Run ``action`` (which returns a reason and data) for Create/Update and answer CloudFormation once."""
    response = CloudFormationResponse(event)
    request_type = event.get("RequestType")
    guard = threading.Timer(
        max(1.0, seconds_left - TIMEOUT_MARGIN_SECONDS), response.send, args=("FAILED", TIMEOUT_REASON)
    )
    guard.daemon = True
    guard.start()
    try:
        if request_type == "Delete":
            response.send("SUCCESS", DELETE_REASON)
        elif request_type in ("Create", "Update"):
            reason, data = action()
            response.send("SUCCESS", reason, data)
        else:
            response.send("FAILED", f"unknown custom resource RequestType {request_type!r}")
    except Exception as exc:  # noqa: BLE001 - CloudFormation must get an answer whatever failed
        logger.exception("custom resource action failed")
        response.send("FAILED", failure_reason(exc))
    finally:
        guard.cancel()
    return {"Status": response.status, "RequestType": request_type}
