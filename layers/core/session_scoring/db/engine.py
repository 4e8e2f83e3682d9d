"""Engine and session factory for PostgreSQL through pg8000.

The URL comes from ``SCORING_DATABASE_URL`` or, in AWS, from a Secrets Manager secret (RDS's JSON shape:
username, password, host, port, dbname); with ``SCORING_DATABASE_IAM_AUTH`` each new connection gets a fresh IAM
token for RDS Proxy instead of the password. Every connection has a socket timeout and a server statement timeout.
"""

from __future__ import annotations

import json
import ssl
from typing import Any

from sqlalchemy import URL, Engine, create_engine, event, make_url
from sqlalchemy.orm import Session, sessionmaker

from session_scoring.errors import ConfigurationError
from session_scoring.settings import Settings


def database_url(settings: Settings) -> URL:
    if settings.database_url is not None:
        url = make_url(settings.database_url.get_secret_value())
        if url.drivername in ("postgresql", "postgres"):
            url = url.set(drivername="postgresql+pg8000")
        return url
    if settings.database_secret_arn:
        return _url_from_secret(settings)
    raise ConfigurationError(
        "no database configured: set SCORING_DATABASE_URL (postgresql+pg8000://user:pass@host:5432/db) "
        "or SCORING_DATABASE_SECRET_ARN"
    )


def _url_from_secret(settings: Settings) -> URL:
    from aws_lambda_powertools.utilities import parameters

    raw = parameters.get_secret(settings.database_secret_arn or "", max_age=300)
    try:
        secret: dict[str, Any] = json.loads(raw if isinstance(raw, str) else raw.decode())
    except (ValueError, AttributeError) as exc:
        raise ConfigurationError(
            "SCORING_DATABASE_SECRET_ARN does not hold RDS-style JSON (username, password, host, port, dbname)"
        ) from exc
    return URL.create(
        "postgresql+pg8000",
        username=secret.get("username"),
        password=None if settings.database_iam_auth else secret.get("password"),
        host=settings.database_host or secret.get("host"),
        port=int(secret.get("port") or settings.database_port),
        database=secret.get("dbname") or settings.database_name,
    )


def create_db_engine(settings: Settings) -> Engine:
    url = database_url(settings)
    connect_args: dict[str, Any] = {
        "timeout": settings.database_timeout_seconds,
        "startup_params": {"statement_timeout": str(settings.database_statement_timeout_ms)},
    }
    if url.host not in (None, "localhost", "127.0.0.1") and settings.database_secret_arn:
        connect_args["ssl_context"] = ssl.create_default_context()
    engine = create_engine(
        url,
        connect_args=connect_args,
        pool_pre_ping=True,
        pool_size=2,
        max_overflow=2,
        pool_recycle=300,
        pool_timeout=settings.database_timeout_seconds,
    )
    if settings.database_iam_auth:
        _use_iam_tokens(engine, settings)
    return engine


def _use_iam_tokens(engine: Engine, settings: Settings) -> None:
    import boto3

    rds = boto3.client("rds", region_name=settings.aws_region)

    @event.listens_for(engine, "do_connect")
    def _fresh_token(dialect: Any, conn_rec: Any, cargs: Any, cparams: dict[str, Any]) -> None:
        cparams["password"] = rds.generate_db_auth_token(
            DBHostname=cparams["host"], Port=int(cparams.get("port", 5432)), DBUsername=cparams["user"]
        )


def create_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
