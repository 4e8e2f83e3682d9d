"""The one typed settings object, read from the environment once per process.

Nothing else in the service reads ``os.environ``: the composition root calls :func:`get_settings` and passes the
values (or the settings object) down. The raw environment is kept only as ``template_variables`` because the scoring
configuration may reference any variable with ``${VAR}``.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

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


RoleName = Literal["viewer", "labeller", "operator", "admin"]
"""The API's roles, each allowed what the one before it is and more (``models/access.py`` holds their order)."""

_EMPTY_MEANS_UNSET = (
    "default_role",
    "database_url",
    "database_secret_arn",
    "database_host",
    "database_user",
    "database_ca_file",
    "queue_url",
    "dead_letter_queue_url",
    "breaker_table_name",
    "aws_endpoint_url",
    "anthropic_api_key",
    "anthropic_api_key_secret_arn",
    "anthropic_base_url",
    "judge_input_budget_tokens",
)
"""Optional secrets, URLs and names for which an empty value means "not set"."""


class Settings(BaseSettings):
    """Runtime settings. Each field names the environment variable it comes from."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    config_path: Path = Field(
        default_factory=_default_config_path,
        validation_alias="SCORING_CONFIG_PATH",
        description="The scoring configuration file: the criteria (provider, model, judge prompt) and where sessions "
        "come from. Default: config/scoring_config.yaml of the checkout, or /opt/config/scoring_config.yaml in "
        "Lambda.",
    )
    migrations_dir: Path = Field(
        default_factory=_default_migrations_dir,
        validation_alias="SCORING_MIGRATIONS_DIR",
        description="The Alembic migrations folder. Default: migrations/ of the checkout, or /opt/migrations in "
        "Lambda.",
    )
    base_dir: Path = Field(
        default=_REPO_ROOT,
        validation_alias="SCORING_BASE_DIR",
        description="Relative paths in the scoring configuration (e.g. a sessions directory) resolve against this.",
    )

    database_url: SecretStr | None = Field(
        default=None,
        validation_alias="SCORING_DATABASE_URL",
        description="PostgreSQL URL, postgresql+pg8000://user:pass@host:5432/db (a plain postgresql:// URL uses "
        "pg8000 too). Takes precedence over the other database settings; never logged.",
    )
    database_secret_arn: str | None = Field(
        default=None,
        validation_alias="SCORING_DATABASE_SECRET_ARN",
        description="In AWS: the Secrets Manager secret with the database credentials in RDS's JSON shape (username, "
        "password, host, port, dbname).",
    )
    database_host: str | None = Field(
        default=None,
        validation_alias="SCORING_DATABASE_HOST",
        description="Database host (e.g. the RDS Proxy endpoint); overrides the secret's host.",
    )
    database_name: str = Field(
        default="scoring",
        validation_alias="SCORING_DATABASE_NAME",
        description="Database name, when neither the URL nor the secret gives one.",
    )
    database_iam_auth: bool = Field(
        default=False,
        validation_alias="SCORING_DATABASE_IAM_AUTH",
        description="Log in with IAM authentication tokens (RDS Proxy) instead of a password; needs a remote host.",
    )
    database_port: int = Field(
        default=5432,
        validation_alias="SCORING_DATABASE_PORT",
        description="Database port, when neither the URL nor the secret gives one.",
    )
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
        default=8_000,
        ge=100,
        validation_alias="SCORING_DATABASE_STATEMENT_TIMEOUT_MS",
        description="PostgreSQL statement_timeout of every session, so no query runs unbounded.",
    )

    queue_url: str | None = Field(
        default=None,
        validation_alias="SCORING_QUEUE_URL",
        description="The scoring queue (SQS) the API sends jobs to and the scorer consumes.",
    )
    dead_letter_queue_url: str | None = Field(
        default=None,
        validation_alias="SCORING_DLQ_URL",
        description="The scoring queue's dead-letter queue, read by the dlq and redrive commands.",
    )
    runs_queue_url: str | None = Field(
        default=None,
        validation_alias="SCORING_RUNS_QUEUE_URL",
        description="The runs queue (SQS): planning messages and the jobs of scoring runs, consumed by the scorer "
        "at a lower concurrency than the scoring queue so a run never delays single requests.",
    )
    exports_bucket: str | None = Field(
        default=None,
        validation_alias="SCORING_EXPORTS_BUCKET",
        description="The stack's exports bucket (S3). When set, the training export is a job written there "
        "(POST /exports/training, then a presigned URL); unset (make run), GET /exports/training streams it.",
    )
    exports_queue_url: str | None = Field(
        default=None,
        validation_alias="SCORING_EXPORTS_QUEUE_URL",
        description="The exports queue (SQS) the API sends export jobs to and the exporter function consumes.",
    )
    export_url_expiry_seconds: int = Field(
        default=3600,
        ge=60,
        le=604_800,
        validation_alias="SCORING_EXPORT_URL_EXPIRY_SECONDS",
        description="How long a completed export's presigned download URL works (at most 7 days, S3's limit; "
        "a URL signed with a Lambda role's temporary credentials ends with them at the latest).",
    )
    max_run_sessions: int = Field(
        default=1000,
        ge=1,
        validation_alias="SCORING_MAX_RUN_SESSIONS",
        description="The largest max_sessions a scoring run may ask for.",
    )
    run_concurrency: int = Field(
        default=2,
        ge=1,
        validation_alias="SCORING_RUN_CONCURRENCY",
        description="Scorers working on the runs queue at once (the template's MaximumConcurrency for it); used "
        "for a run's estimated duration.",
    )
    run_page_size: int = Field(
        default=100,
        ge=1,
        le=500,
        validation_alias="SCORING_RUN_PAGE_SIZE",
        description="Sessions a run's planner reads from the source per planning message.",
    )
    batch_max_requests: int = Field(
        default=1000,
        ge=1,
        le=100_000,
        validation_alias="SCORING_BATCH_MAX_REQUESTS",
        description="Requests per Message Batch a batch-mode run submits (the API allows 100,000 and 256 MB; the "
        "poller also keeps each batch under the size limit).",
    )
    batch_submit_limit: int = Field(
        default=5000,
        ge=1,
        validation_alias="SCORING_BATCH_SUBMIT_LIMIT",
        description="Attempts the batch poller submits per tick at most (each needs its session read and rendered).",
    )
    max_receive_count: int = Field(
        default=5,
        ge=1,
        validation_alias="SCORING_MAX_RECEIVE_COUNT",
        description="Deliveries before a job goes to the dead-letter queue; must equal the queue's maxReceiveCount "
        "(the last delivery marks the attempt failed).",
    )
    max_deferrals: int = Field(
        default=20,
        ge=0,
        validation_alias="SCORING_MAX_DEFERRALS",
        description="Times a job may be handed back as a fresh, delayed copy of its message because the judge was "
        "busy (a rate limit with retry-after, the circuit open); such a hand-back uses none of the queue's receives. "
        "The delay grows 30 s, 60 s, ... to 900 s (or the judge's wait when longer), so 20 is about 4 hours of "
        "rate limits. Past it, hand-backs count towards SCORING_MAX_RECEIVE_COUNT again (then the dead-letter "
        "queue). 0 turns deferral off.",
    )
    breaker_table_name: str | None = Field(
        default=None,
        validation_alias="SCORING_BREAKER_TABLE",
        description="DynamoDB table holding the judge's circuit-breaker state, shared by every scorer instance; unset "
        "means no breaker.",
    )
    lease_seconds: int = Field(
        default=60,
        ge=30,
        validation_alias="SCORING_LEASE_SECONDS",
        description="How long a claim on an attempt lasts unless renewed. A working scorer renews it every third of "
        "this (a heartbeat), so a scorer that died holds its attempt at most this long; then the reaper (every "
        "minute) or a redelivery takes it over.",
    )
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

    aws_region: str = Field(
        default="us-east-1",
        validation_alias=AliasChoices("AWS_REGION", "AWS_DEFAULT_REGION"),
        description="Region of every AWS client (AWS_REGION, else AWS_DEFAULT_REGION).",
    )
    aws_endpoint_url: str | None = Field(
        default=None,
        validation_alias="AWS_ENDPOINT_URL",
        description="An alternative endpoint for every AWS client (moto's server in the local run and the tests).",
    )
    aws_timeout_seconds: float = Field(
        default=5.0,
        validation_alias="SCORING_AWS_TIMEOUT_SECONDS",
        description="Connect timeout of every AWS client (the read timeout is at least 25 s, above SQS's long poll).",
    )

    anthropic_api_key: SecretStr | None = Field(
        default=None,
        validation_alias="ANTHROPIC_API_KEY",
        description="The judge's Anthropic API key (never logged); or use ANTHROPIC_API_KEY_SECRET_ARN.",
    )
    anthropic_api_key_secret_arn: str | None = Field(
        default=None,
        validation_alias="ANTHROPIC_API_KEY_SECRET_ARN",
        description="The Secrets Manager secret holding the Anthropic API key (plain text), read through Powertools "
        "Parameters.",
    )
    anthropic_base_url: str | None = Field(
        default=None,
        validation_alias="ANTHROPIC_BASE_URL",
        description="An alternative Messages API endpoint (the tests' fake Claude server).",
    )
    judge_timeout_seconds: float = Field(
        default=120.0,
        gt=0,
        validation_alias="JUDGE_TIMEOUT_SECONDS",
        description="Timeout of one judge call.",
    )
    judge_max_tokens: int = Field(
        default=8192,
        ge=256,
        validation_alias="JUDGE_MAX_TOKENS",
        description="Most tokens the judge may answer with (max_tokens of each call).",
    )
    judge_max_retries: int = Field(
        default=3,
        ge=0,
        validation_alias="JUDGE_MAX_RETRIES",
        description="Retries of a transient judge failure within one delivery (429, 5xx, 529, timeouts, connection "
        "errors).",
    )
    judge_retry_base_seconds: float = Field(
        default=1.0,
        ge=0,
        validation_alias="JUDGE_RETRY_BASE_SECONDS",
        description="First backoff between judge retries; it doubles each time (1 s, 2 s, 4 s by default).",
    )
    judge_max_retry_wait_seconds: float = Field(
        default=5.0,
        ge=0,
        validation_alias="JUDGE_MAX_RETRY_WAIT_SECONDS",
        description="Longest wait before a judge retry slept inside the scorer. A rate limit (429/529) asking for a "
        "longer retry-after gives the job back to the queue with that delay instead of sleeping.",
    )
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
    source_retry_base_seconds: float = Field(
        default=0.5,
        ge=0,
        validation_alias="SCORING_SOURCE_RETRY_BASE_SECONDS",
        description="First backoff between retries of a TARSy request (exponential).",
    )

    writeback_enabled: bool = Field(
        default=False,
        validation_alias="SCORING_WRITEBACK",
        description="Write each completed score back to the trace it came from, when sessions come from a trace "
        "store (session_source.type phoenix or mlflow): a Phoenix span annotation or an MLflow assessment. A failed "
        "write-back never fails the score; the job comes back through the queue to retry it.",
    )
    writeback_name: str = Field(
        default="session_score",
        min_length=1,
        max_length=100,
        validation_alias="SCORING_WRITEBACK_NAME",
        description="Name of the annotation (Phoenix) or assessment (MLflow) holding the total; each dimension is "
        "written as NAME.DIMENSION (e.g. session_score.logical_flow).",
    )
    writeback_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=60,
        validation_alias="SCORING_WRITEBACK_TIMEOUT_SECONDS",
        description="Connect and read timeout of each write-back request to the trace store.",
    )

    import_max_bytes: int = Field(
        default=5 * 1024 * 1024,
        ge=4096,
        le=6 * 1024 * 1024,
        validation_alias="SCORING_IMPORT_MAX_BYTES",
        description="Largest session upload accepted by POST .../sessions:import, in bytes (API Gateway and "
        "Lambda allow 6 MB); larger uploads get 413 naming this limit.",
    )
    require_authentication: bool = Field(
        default=False,
        validation_alias="SCORING_REQUIRE_AUTH",
        description="Every API route but GET /health answers 401 unless the request names its caller (JWT authorizer "
        "claims, whatever API Gateway route delivered it, or a trusted proxy's X-Forwarded-User) and 403 unless the "
        "caller has the route's role. Off (the local default): nothing is checked and every caller may do "
        "everything. The template sets it whenever JwtIssuer is configured.",
    )
    trust_forwarded_user: bool = Field(
        default=False,
        validation_alias="SCORING_TRUST_FORWARDED_USER",
        description="Take the caller from X-Forwarded-User / X-Forwarded-Email and their groups from "
        "X-Forwarded-Groups (comma-separated); only behind a proxy that sets them (oauth2-proxy). Without it those "
        "headers are ignored.",
    )
    role_claim: str = Field(
        default="cognito:groups",
        min_length=1,
        validation_alias="SCORING_ROLE_CLAIM",
        description="The token claim the caller's roles come from, e.g. cognito:groups, groups, roles, or scope "
        '(OAuth scopes, space-separated). A list claim may arrive as API Gateway writes it ("[a b]"), as JSON '
        "or comma-separated.",
    )
    role_map: Annotated[dict[str, RoleName], NoDecode] = Field(
        default_factory=dict,
        validation_alias="SCORING_ROLE_MAP",
        description="Which role each value of the role claim (or of X-Forwarded-Groups) grants: JSON "
        '(`{"sre-admins": "admin", "sre": "operator"}`) or `value=role` pairs separated by commas '
        "(`scoring/read=viewer,scoring/write=operator`). Empty: the values viewer, labeller, operator and admin "
        "grant themselves.",
    )
    default_role: RoleName | None = Field(
        default=None,
        validation_alias="SCORING_DEFAULT_ROLE",
        description="The role every authenticated caller has even when no value of theirs maps to one (e.g. viewer); "
        "empty: none.",
    )
    snapstart: bool = Field(
        default=False,
        validation_alias="SCORING_SNAPSTART",
        description="The API function is published with Lambda SnapStart: its before-snapshot hook imports and "
        "builds everything a request needs and rehearses the GET with a database connection it closes before the "
        "snapshot, and its after-restore hook connects and runs the GET's statement once (set by the template's "
        "SnapStart parameter).",
    )
    cors_origins: str = Field(
        default="",
        validation_alias="SCORING_CORS_ORIGINS",
        description="Comma-separated origins allowed to call the API from a browser (behind API Gateway, its own "
        "CORS configuration answers first).",
    )
    port: int = Field(default=8000, ge=1, le=65535, validation_alias="PORT", description="Port of the local API.")
    local_data_dir: Path = Field(
        default=_REPO_ROOT / ".local",
        validation_alias="SCORING_LOCAL_DATA_DIR",
        description="Where the local stack (`make run`) keeps its embedded PostgreSQL data.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO",
        validation_alias="LOG_LEVEL",
        description="Level of the JSON logs (Powertools' Logger reads the same variable).",
    )

    template_variables: dict[str, str] = Field(default_factory=dict, exclude=True, repr=False)

    @field_validator(*_EMPTY_MEANS_UNSET, mode="before")
    @classmethod
    def _empty_is_unset(cls, value: object) -> object:
        """``VAR=`` (set but empty, common in shell profiles) means unset, not an empty key or URL."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("role_map", mode="before")
    @classmethod
    def _role_map_from_text(cls, value: object) -> object:
        """``SCORING_ROLE_MAP`` as JSON or as ``value=role`` pairs; the roles themselves are checked by the type."""
        if not isinstance(value, str):
            return value
        text = value.strip()
        if not text:
            return {}
        if text.startswith("{"):
            try:
                return json.loads(text)
            except ValueError as exc:
                raise ValueError(f"not a JSON object ({exc})") from None
        pairs = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            claim_value, equals, role = item.rpartition("=")
            if not equals or not claim_value.strip():
                raise ValueError(f"{item!r} is not value=role (or give a JSON object)")
            pairs[claim_value.strip()] = role.strip()
        return pairs

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


