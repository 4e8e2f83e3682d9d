"""What every judge SDK's errors map to, whatever the SDK: one table for the Anthropic, OpenAI and Google Gen AI
judges (each module only reads its SDK's exception for the status, message and headers).

408, 409, 429 and 5xx are transient (retried, counted by the breaker; a ``retry-after`` longer than the scorer waits
defers the job); 413 is a prompt too large; 401 and 403 are our credentials, said with where the key comes from;
any other status is a permanent rejection. Timeouts and connection errors are transient.
"""

from __future__ import annotations

from typing import Any

from session_scoring.errors import JudgePermanentError, JudgeTransientError, PromptTooLargeError

TRANSIENT_STATUS = frozenset({408, 409, 429})
"""Statuses below 500 that another try may well get through."""


def retry_after_seconds(headers: Any) -> float | None:
    """``retry-after-ms`` or ``retry-after`` (seconds) of an error answer's headers."""
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return max(0.0, float(headers.get(name)) * scale)
        except (TypeError, ValueError):  # absent, or not a number
            continue
    return None


def timed_out(exc: Exception) -> JudgeTransientError:
    return JudgeTransientError(f"the judge did not answer in time ({exc.__class__.__name__})")


def unreachable(exc: Exception) -> JudgeTransientError:
    return JudgeTransientError(f"cannot reach the judge: {exc.__class__.__name__}: {exc}")


def status_error(status: int, message: str, headers: Any, credentials: str) -> Exception:
    """The error an answer with ``status`` stands for; ``credentials``: where to look when the key is refused."""
    if status == 413:
        return PromptTooLargeError(f"the judge rejected the request as too large (413): {message}")
    if status in TRANSIENT_STATUS or status >= 500:
        return JudgeTransientError(
            f"the judge answered {status}: {message}", retry_after_seconds=retry_after_seconds(headers)
        )
    if status in (401, 403):
        return JudgePermanentError(f"the judge refused our credentials ({status}: {message}); check {credentials}")
    return JudgePermanentError(f"the judge rejected the request ({status}: {message})")
