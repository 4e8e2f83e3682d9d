"""One error hierarchy for the whole service.

Each error says what went wrong and what to do about it. The API maps them to HTTP status codes in one place
(``STATUS_BY_ERROR`` in ``functions/api/app.py``) and the scorer maps them to retry/ack in one place
(``outcome_for_error`` in ``services/scorer.py``).
"""

from __future__ import annotations

from datetime import datetime


class ScoringError(Exception):
    """Base of every error this service raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ConfigurationError(ScoringError):
    """The service is misconfigured: a setting, the scoring YAML or a credential. An operator must fix it."""


class InvalidRequestError(ScoringError):
    """The caller sent something we cannot act on (bad session id, bad parameter)."""


class SessionNotFoundError(ScoringError):
    """The session source does not know the session."""


class SessionNotScorableError(ScoringError):
    """The session exists but cannot be scored (e.g. it is still running)."""

    def __init__(self, message: str, status: str) -> None:
        super().__init__(message)
        self.status = status


class SessionDataError(ScoringError):
    """The source answered with data we cannot parse; names the offending field."""


class SourceUnavailableError(ScoringError):
    """The session source could not be reached or failed; worth retrying later."""


class ScoreNotFoundError(ScoringError):
    """No score attempt exists for the session or id."""


class ScoringDisabledError(ScoringError):
    """Scoring is switched off in the configuration."""


class SecretUnavailableError(ScoringError):
    """Secrets Manager could not be reached or throttled us; worth retrying."""


class QueueUnavailableError(ScoringError):
    """The scoring queue could not accept the job."""


class DatabaseUnavailableError(ScoringError):
    """The database could not be reached or the operation failed after its retry."""


class JudgeError(ScoringError):
    """Base of judge failures."""


class JudgeTransientError(JudgeError):
    """A judge failure that may go away: rate limits, overload, 5xx, timeouts, connection errors."""

    def __init__(self, message: str, retry_after_seconds: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds


class JudgePermanentError(JudgeError):
    """A judge failure that retrying will not fix: bad request, authentication, permissions."""


class JudgeOutputError(JudgeError):
    """The judge answered, but not with a valid verdict (after the repair turn)."""


class PromptTooLargeError(JudgeError):
    """The rendered session does not fit the judge's input budget even after compaction."""


class JudgeUnavailableError(JudgeError):
    """The circuit breaker is open: the judge is not called until ``retry_at``."""

    def __init__(self, message: str, retry_at: datetime) -> None:
        super().__init__(message)
        self.retry_at = retry_at
