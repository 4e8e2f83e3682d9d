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
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AliasChoices, BeforeValidator, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

_REPO_ROOT = Path(__file__).resolve().parents[4]


def _checkout_or_layer(relative: str, marker: str = "") -> Path:
    """``relative`` in a checkout, or the copy shipped in the core layer under /opt in Lambda (found by ``marker``)."""
    for candidate in (_REPO_ROOT / relative, Path("/opt") / relative):
        if (candidate / marker).is_file():
            return candidate
    return _REPO_ROOT / relative


def _from_env(variable: str | AliasChoices, default: Any, description: str, **bounds: Any) -> Any:
    """The field of a setting read from ``variable`` (the docs' environment table shows its default and
    description)."""
    return Field(default, validation_alias=variable, description=description, **bounds)


RoleName = Literal["viewer", "labeller", "operator", "admin"]
"""The API's roles, each allowed what the one before it is and more (``models/access.py`` holds their order)."""


def _empty_is_unset(value: object) -> object:
    """``VAR=`` (set but empty, common in shell profiles) means unset, not an empty key or URL."""
    return None if isinstance(value, str) and not value.strip() else value


T = TypeVar("T")
OrUnset = Annotated[T | None, BeforeValidator(_empty_is_unset)]
"""An optional secret, URL or name for which an empty value means "not set"."""


