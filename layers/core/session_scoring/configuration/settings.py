"""The one typed settings object, read from the environment once per process.

Nothing else in the service reads ``os.environ``: the composition root calls :func:`get_settings` and passes the
values (or the settings object) down. The raw environment is kept only as ``template_variables`` because the scoring
configuration may reference any variable with ``${VAR}``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

_REPO_ROOT = Path(__file__).resolve().parents[4]


def _default_migrations_dir() -> Path:
    """The repository's migrations in a checkout, or the copy shipped in the core layer under /opt in Lambda."""
    for candidate in (_REPO_ROOT / "migrations", Path("/opt/migrations")):
        if (candidate / "env.py").is_file():
            return candidate
    return _REPO_ROOT / "migrations"


def _default_config_path() -> Path:
    """The repository's config file in a checkout, or the one shipped in the core layer under /opt in Lambda."""
    for candidate in (_REPO_ROOT / "config" / "scoring_config.yaml", Path("/opt/config/scoring_config.yaml")):
        if candidate.is_file():
            return candidate
    return _REPO_ROOT / "config" / "scoring_config.yaml"


class Settings(BaseSettings):
    """Runtime settings. Each field names the environment variable it comes from."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    config_path: Path = Field(default_factory=_default_config_path, validation_alias="SCORING_CONFIG_PATH")
    migrations_dir: Path = Field(default_factory=_default_migrations_dir, validation_alias="SCORING_MIGRATIONS_DIR")
    base_dir: Path = Field(
        default=_REPO_ROOT,
        validation_alias="SCORING_BASE_DIR",
        description="Relative paths in the scoring configuration (e.g. a sessions directory) resolve against this.",
    )

    database_url: SecretStr | None = Field(default=None, validation_alias="SCORING_DATABASE_URL")
    database_secret_arn: str | None = Field(default=None, validation_alias="SCORING_DATABASE_SECRET_ARN")
    database_host: str | None = Field(default=None, validation_alias="SCORING_DATABASE_HOST")
    database_name: str = Field(default="scoring", validation_alias="SCORING_DATABASE_NAME")
    database_iam_auth: bool = Field(default=False, validation_alias="SCORING_DATABASE_IAM_AUTH")
    database_port: int = Field(default=5432, validation_alias="SCORING_DATABASE_PORT")
    database_user: str | None = Field(
        default=None,
        validation_alias="SCORING_DATABASE_USER",
        description="Database user for IAM authentication (RDS Proxy); no secret is read when it is set.",
    )
    database_ssl: Literal["auto", "verify-full", "require", "disable"] = Field(
        default="auto",
        validation_alias="SCORING_DATABASE_SSL",
        description="TLS to the database. auto: none over a Unix socket or loopback, verify-full otherwise. "
        "verify-full checks the certificate and host name against the system CAs (or SCORING_DATABASE_CA_FILE); "
        "require encrypts without checking the certificate.",
    )
    database_ca_file: Path | None = Field(
        default=None,
        validation_alias="SCORING_DATABASE_CA_FILE",
        description="PEM bundle that verifies the database's certificate (e.g. the RDS CA bundle).",
    )
    database_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        validation_alias="SCORING_DATABASE_TIMEOUT_SECONDS",
        description="Socket timeout of every database operation, connecting included.",
    )
    database_statement_timeout_ms: int = Field(
        default=8_000, ge=100, validation_alias="SCORING_DATABASE_STATEMENT_TIMEOUT_MS"
    )

    queue_url: str | None = Field(default=None, validation_alias="SCORING_QUEUE_URL")
    dead_letter_queue_url: str | None = Field(default=None, validation_alias="SCORING_DLQ_URL")
    max_receive_count: int = Field(default=5, ge=1, validation_alias="SCORING_MAX_RECEIVE_COUNT")
    breaker_table_name: str | None = Field(default=None, validation_alias="SCORING_BREAKER_TABLE")
    lease_seconds: int = Field(default=900, ge=30, validation_alias="SCORING_LEASE_SECONDS")
    redrive_method: Literal["auto", "move-task", "resend"] = Field(
        default="auto",
        validation_alias="SCORING_REDRIVE_METHOD",
        description="How dead letters go back: SQS StartMessageMoveTask, or receive-and-resend (emulators such as "
        "moto lack the move API). auto = resend when AWS_ENDPOINT_URL points at an emulator, move-task otherwise.",
    )
    breaker_failure_threshold: int = Field(
        default=5,
        ge=1,
        validation_alias="SCORING_BREAKER_FAILURE_THRESHOLD",
        description="Consecutive transient judge failures (in one scorer instance) that open the circuit.",
    )
    breaker_recovery_seconds: int = Field(
        default=60,
        ge=1,
        validation_alias="SCORING_BREAKER_RECOVERY_SECONDS",
        description="How long the circuit stays open before one probe call is let through.",
    )
    breaker_cache_seconds: int = Field(
        default=5,
        ge=0,
        validation_alias="SCORING_BREAKER_CACHE_SECONDS",
        description="How long a scorer instance trusts its last read of the shared circuit state.",
    )

    aws_region: str = Field(default="us-east-1", validation_alias=AliasChoices("AWS_REGION", "AWS_DEFAULT_REGION"))
    aws_endpoint_url: str | None = Field(default=None, validation_alias="AWS_ENDPOINT_URL")
    aws_timeout_seconds: float = Field(default=5.0, validation_alias="SCORING_AWS_TIMEOUT_SECONDS")

    anthropic_api_key: SecretStr | None = Field(default=None, validation_alias="ANTHROPIC_API_KEY")
    anthropic_api_key_secret_arn: str | None = Field(default=None, validation_alias="ANTHROPIC_API_KEY_SECRET_ARN")
    anthropic_base_url: str | None = Field(default=None, validation_alias="ANTHROPIC_BASE_URL")
    judge_timeout_seconds: float = Field(default=120.0, gt=0, validation_alias="JUDGE_TIMEOUT_SECONDS")
    judge_max_tokens: int = Field(default=8192, ge=256, validation_alias="JUDGE_MAX_TOKENS")
    judge_max_retries: int = Field(default=3, ge=0, validation_alias="JUDGE_MAX_RETRIES")
    judge_retry_base_seconds: float = Field(default=1.0, ge=0, validation_alias="JUDGE_RETRY_BASE_SECONDS")
    judge_context_tokens: int = Field(
        default=200_000,
        ge=4_096,
        validation_alias="JUDGE_CONTEXT_TOKENS",
        description="The judge model's context window, in tokens.",
    )
    judge_input_budget_tokens: int | None = Field(
        default=None,
        ge=1_024,
        validation_alias="JUDGE_INPUT_BUDGET_TOKENS",
        description="Most estimated tokens sent to the judge; default: the context minus the output and a margin.",
    )
    source_retry_base_seconds: float = Field(default=0.5, ge=0, validation_alias="SCORING_SOURCE_RETRY_BASE_SECONDS")

    trust_forwarded_user: bool = Field(default=False, validation_alias="SCORING_TRUST_FORWARDED_USER")
    cors_origins: str = Field(default="", validation_alias="SCORING_CORS_ORIGINS")
    port: int = Field(default=8000, ge=1, le=65535, validation_alias="PORT", description="Port of the local API.")
    local_data_dir: Path = Field(
        default=_REPO_ROOT / ".local",
        validation_alias="SCORING_LOCAL_DATA_DIR",
        description="Where the local stack (`make run`) keeps its embedded PostgreSQL data.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO",
        validation_alias="LOG_LEVEL",
        description="Log level. Powertools' logger reads LOG_LEVEL itself; declared so a bad value fails at start.",
    )

    template_variables: dict[str, str] = Field(default_factory=dict, exclude=True, repr=False)

    @property
    def judge_input_budget(self) -> int:
        """Estimated input tokens a judge request may hold: the explicit budget, or the model's context minus room
        for the answer (``JUDGE_MAX_TOKENS``) and a 5 % margin for the estimate's error."""
        if self.judge_input_budget_tokens is not None:
            return self.judge_input_budget_tokens
        return max(1_024, int(self.judge_context_tokens * 0.95) - self.judge_max_tokens)

    def resolve_path(self, path: str | Path) -> Path:
        """A path from configuration, made absolute against ``base_dir``."""
        candidate = Path(path)
        return candidate if candidate.is_absolute() else self.base_dir / candidate


def load_settings() -> Settings:
    """Read the environment now (tests and the local stack call this after changing it)."""
    return Settings(template_variables=dict(os.environ))


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read on first use (never at import)."""
    return load_settings()
