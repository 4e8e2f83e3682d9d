"""Engines for PostgreSQL through pg8000.

Three ways to reach the database, chosen by settings:

- ``SCORING_DATABASE_URL``: a full URL (local runs and tests).
- IAM authentication (RDS Proxy): ``SCORING_DATABASE_IAM_AUTH`` with ``SCORING_DATABASE_HOST`` and
  ``SCORING_DATABASE_USER``; each new connection gets a fresh IAM token as its password, so no password is read.
  Without ``SCORING_DATABASE_USER`` the user name comes from the secret.
- A Secrets Manager secret in RDS's JSON shape (username, password, host, port, dbname), e.g. to reach the cluster
  endpoint directly (migrations) or an existing database; ``SCORING_DATABASE_HOST`` overrides the secret's host.

TLS follows ``SCORING_DATABASE_SSL`` (verify-full by default for any host but loopback or a Unix socket). Every
connection has a socket timeout and a server statement timeout.

No connection is pinged at checkout (``pool_pre_ping`` costs a round trip per request): a connection that died in
the pool fails its statement, SQLAlchemy invalidates the pool, and ``db_call`` retries once. The repositories of
one-statement operations use an *autocommit* engine (``repositories/base.py``).

SQLAlchemy's ``postgresql+pg8000`` dialect drives pg8000 through its DB-API, unchanged: each statement is sent
unnamed (nothing is prepared on the server, so nothing is left on a connection between requests, and RDS Proxy can
multiplex it). A connection is handed to the next request only when it is known to be in step with the server
(:func:`invalidate_after_broken_exchanges`). Each connection decodes ``timestamptz`` with ``datetime.fromisoformat``
(:func:`decode_timestamptz`) through pg8000's documented ``register_in_adapter``.
"""

from __future__ import annotations

import json
import ssl
from datetime import datetime
from typing import Any

from sqlalchemy import URL, Engine, ExceptionContext, create_engine, event, make_url

from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError

LOCAL_HOSTS = (None, "", "localhost", "127.0.0.1", "::1")


def database_url(settings: Settings) -> URL:
    """The URL to connect with; its password is empty under IAM authentication (a token is added per connection)."""
    if settings.database_url is not None:
        url = make_url(settings.database_url.get_secret_value())
        if url.drivername in ("postgresql", "postgres"):
            url = url.set(drivername="postgresql+pg8000")
        return url
    if settings.database_iam_auth and settings.database_host and settings.database_user:
        return URL.create(
            "postgresql+pg8000",
            username=settings.database_user,
            host=settings.database_host,
            port=settings.database_port,
            database=settings.database_name,
        )
    if settings.database_secret_arn:
        return _url_from_secret(settings)
    raise ConfigurationError(
        "no database configured: set SCORING_DATABASE_URL (postgresql+pg8000://user:pass@host:5432/db), "
        "or SCORING_DATABASE_SECRET_ARN (an RDS-style secret), or SCORING_DATABASE_IAM_AUTH=true with "
        "SCORING_DATABASE_HOST and SCORING_DATABASE_USER"
    )


def _url_from_secret(settings: Settings) -> URL:
    from session_scoring.infrastructure.secrets import read_secret

    raw = read_secret(settings, settings.database_secret_arn or "", "SCORING_DATABASE_SECRET_ARN")
    try:
        secret: dict[str, Any] = json.loads(raw)
    except ValueError as exc:
        raise ConfigurationError(
            "SCORING_DATABASE_SECRET_ARN does not hold RDS-style JSON (username, password, host, port, dbname)"
        ) from exc
    host = settings.database_host or secret.get("host")
    username = settings.database_user or secret.get("username")
    if not host or not username:
        raise ConfigurationError(
            "the database secret has no host or username: add them to the secret, or set SCORING_DATABASE_HOST "
            "and SCORING_DATABASE_USER"
        )
    return URL.create(
        "postgresql+pg8000",
        username=username,
        password=None if settings.database_iam_auth else secret.get("password"),
        host=host,
        port=int(secret.get("port") or settings.database_port),
        database=secret.get("dbname") or settings.database_name,
    )


