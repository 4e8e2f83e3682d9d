"""Reading secrets: configuration problems name the setting; an unreachable Secrets Manager is retried."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import boto3
import pytest
from moto import mock_aws

from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError, SecretUnavailableError
from session_scoring.infrastructure.secrets import read_secret


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)
    with mock_aws():
        yield


@pytest.mark.usefixtures("aws")
def test_reads_the_secret_text() -> None:
    arn = boto3.client("secretsmanager", region_name="us-east-1").create_secret(
        Name=f"key-{uuid.uuid4().hex[:8]}", SecretString="  sk-ant-test \n"
    )["ARN"]
    assert read_secret(Settings(), arn, "ANTHROPIC_API_KEY_SECRET_ARN") == "sk-ant-test"


@pytest.mark.usefixtures("aws")
def test_a_missing_secret_is_a_configuration_error_naming_the_setting() -> None:
    arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:absent-AbCdEf"
    with pytest.raises(ConfigurationError, match=r"named by session_source.token_secret_arn \(ResourceNotFound"):
        read_secret(Settings(), arn, "session_source.token_secret_arn")


@pytest.mark.usefixtures("aws")
def test_an_empty_secret_is_a_configuration_error() -> None:
    arn = boto3.client("secretsmanager", region_name="us-east-1").create_secret(
        Name=f"empty-{uuid.uuid4().hex[:8]}", SecretString=" "
    )["ARN"]
    with pytest.raises(ConfigurationError, match="is empty"):
        read_secret(Settings(), arn, "SCORING_DATABASE_SECRET_ARN")


def test_an_unreachable_secrets_manager_is_retryable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    closed = Settings(AWS_ENDPOINT_URL="http://127.0.0.1:9", SCORING_AWS_TIMEOUT_SECONDS=1)
    with pytest.raises(SecretUnavailableError, match=r"Secrets Manager did not answer .*ANTHROPIC_API_KEY_SECRET_ARN"):
        read_secret(closed, "arn:aws:secretsmanager:us-east-1:1:secret:k", "ANTHROPIC_API_KEY_SECRET_ARN")
