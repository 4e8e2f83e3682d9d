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
the pool fails its statement, SQLAlchemy invalidates the pool, and the repositories retry once
(``repositories.base.db_call``). The repositories use an *autocommit* engine because each of their operations is
one statement (no BEGIN/COMMIT round trips); migrations use a transactional one.

Creating an engine also makes pg8000 convert each statement's placeholders once per statement text rather than on
every execute (``session_scoring.db.paramstyle``), and its connections send each statement in one round trip and
prepare the statements they run repeatedly (``session_scoring.db.connection``,
``SCORING_DATABASE_PREPARED_STATEMENTS``).
"""

from __future__ import annotations

import json
import ssl
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event, make_url

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
    from session_scoring.db.paramstyle import remember_conversions

    url = database_url(settings)
    remember_conversions()
    if settings.database_iam_auth and url.host in LOCAL_HOSTS:
        raise ConfigurationError("SCORING_DATABASE_IAM_AUTH needs a remote host (an RDS Proxy or RDS endpoint)")
    connect_args: dict[str, Any] = {
        "timeout": settings.database_timeout_seconds,
        "startup_params": {"statement_timeout": str(settings.database_statement_timeout_ms)},
    }
    # False, not None, for a plain connection: with None pg8000 builds a default TLS context on every connect
    # (loading the system CA bundle, tens of ms of a first request) and tries TLS without verifying anything.
    connect_args["ssl_context"] = ssl_context_for(settings, url.host) or False
    if autocommit:
        # Set on the DBAPI connection once (pg8000: a flag, no round trip), so checkouts reset nothing.
        connect_args_engine: dict[str, Any] = {"isolation_level": "AUTOCOMMIT"}
    else:
        connect_args_engine = {}
    engine = create_engine(
        url,
        connect_args=connect_args,
        **connect_args_engine,
        pool_size=2,
        max_overflow=2,
        pool_recycle=300,
        pool_timeout=settings.database_timeout_seconds,
    )
    if settings.database_iam_auth:
        _use_iam_tokens(engine, settings)
    _pipeline_statements(engine, PREPARE_THRESHOLD if prepares_statements(settings) else None)
    return engine


PREPARE_THRESHOLD = 2
"""Executions of a statement text on one connection at which it is prepared: a statement run twice is the kind
that runs again (the repositories' statements are built once), and a one-off never takes a place among the
connection's named statements, whose eviction costs a round trip (psycopg 3 waits for 5 executions, asyncpg prepares
every statement on its first)."""


def prepares_statements(settings: Settings) -> bool:
    """Whether connections prepare the statements they run repeatedly (``SCORING_DATABASE_PREPARED_STATEMENTS``)."""
    if settings.database_prepared_statements == "auto":
        return not settings.database_iam_auth
    return settings.database_prepared_statements == "on"


def runs_to_prepare(settings: Settings) -> int:
    """How many runs of a statement on a new connection leave it prepared (1 when nothing is prepared): what a
    warm-up repeats so that the request after it runs the prepared statement, without parsing it."""
    return PREPARE_THRESHOLD if prepares_statements(settings) else 1


def _pipeline_statements(engine: Engine, prepare_threshold: int | None) -> None:
    """Connect with :class:`~session_scoring.db.connection.PipelinedConnection`: one round trip per statement, and
    statements run ``prepare_threshold`` times prepared. Registered after any listener that completes the
    connection's parameters (the IAM token): the first ``do_connect`` listener that returns a connection makes it."""
    from session_scoring.db.connection import PipelinedConnection

    @event.listens_for(engine, "do_connect")
    def _connect(_dialect: Any, _conn_rec: Any, cargs: Any, cparams: dict[str, Any]) -> PipelinedConnection:
        return PipelinedConnection(*cargs, prepare_threshold=prepare_threshold, **cparams)


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
    """Decode a ``timestamptz`` as pg8000 does, with no connection (priming before a SnapStart snapshot).

    pg8000 parses timestamps with ``datetime.strptime``, whose first call imports ``_strptime`` and compiles its
    regular expression per format (with and without fractional seconds): 10-25 ms of the first request that reads
    a score here, paid once per process."""
    from pg8000.converters import timestamptz_in  # type: ignore[import-untyped]

    timestamptz_in("2000-01-01 00:00:00+00")
    timestamptz_in("2000-01-01 00:00:00.000001+00")