def ssl_context_for(settings: Settings, host: str | None) -> ssl.SSLContext | None:
    """The TLS context for ``host`` under ``SCORING_DATABASE_SSL``; None means a plain connection."""
    mode = settings.database_ssl
    if mode == "auto":
        mode = "disable" if host in LOCAL_HOSTS else "verify-full"
    if mode == "disable":
        return None
    ca_file = settings.database_ca_file
    if ca_file is not None and not ca_file.is_file():
        raise ConfigurationError(f"SCORING_DATABASE_CA_FILE {ca_file} does not exist")
    context = ssl.create_default_context(cafile=str(ca_file) if ca_file is not None else None)
    if mode == "require":
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def create_db_engine(settings: Settings, autocommit: bool = False) -> Engine:
    """The engine for ``settings``; ``autocommit`` runs each statement in its own transaction (repositories)."""
    url = database_url(settings)
    if settings.database_iam_auth and url.host in LOCAL_HOSTS:
        raise ConfigurationError("SCORING_DATABASE_IAM_AUTH needs a remote host (an RDS Proxy or RDS endpoint)")
    connect_args: dict[str, Any] = {
        "timeout": settings.database_timeout_seconds,
        "startup_params": {"statement_timeout": str(settings.database_statement_timeout_ms)},
        # False, not None, for a plain connection: with None pg8000 builds a default TLS context on every connect
        # (loading the system CA bundle, tens of ms of a first request) and tries TLS without verifying anything.
        "ssl_context": ssl_context_for(settings, url.host) or False,
    }
    # Autocommit is set on the DBAPI connection once (pg8000: a flag, no round trip), so checkouts reset nothing.
    isolation: dict[str, Any] = {"isolation_level": "AUTOCOMMIT"} if autocommit else {}
    engine = create_engine(
        url,
        connect_args=connect_args,
        **isolation,
        pool_size=2,
        max_overflow=2,
        pool_recycle=300,
        pool_timeout=settings.database_timeout_seconds,
    )
    if settings.database_iam_auth:
        _use_iam_tokens(engine, settings)
    invalidate_after_broken_exchanges(engine)
    event.listen(engine, "connect", _decode_timestamps_fast)
    return engine


TIMESTAMPTZ_OID = 1184


def decode_timestamptz(data: str) -> Any:
    """A ``timestamptz`` from PostgreSQL's text: what pg8000 decodes, by ``datetime.fromisoformat`` (C). pg8000's
    own decoder calls ``strptime`` for each value (six in a score's read: about 0.1 ms). What ``fromisoformat``
    refuses (``infinity``, a BC date, a year past 9999) goes to pg8000's decoder, which answers those."""
    try:
        return datetime.fromisoformat(data)
    except ValueError:
        from pg8000.converters import timestamptz_in  # type: ignore[import-untyped]

        return timestamptz_in(data)


def _decode_timestamps_fast(dbapi_connection: Any, _record: Any) -> None:
    dbapi_connection.register_in_adapter(TIMESTAMPTZ_OID, decode_timestamptz)


def server_sqlstate(exc: BaseException | None) -> str | None:
    """The SQLSTATE of ``exc`` when it is the server's own error answer (pg8000's error, its first argument the
    error's fields, ``C`` the code), which pg8000 raises only after reading up to ``ReadyForQuery``; else None."""
    import pg8000  # type: ignore[import-untyped]  # pg8000 ships no type information

    fields = exc.args[0] if isinstance(exc, pg8000.DatabaseError) and exc.args else None
    return str(fields["C"]) if isinstance(fields, dict) and "C" in fields else None


def invalidate_after_broken_exchanges(engine: Engine) -> None:
    """Close, never pool again, a connection whose statement failed other than by the server's answer.

    Anything that stops pg8000 before the server says it is ready again (a value it cannot encode or decode, a socket
    error or timeout) leaves answers unread on the socket, which the next statement would read as its own. The
    ``handle_error`` event marks such a failure a disconnect, so that connection alone is invalidated. A server's
    error answer (a constraint, bad input, a statement timeout) leaves the connection in step.
    """

    @event.listens_for(engine, "handle_error")
    def _invalidate_out_of_step(context: ExceptionContext) -> None:
        if context.is_disconnect or context.connection is None:
            return  # already invalidated (with the pool, as SQLAlchemy decides), or no connection was made
        if server_sqlstate(context.original_exception) is not None:
            return  # the server's answer: the connection is in step
        context.is_disconnect = True
        context.invalidate_pool_on_disconnect = False


def _use_iam_tokens(engine: Engine, settings: Settings) -> None:
    """Sign a fresh IAM token (valid 15 minutes) for every new connection; signing is local, no network call."""
    from session_scoring.infrastructure.aws import aws_client

    rds = aws_client("rds", settings)

    @event.listens_for(engine, "do_connect")
    def _fresh_token(_dialect: Any, _conn_rec: Any, _cargs: Any, cparams: dict[str, Any]) -> None:
        cparams["password"] = rds.generate_db_auth_token(
            DBHostname=cparams["host"], Port=int(cparams.get("port") or 5432), DBUsername=cparams["user"]
        )


def warm_up_driver() -> None:
    """Decode a ``timestamptz`` as the connections do, and as pg8000 does what they hand it, with no connection
    (priming before a SnapStart snapshot): the first ``strptime`` of each format costs 10-25 ms, paid here once per
    process instead of by a first request."""
    from pg8000.converters import timestamptz_in

    decode_timestamptz("2000-01-01 00:00:00.000001+00")
    timestamptz_in("2000-01-01 00:00:00+00")
    timestamptz_in("2000-01-01 00:00:00.000001+00")
