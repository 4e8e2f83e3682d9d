"""How the engine reaches the database in AWS: IAM tokens for RDS Proxy, credentials from a secret, TLS modes."""

from __future__ import annotations

import json
import ssl
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from moto import mock_aws

from session_scoring.configuration.settings import Settings
from session_scoring.db.engine import create_db_engine, database_url, ssl_context_for
from session_scoring.errors import ConfigurationError

PROXY = "scoring-proxy.proxy-cexample.us-east-1.rds.amazonaws.com"


@pytest.fixture(autouse=True)
def no_database_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("URL", "SECRET_ARN", "HOST", "USER", "SSL", "IAM_AUTH"):
        monkeypatch.delenv(f"SCORING_DATABASE_{name}", raising=False)


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        yield


def settings(**values: Any) -> Settings:
    return Settings(**values)


def test_iam_auth_with_a_user_needs_no_secret_and_carries_no_password() -> None:
    url = database_url(
        settings(database_iam_auth=True, database_host=PROXY, database_user="scoring_admin", database_name="scoring")
    )

    assert (url.host, url.username, url.database, url.port) == (PROXY, "scoring_admin", "scoring", 5432)
    assert url.password is None


@pytest.mark.usefixtures("aws")
def test_each_new_connection_gets_a_fresh_iam_token_as_its_password() -> None:
    engine = create_db_engine(
        settings(database_iam_auth=True, database_host=PROXY, database_user="scoring_admin", aws_region="us-east-1")
    )
    params: dict[str, Any] = {"host": PROXY, "port": 5432, "user": "scoring_admin"}

    (token_listener,) = list(engine.dialect.dispatch.do_connect)
    assert token_listener(engine.dialect, None, [], params) is None  # it completes the parameters pg8000 connects with

    token = params["password"]
    assert token.startswith(f"{PROXY}:5432/?Action=connect")
    assert "DBUser=scoring_admin" in token
    assert "X-Amz-Signature=" in token
    engine.dispose()


def test_iam_auth_refuses_a_local_host() -> None:
    with pytest.raises(ConfigurationError, match="remote host"):
        create_db_engine(settings(database_url="postgresql://scoring@localhost/scoring", database_iam_auth=True))


@pytest.mark.usefixtures("aws")
def test_secret_gives_the_url_and_the_host_setting_overrides_its_host() -> None:
    import boto3

    name = f"db-{uuid.uuid4().hex[:8]}"
    arn = boto3.client("secretsmanager").create_secret(
        Name=name,
        SecretString=json.dumps(
            {"username": "scoring_admin", "password": "s3cret", "host": "cluster.example", "port": 5432}
        ),
    )["ARN"]

    from_secret = database_url(settings(database_secret_arn=arn))
    overridden = database_url(settings(database_secret_arn=arn, database_host="writer.example"))

    assert (from_secret.host, from_secret.username, from_secret.password) == (
        "cluster.example",
        "scoring_admin",
        "s3cret",
    )
    assert from_secret.database == "scoring"
    assert overridden.host == "writer.example"


@pytest.mark.usefixtures("aws")
def test_a_secret_that_is_not_rds_json_is_a_configuration_error() -> None:
    import boto3

    arn = boto3.client("secretsmanager").create_secret(Name=f"x-{uuid.uuid4().hex[:8]}", SecretString="plain")["ARN"]

    with pytest.raises(ConfigurationError, match="RDS-style JSON"):
        database_url(settings(database_secret_arn=arn))


def test_nothing_configured_says_what_to_set() -> None:
    with pytest.raises(ConfigurationError, match="SCORING_DATABASE_URL"):
        database_url(settings())


def test_tls_is_off_locally_and_verified_for_remote_hosts_by_default() -> None:
    assert ssl_context_for(settings(), None) is None
    assert ssl_context_for(settings(), "127.0.0.1") is None

    remote = ssl_context_for(settings(), PROXY)

    assert remote is not None
    assert remote.verify_mode == ssl.CERT_REQUIRED
    assert remote.check_hostname is True


def test_require_encrypts_without_verifying_and_disable_turns_tls_off() -> None:
    required = ssl_context_for(settings(database_ssl="require"), "cluster.example")

    assert required is not None
    assert required.verify_mode == ssl.CERT_NONE
    assert ssl_context_for(settings(database_ssl="disable"), "cluster.example") is None


def test_a_missing_ca_bundle_is_named(tmp_path: Path) -> None:
    missing = tmp_path / "rds-global-bundle.pem"
    with pytest.raises(ConfigurationError, match=r"rds-global-bundle\.pem"):
        ssl_context_for(settings(database_ssl="verify-full", database_ca_file=missing), "cluster.example")
