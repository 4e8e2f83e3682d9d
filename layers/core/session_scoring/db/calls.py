"""How a repository operation meets a database that is down, frozen or restarting.

Every repository method is one transaction wrapped in :func:`db_call`: a connection-level failure is retried once
(the whole transaction, so a score is stored whole or not at all), then raised as :class:`DatabaseUnavailableError`,
which the API answers with 503 and the scorer treats as transient (the message comes back later).

What counts as connection-level (:func:`is_connection_failure`): what pg8000 raises through SQLAlchemy when it cannot
connect (``InterfaceError``: "Can't create a connection"), a server that went away (``OperationalError``, or any
DBAPI error that invalidated its connection), and the socket errors and timeouts that escape unwrapped (a frozen
server answers nothing until ``SCORING_DATABASE_TIMEOUT_SECONDS``). Constraint violations and bad SQL are not.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from tenacity import retry, retry_if_exception, stop_after_attempt, wait_fixed

from session_scoring.errors import DatabaseUnavailableError
from session_scoring.log import logger

P = ParamSpec("P")
T = TypeVar("T")

RETRY_WAIT_SECONDS = 0.5


def is_connection_failure(exc: BaseException) -> bool:
    """True for failures to reach or keep the database, false for errors in what was asked of it."""
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    if isinstance(exc, DBAPIError):
        return bool(exc.connection_invalidated)
    return isinstance(exc, OSError)  # TimeoutError and ConnectionError included


def db_call(func: Callable[P, T]) -> Callable[P, T]:
    """Retry a repository operation once on a connection failure, then raise DatabaseUnavailableError."""
    retrying = retry(
        retry=retry_if_exception(is_connection_failure),
        stop=stop_after_attempt(2),
        wait=wait_fixed(RETRY_WAIT_SECONDS),
        reraise=True,
    )(func)

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return retrying(*args, **kwargs)
        except Exception as exc:
            if not is_connection_failure(exc):
                raise
            cause = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
            logger.warning("database unavailable", extra={"operation": func.__name__, "error": str(cause)})
            raise DatabaseUnavailableError(
                f"the database is unavailable ({type(cause).__name__}); the operation was retried once"
            ) from exc

    return wrapper
