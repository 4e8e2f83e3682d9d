"""How a repository operation meets a database that is down, frozen or restarting.

Every repository method is wrapped in :func:`db_call`; each is one statement or one short transaction, so a retry
never repeats half of one. A connection-level failure (:func:`is_connection_failure`: no connection, a server that
went away, is shutting down, starting or full, a socket error or timeout; never a constraint violation or bad SQL) is
retried once (at once when only the pooled connection had died, after a short pause when the server itself failed),
then raised as :class:`DatabaseUnavailableError`, which the API answers with 503 and the scorer treats as transient.
An exhausted connection pool (every connection busy for ``SCORING_DATABASE_TIMEOUT_SECONDS``) is unavailability too,
raised at once without the retry, which would only wait as long again.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from tenacity import RetryCallState, retry, retry_if_exception, stop_after_attempt

from session_scoring.db.engine import server_sqlstate
from session_scoring.errors import DatabaseUnavailableError
from session_scoring.log import logger

P = ParamSpec("P")
T = TypeVar("T")

SERVER_ERROR_PAUSE_SECONDS = 0.5
"""Pause before the retry when the server itself failed (a restart); a dead pooled connection retries at once."""


STATEMENT_TIMEOUT_SQLSTATE = "57014"
"""``query_canceled``: a statement ran past SCORING_DATABASE_STATEMENT_TIMEOUT_MS. The database is too busy for it
now; raised as unavailability (503 with Retry-After) at once, without a retry that would only wait as long again."""

UNAVAILABLE_SQLSTATE_PREFIXES = ("08", "57P", "53300")
"""Connection exceptions, the server shutting down or starting (57P01-57P03), too many connections: the server cannot
serve us now, whatever we asked."""


def is_connection_failure(exc: BaseException) -> bool:
    """True for failures to reach or keep the database, false for errors in what was asked of it."""
    if isinstance(exc, DBAPIError) and server_sqlstate(exc.orig) == STATEMENT_TIMEOUT_SQLSTATE:
        return False  # the server answered: it is busy, not unreachable (no retry)
    if isinstance(exc, OperationalError | InterfaceError):
        return True
    if isinstance(exc, DBAPIError):
        sqlstate = server_sqlstate(exc.orig) or ""
        return bool(exc.connection_invalidated) or sqlstate.startswith(UNAVAILABLE_SQLSTATE_PREFIXES)
    return isinstance(exc, OSError)  # TimeoutError and ConnectionError included


def _pause(state: RetryCallState) -> float:
    exc = state.outcome.exception() if state.outcome is not None else None
    return 0.0 if isinstance(exc, DBAPIError) and exc.connection_invalidated else SERVER_ERROR_PAUSE_SECONDS


def db_call(func: Callable[P, T]) -> Callable[P, T]:
    """Retry a repository operation once on a connection failure, then raise DatabaseUnavailableError."""
    retrying = retry(
        retry=retry_if_exception(is_connection_failure),
        stop=stop_after_attempt(2),
        wait=_pause,
        reraise=True,
    )(func)

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return retrying(*args, **kwargs)
        except PoolTimeoutError as exc:
            logger.warning("database connection pool exhausted", extra={"operation": func.__name__, "error": str(exc)})
            raise DatabaseUnavailableError(
                "the database is busy: every connection of this process's pool stayed in use for the pool's timeout "
                "(SCORING_DATABASE_TIMEOUT_SECONDS); try again shortly"
            ) from exc
        except Exception as exc:
            if isinstance(exc, DBAPIError) and server_sqlstate(exc.orig) == STATEMENT_TIMEOUT_SQLSTATE:
                logger.warning("database statement timed out", extra={"operation": func.__name__})
                raise DatabaseUnavailableError(
                    "the database is busy: the statement ran past its timeout (SCORING_DATABASE_STATEMENT_TIMEOUT_MS); "
                    "try again shortly"
                ) from exc
            if not is_connection_failure(exc):
                raise
            cause = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
            logger.warning(
                "database unavailable",
                extra={"operation": func.__name__, "error": f"{type(cause).__name__}: {cause}"},
            )
            # The driver's class and message (a host, a port) go to the log above, never to the caller.
            raise DatabaseUnavailableError(
                "the database is unavailable; the operation was retried once; try again shortly"
            ) from exc

    return wrapper
