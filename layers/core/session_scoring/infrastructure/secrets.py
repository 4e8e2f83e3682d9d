"""Secrets from AWS Secrets Manager through Powertools Parameters: cached, read on our configured client, never logged.

One reader for every secret the service uses (the judge's API key, the TARSy token, the database credentials).
A secret that is missing, forbidden or empty is a configuration error naming the setting to fix; Secrets Manager
being unreachable or throttling is :class:`SecretUnavailableError`, which is retried like any transient failure.
"""

from __future__ import annotations

from typing import Any

from session_scoring.configuration.settings import Settings
from session_scoring.errors import ConfigurationError, SecretUnavailableError

SECRET_CACHE_SECONDS = 300
"""Powertools caches each value this long, so a rotated secret is picked up within five minutes."""

_CONFIGURATION_CODES = frozenset(
    {
        "ResourceNotFoundException",
        "AccessDeniedException",
        "AccessDenied",
        "DecryptionFailure",
        "InvalidParameterException",
        "InvalidRequestException",
        "UnrecognizedClientException",
        "ValidationException",
    }
)

_PROVIDERS: dict[tuple[str, str | None], Any] = {}


def _provider(settings: Settings) -> Any:
    """One Powertools provider per region and endpoint, so a rebuilt container still reads from the cache."""
    key = (settings.aws_region, settings.aws_endpoint_url)
    if key not in _PROVIDERS:
        from aws_lambda_powertools.utilities.parameters import SecretsProvider

        from session_scoring.infrastructure.aws import aws_client

        _PROVIDERS[key] = SecretsProvider(boto3_client=aws_client("secretsmanager", settings))
    return _PROVIDERS[key]


def read_secret(settings: Settings, secret_arn: str, setting: str) -> str:
    """The secret's text. ``setting`` names where the ARN came from, for the error an operator reads."""
    from aws_lambda_powertools.utilities.parameters.exceptions import GetParameterError
    from botocore.exceptions import ClientError, NoCredentialsError

    try:
        value = _provider(settings).get(secret_arn, max_age=SECRET_CACHE_SECONDS)
    except GetParameterError as exc:
        cause = exc.__context__  # Powertools re-raises every failure as GetParameterError(str(cause))
        code = cause.response.get("Error", {}).get("Code", "") if isinstance(cause, ClientError) else ""
        if code in _CONFIGURATION_CODES or isinstance(cause, NoCredentialsError):
            raise ConfigurationError(
                f"cannot read the Secrets Manager secret named by {setting} ({code or type(cause).__name__}); "
                "check the ARN, the credentials and the function's secretsmanager:GetSecretValue permission"
            ) from exc
        raise SecretUnavailableError(
            f"Secrets Manager did not answer for the secret named by {setting} "
            f"({code or type(cause).__name__}); it is retried"
        ) from exc
    text = value if isinstance(value, str) else bytes(value).decode()
    if not text.strip():
        raise ConfigurationError(f"the Secrets Manager secret named by {setting} is empty")
    return text.strip()