class SettingsError(ValueError):
    """A setting from the environment is invalid; the message names the variable, the value and what is allowed."""


def load_settings() -> Settings:
    """Read the environment now (tests and the local stack call this after changing it).

    Raises :class:`SettingsError` with one line per bad variable instead of pydantic's multi-line report.
    """
    try:
        return Settings(template_variables=dict(os.environ))
    except ValidationError as exc:
        raise SettingsError(describe_settings_error(exc)) from None


def _variable_of(field_name: str) -> str:
    field = Settings.model_fields.get(field_name)
    alias = field.validation_alias if field is not None else None
    if isinstance(alias, str):
        return alias
    if isinstance(alias, AliasChoices):
        return " or ".join(str(choice) for choice in alias.choices)
    return field_name.upper()


def describe_settings_error(exc: ValidationError) -> str:
    """``SCORING_LEASE_SECONDS=10 is invalid: Input should be greater than or equal to 30``, one line per problem.

    Values of secret settings are never repeated.
    """
    problems = []
    for error in exc.errors(include_url=False):
        field_name = str(error["loc"][0]) if error.get("loc") else ""
        variable = _variable_of(field_name)
        field = Settings.model_fields.get(field_name)
        secret = field is not None and "SecretStr" in str(field.annotation)
        shown = "(hidden)" if secret else repr(error.get("input"))[:80]
        allowed = error.get("msg", "invalid value")
        problems.append(f"{variable}={shown} is invalid: {allowed}; fix or unset {variable}")
    return "; ".join(problems)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read on first use (never at import)."""
    return load_settings()
