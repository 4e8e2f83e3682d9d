"""boto3 clients with explicit timeouts (and the local endpoint when one is configured)."""

from __future__ import annotations

from typing import Any

from session_scoring.configuration.settings import Settings
from session_scoring.errors import TransientError


def aws_client(service: str, settings: Settings) -> Any:
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=settings.aws_timeout_seconds,
        read_timeout=max(settings.aws_timeout_seconds, 25.0),  # above SQS's 20 s long poll
        retries={"max_attempts": 3, "mode": "standard"},
    )
    factory: Any = boto3.client
    return factory(service, region_name=settings.aws_region, endpoint_url=settings.aws_endpoint_url, config=config)


def aws_call(client: Any, operation: str, error: type[TransientError], failure: str, *args: Any, **kwargs: Any) -> Any:
    """``client.operation(*args, **kwargs)``; a botocore failure becomes ``error`` saying ``failure: <the cause>``."""
    from botocore.exceptions import BotoCoreError, ClientError

    try:
        return getattr(client, operation)(*args, **kwargs)
    except (BotoCoreError, ClientError) as exc:
        raise error(f"{failure}: {exc}") from exc
