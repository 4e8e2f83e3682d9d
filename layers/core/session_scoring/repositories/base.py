"""What every repository shares: one database call, retried once when its connection turned out to be dead.

The engine does not ping a connection at each checkout (a round trip per request); a connection the server or a
proxy closed fails its first statement instead, SQLAlchemy drops the pool, and the call runs once more on a fresh
connection. Every repository operation is a single statement on an autocommit connection, so it is atomic and a
retry repeats it whole.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, ParamSpec, TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError
from tenacity import RetryCallState, retry, retry_if_exception, stop_after_attempt

from session_scoring.errors import DatabaseUnavailableError
from session_scoring.log import logger

P = ParamSpec("P")
T = TypeVar("T")

SERVER_ERROR_PAUSE_SECONDS = 0.5
"""Pause before the retry when the server itself failed (a restart); a dead pooled connection retries at once."""


def is_transient(exc: BaseException) -> bool:
    """Lost connections and server restarts; not constraint violations or bad SQL."""
    if isinstance(exc, OperationalError):
        return True
    return isinstance(exc, DBAPIError) and bool(exc.connection_invalidated)


def _pause(state: RetryCallState) -> float:
    exc = state.outcome.exception() if state.outcome is not None else None
    if isinstance(exc, DBAPIError) and exc.connection_invalidated:
        return 0.0
    return SERVER_ERROR_PAUSE_SECONDS


def db_call(func: Callable[P, T]) -> Callable[P, T]:
    """Retry a repository operation once on a transient database error, then raise DatabaseUnavailableError."""
    retrying = retry(retry=retry_if_exception(is_transient), stop=stop_after_attempt(2), wait=_pause, reraise=True)(
        func
    )

    @wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return retrying(*args, **kwargs)
        except DBAPIError as exc:
            if not is_transient(exc):
                raise
            logger.warning("database unavailable", extra={"operation": func.__name__, "error": str(exc.orig)})
            raise DatabaseUnavailableError(
                f"the database is unavailable ({type(exc.orig).__name__}); the operation was retried once"
            ) from exc

    return wrapper


def as_json_list(value: Any) -> list[Any]:
    """A json_agg result: pg8000 decodes json to Python; a driver that does not returns text."""
    if value is None:
        return []
    if isinstance(value, str):
        import json

        decoded: list[Any] = json.loads(value)
        return decoded
    return list(value)
