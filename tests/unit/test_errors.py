"""Every concrete error has a category and, from it, an HTTP answer and a scorer decision.

``DECISIONS`` lists each concrete error class once with what the API answers and what the scorer does with the
attempt. A new error class that is not listed here (so nobody decided how it is answered and retried), or that is
in neither category, fails these tests.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from functions.api.errors import status_and_code
from session_scoring import errors
from session_scoring.errors import JudgeError, PermanentError, ScoringError, TransientError
from session_scoring.services.scorer import ScorerPolicy, outcome_for_error

ABSTRACT = {ScoringError, TransientError, PermanentError, JudgeError}
"""Bases that are never raised themselves."""

POLICY = ScorerPolicy(
    lease_seconds=900, max_receive_count=5, judge_timeout_seconds=120, judge_max_retries=3, judge_retry_base_seconds=1
)

# class name: (category, HTTP status, API code, the scorer's action on an early delivery)
DECISIONS: dict[str, tuple[type[ScoringError], int, str, str]] = {
    "InvalidRequestError": (PermanentError, 400, "invalid_request", "fail"),
    "InvalidParametersError": (PermanentError, 422, "invalid_parameters", "fail"),
    "AuthenticationRequiredError": (PermanentError, 401, "authentication_required", "fail"),
    "RoleRequiredError": (PermanentError, 403, "role_required", "fail"),
    "SessionNotScorableError": (PermanentError, 400, "session_not_scorable", "fail"),
    "SessionNotFoundError": (PermanentError, 404, "session_not_found", "fail"),
    "ScoreNotFoundError": (PermanentError, 404, "score_not_found", "fail"),
    "RunNotFoundError": (PermanentError, 404, "run_not_found", "fail"),
    "CriteriaNotFoundError": (PermanentError, 404, "criteria_not_found", "fail"),
    "ExportNotFoundError": (PermanentError, 404, "export_not_found", "fail"),
    "ExportModeError": (PermanentError, 405, "export_mode", "fail"),
    "ExportTimeLimitError": (PermanentError, 500, "export_time_limit", "fail"),
    "SessionDataError": (PermanentError, 502, "session_data_invalid", "fail"),
    "AttemptConflictError": (PermanentError, 409, "attempt_conflict", "fail"),
    "ConfigurationError": (PermanentError, 500, "configuration_error", "fail"),
    "JudgePermanentError": (PermanentError, 500, "judge_permanent", "fail"),
    "JudgeOutputError": (PermanentError, 500, "judge_output", "fail"),
    "PromptTooLargeError": (PermanentError, 500, "prompt_too_large", "fail"),
    "ScoringDisabledError": (TransientError, 503, "scoring_disabled", "release"),
    "QueueUnavailableError": (TransientError, 503, "queue_unavailable", "release"),
    "SourceUnavailableError": (TransientError, 503, "source_unavailable", "release"),
    "DatabaseUnavailableError": (TransientError, 503, "database_unavailable", "release"),
    "SecretUnavailableError": (TransientError, 503, "secret_unavailable", "release"),
    "StorageUnavailableError": (TransientError, 503, "storage_unavailable", "release"),
    "JudgeTransientError": (TransientError, 503, "judge_transient", "release"),
    "JudgeUnavailableError": (TransientError, 503, "judge_unavailable", "release"),
    "WriteBackUnavailableError": (TransientError, 503, "write_back_unavailable", "release"),
    "WriteBackRejectedError": (PermanentError, 500, "write_back_rejected", "fail"),
}


def _concrete_errors() -> set[type[ScoringError]]:
    found: set[type[ScoringError]] = set()
    pending = [ScoringError]
    while pending:
        for sub in pending.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                pending.append(sub)
    return found - ABSTRACT


def _instance(error_type: type[ScoringError]) -> ScoringError:
    message = f"{error_type.__name__}: what went wrong"
    if error_type is errors.SessionNotScorableError:
        return errors.SessionNotScorableError(message, status="in_progress")
    if error_type is errors.ExportModeError:
        return errors.ExportModeError(message, allow="POST")
    if error_type is errors.RoleRequiredError:
        return errors.RoleRequiredError(message, required_role="operator")
    if error_type is errors.JudgeUnavailableError:
        return errors.JudgeUnavailableError(message, retry_at=datetime.now(UTC))
    return error_type(message)


def test_every_concrete_error_has_a_decision() -> None:
    assert {cls.__name__ for cls in _concrete_errors()} == set(DECISIONS)


@pytest.mark.parametrize("error_type", sorted(_concrete_errors(), key=lambda cls: cls.__name__), ids=str)
def test_each_error_is_in_exactly_one_category(error_type: type[ScoringError]) -> None:
    category = DECISIONS[error_type.__name__][0]

    assert issubclass(error_type, category)
    assert issubclass(error_type, TransientError) != issubclass(error_type, PermanentError)


@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_the_api_answers_each_error_with_its_status_and_code(name: str) -> None:
    _, status, code, _ = DECISIONS[name]

    assert status_and_code(_instance(getattr(errors, name))) == (status, code)


@pytest.mark.parametrize("name", sorted(DECISIONS))
def test_the_scorer_fails_permanent_errors_and_releases_transient_ones(name: str) -> None:
    _, _, _, action = DECISIONS[name]
    error = _instance(getattr(errors, name))

    decided, outcome = outcome_for_error(error, receive_count=1, policy=POLICY)

    assert decided == action
    assert outcome.done == (action == "fail")
    if name != "JudgeUnavailableError":  # an open circuit's note says when instead (test_worker_outcomes)
        assert error.message in outcome.reason


def test_an_error_outside_both_categories_is_a_logged_500() -> None:
    assert status_and_code(ScoringError("no category")) == (500, "internal_error")
    assert status_and_code(JudgeError("no category")) == (500, "internal_error")


@pytest.mark.parametrize(
    "message",
    [
        "session 'x' was not found in TARSy at http://127.0.0.1:8798",
        "cannot reach MLflow at https://mlflow.internal.example:5000/api (ConnectError)",
        "connection to server at 10.0.3.7:5432 failed",
        "at [fd00::1]:5432 and localhost:8000",
    ],
)
def test_an_answer_never_carries_an_internal_address(message: str) -> None:
    from functions.api.errors import WITHHELD, public_detail

    shown = public_detail(message)

    assert WITHHELD in shown
    for internal in ("127.0.0.1", "mlflow.internal", "10.0.3.7", "fd00", "localhost"):
        assert internal not in shown