class Settings(BaseSettings):
    """Runtime settings. Each field names the environment variable it comes from."""

    model_config = SettingsConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    config_path: Path = Field(
        default_factory=lambda: _checkout_or_layer("config/scoring_config.yaml"),
        validation_alias="SCORING_CONFIG_PATH",
        description="The scoring configuration file: the criteria (provider, model, judge prompt) and where sessions "
        "come from. Default: config/scoring_config.yaml of the checkout, or /opt/config/scoring_config.yaml in Lambda.",
    )
    migrations_dir: Path = Field(
        default_factory=lambda: _checkout_or_layer("migrations", "env.py"),
        validation_alias="SCORING_MIGRATIONS_DIR",
        description="The Alembic migrations folder. Default: migrations/ of the checkout, or /opt/migrations in "
        "Lambda.",
    )
    base_dir: Path = _from_env(
        "SCORING_BASE_DIR",
        _REPO_ROOT,
        "Relative paths in the scoring configuration (e.g. a sessions directory) resolve against this.",
    )

    database_url: OrUnset[SecretStr] = _from_env(
        "SCORING_DATABASE_URL",
        None,
        "PostgreSQL URL, postgresql+pg8000://user:pass@host:5432/db (a plain postgresql:// URL uses "
        "pg8000 too). Takes precedence over the other database settings; never logged.",
    )
    database_secret_arn: OrUnset[str] = _from_env(
        "SCORING_DATABASE_SECRET_ARN",
        None,
        "In AWS: the Secrets Manager secret with the database credentials in RDS's JSON shape (username, "
        "password, host, port, dbname).",
    )
    database_host: OrUnset[str] = _from_env(
        "SCORING_DATABASE_HOST", None, "Database host (e.g. the RDS Proxy endpoint); overrides the secret's host."
    )
    database_name: str = _from_env(
        "SCORING_DATABASE_NAME", "scoring", "Database name, when neither the URL nor the secret gives one."
    )
    database_iam_auth: bool = _from_env(
        "SCORING_DATABASE_IAM_AUTH",
        False,
        "Log in with IAM authentication tokens (RDS Proxy) instead of a password; needs a remote host.",
    )
    database_port: int = _from_env(
        "SCORING_DATABASE_PORT", 5432, "Database port, when neither the URL nor the secret gives one."
    )
    database_user: OrUnset[str] = _from_env(
        "SCORING_DATABASE_USER",
        None,
        "Database user for IAM authentication (RDS Proxy); no secret is read when it is set.",
    )
    database_ssl: Literal["auto", "verify-full", "require", "disable"] = _from_env(
        "SCORING_DATABASE_SSL",
        "auto",
        "TLS to the database. auto: none over a Unix socket or loopback, verify-full otherwise. "
        "verify-full checks the certificate and host name against the system CAs (or SCORING_DATABASE_CA_FILE); "
        "require encrypts without checking the certificate.",
    )
    database_ca_file: OrUnset[Path] = _from_env(
        "SCORING_DATABASE_CA_FILE",
        None,
        "PEM bundle that verifies the database's certificate (e.g. the RDS CA bundle).",
    )
    database_timeout_seconds: float = _from_env(
        "SCORING_DATABASE_TIMEOUT_SECONDS",
        10.0,
        "Socket timeout of every database operation, connecting included.",
        gt=0,
    )
    database_statement_timeout_ms: int = _from_env(
        "SCORING_DATABASE_STATEMENT_TIMEOUT_MS",
        8_000,
        "PostgreSQL statement_timeout of every session, so no query runs unbounded.",
        ge=100,
    )

    queue_url: OrUnset[str] = _from_env(
        "SCORING_QUEUE_URL", None, "The scoring queue (SQS) the API sends jobs to and the scorer consumes."
    )
    dead_letter_queue_url: OrUnset[str] = _from_env(
        "SCORING_DLQ_URL", None, "The scoring queue's dead-letter queue, read by the dlq and redrive commands."
    )
    runs_queue_url: str | None = _from_env(
        "SCORING_RUNS_QUEUE_URL",
        None,
        "The runs queue (SQS): planning messages and the jobs of scoring runs, consumed by the scorer "
        "at a lower concurrency than the scoring queue so a run never delays single requests.",
    )
    exports_bucket: str | None = _from_env(
        "SCORING_EXPORTS_BUCKET",
        None,
        "The stack's exports bucket (S3). When set, the training export is a job written there "
        "(POST /exports/training, then a presigned URL); unset (make run), GET /exports/training streams it.",
    )
    exports_queue_url: str | None = _from_env(
        "SCORING_EXPORTS_QUEUE_URL",
        None,
        "The exports queue (SQS) the API sends export jobs to and the exporter function consumes.",
    )
    export_url_expiry_seconds: int = _from_env(
        "SCORING_EXPORT_URL_EXPIRY_SECONDS",
        3600,
        "How long a completed export's presigned download URL works (at most 7 days, S3's limit; "
        "a URL signed with a Lambda role's temporary credentials ends with them at the latest).",
        ge=60,
        le=604_800,
    )
    max_run_sessions: int = _from_env(
        "SCORING_MAX_RUN_SESSIONS", 1000, "The largest max_sessions a scoring run may ask for.", ge=1
    )
    run_concurrency: int = _from_env(
        "SCORING_RUN_CONCURRENCY",
        2,
        "Scorers working on the runs queue at once (the template's MaximumConcurrency for it); used "
        "for a run's estimated duration.",
        ge=1,
    )
    run_page_size: int = _from_env(
        "SCORING_RUN_PAGE_SIZE",
        100,
        "Sessions a run's planner reads from the source per planning message.",
        ge=1,
        le=500,
    )
    batch_max_requests: int = _from_env(
        "SCORING_BATCH_MAX_REQUESTS",
        1000,
        "Requests per Message Batch a batch-mode run submits (the API allows 100,000 and 256 MB; the "
        "poller also keeps each batch under the size limit).",
        ge=1,
        le=100_000,
    )
    batch_submit_limit: int = _from_env(
        "SCORING_BATCH_SUBMIT_LIMIT",
        5000,
        "Attempts the batch poller submits per tick at most (each needs its session read and rendered).",
        ge=1,
    )
    max_receive_count: int = _from_env(
        "SCORING_MAX_RECEIVE_COUNT",
        5,
        "Deliveries before a job goes to the dead-letter queue; must equal the queue's maxReceiveCount "
        "(the last delivery marks the attempt failed).",
        ge=1,
    )
    max_deferrals: int = _from_env(
        "SCORING_MAX_DEFERRALS",
        20,
        "Times a job may be handed back as a fresh, delayed copy of its message because the judge was "
        "busy (a rate limit with retry-after, the circuit open); such a hand-back uses none of the queue's receives. "
        "The delay grows 30 s, 60 s, ... to 900 s (or the judge's wait when longer), so 20 is about 4 hours of "
        "rate limits. Past it, hand-backs count towards SCORING_MAX_RECEIVE_COUNT again (then the dead-letter "
        "queue). 0 turns deferral off.",
        ge=0,
    )
    breaker_table_name: OrUnset[str] = _from_env(
        "SCORING_BREAKER_TABLE",
        None,
        "DynamoDB table holding the judge's circuit-breaker state, shared by every scorer instance; unset "
        "means no breaker.",
    )
    lease_seconds: int = _from_env(
        "SCORING_LEASE_SECONDS",
        60,
        "How long a claim on an attempt lasts unless renewed. A working scorer renews it every third of "
        "this (a heartbeat), so a scorer that died holds its attempt at most this long; then the reaper (every "
        "minute) or a redelivery takes it over.",
        ge=30,
    )
    redrive_method: Literal["auto", "move-task", "resend"] = _from_env(
        "SCORING_REDRIVE_METHOD",
        "auto",
        "How dead letters go back: SQS StartMessageMoveTask, or receive-and-resend (emulators such as "
        "moto lack the move API). auto = resend when AWS_ENDPOINT_URL points at an emulator, move-task otherwise.",
    )
    breaker_failure_threshold: int = _from_env(
        "SCORING_BREAKER_FAILURE_THRESHOLD",
        5,
        "Consecutive transient judge failures (in one scorer instance) that open the circuit.",
        ge=1,
    )
    breaker_recovery_seconds: int = _from_env(
        "SCORING_BREAKER_RECOVERY_SECONDS",
        60,
        "How long the circuit stays open before one probe call is let through.",
        ge=1,
    )
    breaker_cache_seconds: int = _from_env(
        "SCORING_BREAKER_CACHE_SECONDS",
        5,
        "How long a scorer instance trusts its last read of the shared circuit state.",
        ge=0,
    )

    aws_region: str = _from_env(
        AliasChoices("AWS_REGION", "AWS_DEFAULT_REGION"),
        "us-east-1",
        "Region of every AWS client (AWS_REGION, else AWS_DEFAULT_REGION).",
    )
    aws_endpoint_url: OrUnset[str] = _from_env(
        "AWS_ENDPOINT_URL",
        None,
        "An alternative endpoint for every AWS client (moto's server in the local run and the tests).",
    )
    aws_timeout_seconds: float = _from_env(
        "SCORING_AWS_TIMEOUT_SECONDS",
        5.0,
        "Connect timeout of every AWS client (the read timeout is at least 25 s, above SQS's long poll).",
    )

    anthropic_api_key: OrUnset[SecretStr] = _from_env(
        "ANTHROPIC_API_KEY", None, "The judge's Anthropic API key (never logged); or use ANTHROPIC_API_KEY_SECRET_ARN."
    )
    anthropic_api_key_secret_arn: OrUnset[str] = _from_env(
        "ANTHROPIC_API_KEY_SECRET_ARN",
        None,
        "The Secrets Manager secret holding the Anthropic API key (plain text), read through Powertools Parameters.",
    )
    anthropic_base_url: OrUnset[str] = _from_env(
        "ANTHROPIC_BASE_URL", None, "An alternative Messages API endpoint (the tests' fake Claude server)."
    )
    llm_providers_file: OrUnset[Path] = _from_env(
        "SCORING_LLM_PROVIDERS_FILE",
        None,
        "A TARSy Go providers file (llm-providers.yaml, a top-level llm_providers: map): its names may be given as "
        "SCORING_LLM_PROVIDER or as jurors, beside tarsy-bot's built-in names (docs/judges.md).",
    )
    openai_base_url: OrUnset[str] = _from_env(
        "OPENAI_BASE_URL",
        None,
        "The OpenAI judge's endpoint when its provider entry gives no base_url (an OpenAI-compatible server; the "
        "tests' fake).",
    )
    google_base_url: OrUnset[str] = _from_env(
        "GOOGLE_GEMINI_BASE_URL",
        None,
        "The Gemini judge's endpoint when its provider entry gives no base_url (the tests' fake Gemini API).",
    )
    vertex_base_url: OrUnset[str] = _from_env(
        "ANTHROPIC_VERTEX_BASE_URL",
        None,
        "The Claude-on-Vertex-AI judge's endpoint when its provider entry gives no base_url (the tests' fake).",
    )
    vertex_access_token: OrUnset[SecretStr] = _from_env(
        "SCORING_VERTEX_ACCESS_TOKEN",
        None,
        "A Google Cloud OAuth access token for Vertex AI judges (never logged); unset: Google's application default "
        "credentials (GOOGLE_APPLICATION_CREDENTIALS, workload identity federation).",
    )
    judge_timeout_seconds: float = _from_env("JUDGE_TIMEOUT_SECONDS", 120.0, "Timeout of one judge call.", gt=0)
    judge_max_tokens: int = _from_env(
        "JUDGE_MAX_TOKENS", 8192, "Most tokens the judge may answer with (max_tokens of each call).", ge=256
    )
    judge_max_retries: int = _from_env(
        "JUDGE_MAX_RETRIES",
        3,
        "Retries of a transient judge failure within one delivery (429, 5xx, 529, timeouts, connection errors).",
        ge=0,
    )
    judge_retry_base_seconds: float = _from_env(
        "JUDGE_RETRY_BASE_SECONDS",
        1.0,
        "First backoff between judge retries; it doubles each time (1 s, 2 s, 4 s by default).",
        ge=0,
    )
    judge_max_retry_wait_seconds: float = _from_env(
        "JUDGE_MAX_RETRY_WAIT_SECONDS",
        5.0,
        "Longest wait before a judge retry slept inside the scorer. A rate limit (429/529) asking for a "
        "longer retry-after gives the job back to the queue with that delay instead of sleeping.",
        ge=0,
    )
    judge_context_tokens: int = _from_env(
        "JUDGE_CONTEXT_TOKENS", 200_000, "The judge model's context window, in tokens.", ge=4_096
    )
    judge_input_budget_tokens: OrUnset[int] = _from_env(
        "JUDGE_INPUT_BUDGET_TOKENS",
        None,
        "Most estimated tokens sent to the judge; default: the context minus the output and a margin.",
        ge=1_024,
    )
    source_retry_base_seconds: float = _from_env(
        "SCORING_SOURCE_RETRY_BASE_SECONDS",
        0.5,
        "First backoff between retries of a TARSy request (exponential).",
        ge=0,
    )

    writeback_enabled: bool = _from_env(
        "SCORING_WRITEBACK",
        False,
        "Write each completed score back to the trace it came from, when sessions come from a trace "
        "store (session_source.type phoenix or mlflow): a Phoenix span annotation or an MLflow assessment. A failed "
        "write-back never fails the score; the job comes back through the queue to retry it.",
    )
    writeback_name: str = _from_env(
        "SCORING_WRITEBACK_NAME",
        "session_score",
        "Name of the annotation (Phoenix) or assessment (MLflow) holding the total; each dimension is "
        "written as NAME.KEY, KEY the dimension's key in the score's rubric.",
        min_length=1,
        max_length=100,
    )
    writeback_timeout_seconds: float = _from_env(
        "SCORING_WRITEBACK_TIMEOUT_SECONDS",
        10.0,
        "Connect and read timeout of each write-back request to the trace store.",
        gt=0,
        le=60,
    )

    import_max_bytes: int = _from_env(
        "SCORING_IMPORT_MAX_BYTES",
        5 * 1024 * 1024,
        "Largest session upload accepted by POST .../sessions:import, in bytes (API Gateway and "
        "Lambda allow 6 MB); larger uploads get 413 naming this limit.",
        ge=4096,
        le=6 * 1024 * 1024,
    )
    require_authentication: bool = _from_env(
        "SCORING_REQUIRE_AUTH",
        False,
        "Every API route but GET /health answers 401 unless the request names its caller (JWT authorizer "
        "claims, whatever API Gateway route delivered it, or a trusted proxy's X-Forwarded-User) and 403 unless the "
        "caller has the route's role. Off (the local default): nothing is checked and every caller may do "
        "everything. The template sets it whenever JwtIssuer is configured.",
    )
    trust_forwarded_user: bool = _from_env(
        "SCORING_TRUST_FORWARDED_USER",
        False,
        "Take the caller from X-Forwarded-User / X-Forwarded-Email and their groups from X-Forwarded-Groups "
        "(comma-separated); only behind a proxy that sets them (oauth2-proxy). Without it those headers are ignored.",
    )
    role_claim: str = _from_env(
        "SCORING_ROLE_CLAIM",
        "cognito:groups",
        "The token claim the caller's roles come from, e.g. cognito:groups, groups, roles, or scope "
        '(OAuth scopes, space-separated). A list claim may arrive as API Gateway writes it ("[a b]"), as JSON '
        "or comma-separated.",
        min_length=1,
    )
    role_map: Annotated[dict[str, RoleName], NoDecode] = Field(
        default_factory=dict,
        validation_alias="SCORING_ROLE_MAP",
        description="Which role each value of the role claim (or of X-Forwarded-Groups) grants: JSON "
        '(`{"sre-admins": "admin", "sre": "operator"}`) or `value=role` pairs separated by commas '
        "(`scoring/read=viewer,scoring/write=operator`). Empty: the values viewer, labeller, operator and admin "
        "grant themselves.",
    )
    default_role: OrUnset[RoleName] = _from_env(
        "SCORING_DEFAULT_ROLE",
        None,
        "The role every authenticated caller has even when no value of theirs maps to one (e.g. viewer); empty: none.",
    )
    snapstart: bool = _from_env(
        "SCORING_SNAPSTART",
        False,
        "The API function is published with Lambda SnapStart: its before-snapshot hook imports and builds everything a "
        "request needs and rehearses the GET with a database connection it closes before the snapshot, and its "
        "after-restore hook connects and runs the GET's statement once (set by the template's SnapStart parameter).",
    )
    cors_origins: str = _from_env(
        "SCORING_CORS_ORIGINS",
        "",
        "Comma-separated origins allowed to call the API from a browser (behind API Gateway, its own "
        "CORS configuration answers first).",
    )
    port: int = _from_env("PORT", 8000, "Port of the local API.", ge=1, le=65535)
    local_allowed_hosts: str = _from_env(
        "SCORING_LOCAL_ALLOWED_HOSTS",
        "127.0.0.1,localhost,[::1]",
        "Comma-separated host names the local server (`make run`) answers, port aside: a request naming any other "
        "Host is refused (421), so a page that rebinds its own DNS name to 127.0.0.1 cannot read the API. Add the "
        "name a proxy in front forwards. Not used behind API Gateway.",
    )
    local_data_dir: Path = _from_env(
        "SCORING_LOCAL_DATA_DIR",
        _REPO_ROOT / ".local",
        "Where the local stack (`make run`) keeps its embedded PostgreSQL data.",
    )
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = _from_env(
        "LOG_LEVEL", "INFO", "Level of the JSON logs (Powertools' Logger reads the same variable)."
    )

    template_variables: dict[str, str] = Field(default_factory=dict, exclude=True, repr=False)

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


def describe_settings_error(exc: ValidationError) -> str:
    """``SCORING_LEASE_SECONDS=10 is invalid: Input should be greater than or equal to 30``, one line per problem.

    Values of secret settings are never repeated.
    """
    problems = []
    for error in exc.errors(include_url=False):
        field_name = str(error["loc"][0]) if error.get("loc") else ""
        field = Settings.model_fields.get(field_name)
        alias = field.validation_alias if field is not None else None
        if isinstance(alias, AliasChoices):
            variable = " or ".join(str(choice) for choice in alias.choices)
        else:
            variable = alias if isinstance(alias, str) else field_name.upper()
        secret = field is not None and "SecretStr" in str(field.annotation)
        shown = "(hidden)" if secret else repr(error.get("input"))[:80]
        allowed = error.get("msg", "invalid value")
        problems.append(f"{variable}={shown} is invalid: {allowed}; fix or unset {variable}")
    return "; ".join(problems)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read on first use (never at import)."""
    return load_settings()
