"""One error hierarchy for the whole service, in two categories.

Each error says what went wrong and what to do about it. Every concrete error is either *transient* (something is
unavailable right now; the same call may succeed later) or *permanent* (retrying the same thing will not help: the
request, the data or the configuration must change). The category is the decision: the API answers 503 for a
transient error and the scorer puts the attempt back for a later try; a permanent error fails the attempt for good
(``outcome_for_error`` in ``services/scorer.py``) and gets the status its class asks for, else 500
(``functions/api/errors.py``)::

    ScoringError
    |-- TransientError                  unavailable now, worth retrying later
    |   |-- SourceUnavailableError
    |   |-- QueueUnavailableError
    |   |-- StorageUnavailableError     the exports bucket (S3)
    |   |-- DatabaseUnavailableError
    |   |-- SecretUnavailableError
    |   |-- WriteBackUnavailableError   a trace store could not take a verdict (write-back)
    |   |-- ScoringDisabledError        until an operator switches scoring back on
    |   |-- JudgeTransientError         (also a JudgeError)
    |   `-- JudgeUnavailableError       circuit open (also a JudgeError)
    |-- PermanentError                  retrying will not help
    |   |-- InvalidRequestError
    |   |   `-- InvalidParametersError  422: parameters outside their choices or not combinable; a label off the rubric
    |   |-- AuthenticationRequiredError 401: no identity where one is required
    |   |-- RoleRequiredError           403: an identity without the role the action needs
    |   |-- SessionNotFoundError
    |   |-- ScoreNotFoundError
    |   |-- RunNotFoundError
    |   |-- CriteriaNotFoundError
    |   |-- ExportNotFoundError
    |   |-- ExportModeError           this deployment serves exports the other way (stream vs job)
    |   |-- ExportTimeLimitError      an export job did not finish within the exporter's time
    |   |-- SessionNotScorableError
    |   |-- AttemptConflictError      409: the session's active attempt kept changing under a request
    |   |-- SessionDataError
    |   |-- ConfigurationError
    |   |-- WriteBackRejectedError      a trace store refused a verdict (write-back)
    |   |-- JudgePermanentError         (also a JudgeError)
    |   |-- JudgeOutputError            (also a JudgeError)
    |   `-- PromptTooLargeError         (also a JudgeError)
    `-- JudgeError                      what failed (the judge), not a category; catch it to handle any judge failure
"""

from __future__ import annotations

from datetime import datetime


class ScoringError(Exception):
    """Base of every error this service raises on purpose."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class TransientError(ScoringError):
    """Something the service needs is unavailable right now; the same call may succeed later."""


class PermanentError(ScoringError):
    """Retrying the same thing will not help: the request, the session's data or the configuration must change."""


class ConfigurationError(PermanentError):
    """The service is misconfigured: a setting, the scoring YAML or a credential. An operator must fix it."""


class InvalidRequestError(PermanentError):
    """The caller sent something we cannot act on (bad session id, bad parameter)."""


class InvalidParametersError(InvalidRequestError):
    """Query parameters outside their choices, or that cannot be combined (e.g. ``scored=unscored&band=good``); or a
    request body's value that only the service can check, such as a label's breakdown against the rubric in force."""


class AuthenticationRequiredError(PermanentError):
    """The API requires an authenticated caller (a JWT authorizer's claims, or a trusted proxy's user header) and
    the request carried none."""


class RoleRequiredError(PermanentError):
    """The caller is known but lacks the role the action needs (``required_role``): a viewer starting a run, say.
    Retrying will not help; someone must grant the role (a group or scope the role mapping names)."""

    def __init__(self, message: str, required_role: str) -> None:
        super().__init__(message)
        self.required_role = required_role


class SessionNotFoundError(PermanentError):
    """The session source does not know the session."""


class SessionNotScorableError(PermanentError):
    """The session exists but cannot be scored (e.g. it is still running)."""

    def __init__(self, message: str, status: str) -> None:
        super().__init__(message)
        self.status = status


class AttemptConflictError(PermanentError):
    """A score request found no active attempt to answer with, yet could not create one, more than once in a row:
    concurrent requests and scorers kept changing the session's attempt. The same request may succeed a moment later
    (409: GET the score, or send it again)."""


class SessionDataError(PermanentError):
    """The source answered with data we cannot parse; names the offending field."""


class SourceUnavailableError(TransientError):
    """The session source could not be reached or failed; worth retrying later."""


class ScoreNotFoundError(PermanentError):
    """No score attempt exists for the session or id."""


class CriteriaNotFoundError(PermanentError):
    """No criteria definition has the hash."""


class RunNotFoundError(PermanentError):
    """No scoring run has the id."""


class ExportNotFoundError(PermanentError):
    """No export job has the id."""


class ExportModeError(PermanentError):
    """The export was asked for the way this deployment does not serve it: streamed where exports are S3 jobs (the
    answer would outgrow a Lambda response), or as a job where no exports bucket is configured. ``allow`` is the HTTP
    method that is served instead."""

    def __init__(self, message: str, allow: str) -> None:
        super().__init__(message)
        self.allow = allow


class ExportTimeLimitError(PermanentError):
    """An export job ran out of the exporter function's time: the selection is too large for one job."""


class ScoringDisabledError(TransientError):
    """Scoring is switched off in the configuration; it is unavailable until an operator switches it on."""


class SecretUnavailableError(TransientError):
    """Secrets Manager could not be reached or throttled us; worth retrying."""


class WriteBackUnavailableError(TransientError):
    """The trace store a verdict is written back to could not be reached or failed; the write-back is retried."""


class WriteBackRejectedError(PermanentError):
    """The trace store refused the verdict (its trace is gone, or the request does not fit its API)."""


class QueueUnavailableError(TransientError):
    """The scoring queue could not accept the job."""


class StorageUnavailableError(TransientError):
    """The exports bucket (S3) could not be written or its download URL could not be made."""


class DatabaseUnavailableError(TransientError):
    """The database could not be reached or the operation failed after its retry."""


class JudgeError(ScoringError):
    """Base of judge failures; each concrete one is also transient or permanent."""


class JudgeTransientError(JudgeError, TransientError):
    """A judge failure that may go away: rate limits, overload, 5xx, timeouts, connection errors."""

    def __init__(self, message: str, retry_after_seconds: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds


class JudgePermanentError(JudgeError, PermanentError):
    """A judge failure that retrying will not fix: bad request, authentication, permissions."""


class JudgeOutputError(JudgeError, PermanentError):
    """The judge answered, but not with a valid verdict (after the repair turn)."""


class PromptTooLargeError(JudgeError, PermanentError):
    """The rendered session does not fit the judge's input budget even after compaction."""


class JudgeUnavailableError(JudgeError, TransientError):
    """The circuit breaker is open: the judge is not called until ``retry_at``."""

    def __init__(self, message: str, retry_at: datetime) -> None:
        super().__init__(message)
        self.retry_at = retry_at
