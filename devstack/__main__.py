"""`make run`: the whole service on this machine, on embedded defaults.

- PostgreSQL: embedded (pgserver), data under .local/postgres so scores survive a restart (SCORING_LOCAL_DATA_DIR
  moves it); SCORING_DATABASE_URL selects an external server instead.
- SQS and DynamoDB: moto's server on 127.0.0.1.
- The judge: Claude when ANTHROPIC_API_KEY is set, otherwise the offline heuristic judge (SCORING_LLM_PROVIDER
  overrides either way).
- The API on http://127.0.0.1:8000 (PORT to change) and queue pollers feeding the scoring queue and the runs queue
  to the scoring handler.
- Metrics: the scorer prints its CloudWatch EMF lines (JSON with an ``_aws`` key) to stdout; tracing is off.
- The reaper: at start-up every attempt left active by a previous run is requeued (the queue is new), then it runs
  every minute. Stopping the stack (Ctrl-C, SIGTERM) gives the claims of jobs still in flight back (``pending``), so
  the next start scores them at once; after a hard kill they wait for their lease (``SCORING_LEASE_SECONDS``).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

REAP_INTERVAL_SECONDS = 60.0
"""The local reaper's period, as the reaper function's schedule in template.yaml."""
SHUTDOWN_NOTE = (
    "released: the local stack stopped while this attempt was being scored; it is scored again when the stack starts"
)
BATCH_POLL_INTERVAL_SECONDS = 30.0
"""The batch poller's local schedule (batch-mode runs; with the Anthropic judge only)."""
AUTO_SCORING_TICK_SECONDS = 60.0
"""How often the local auto-scoring schedule asks whether an auto run is due."""


class Periodic:
    """Runs ``action`` every ``interval`` seconds on a daemon thread until stopped (a local stand-in for a schedule)."""

    def __init__(self, interval: float, action: Callable[[], Any], name: str) -> None:
        self._interval = interval
        self._action = action
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stopped.wait(self._interval):
            try:
                self._action()
            except Exception as exc:  # noqa: BLE001 - keep the local schedule alive, like a real one
                print(f"[{self._thread.name}] error: {exc}", flush=True)


def _load_settings() -> Any:
    """The settings the user asked for; None, the error printed, when they are invalid."""
    from session_scoring.configuration.settings import SettingsError, load_settings

    try:
        return load_settings()
    except SettingsError as exc:
        print(f"session-scoring: configuration error: {exc}", file=sys.stderr, flush=True)
        return None


def _embedded_database(settings: Any) -> str | None:
    """Start (or share) the embedded PostgreSQL unless SCORING_DATABASE_URL is set, and set it; None if external."""
    if settings.database_url is not None:
        return None
    from devstack.postgres import start_postgres

    url, _pg = start_postgres(settings.local_data_dir / "postgres")
    os.environ["SCORING_DATABASE_URL"] = url
    return url


def _container(settings: Any) -> Any:
    """A new container, its judge by default Claude when an API key is set, else the heuristic judge, unless
    SCORING_LLM_PROVIDER says (the judge is part of the criteria hash: the stack and its seeding must agree on it)."""
    from session_scoring.container import get_container, reset_container

    if not settings.template_variables.get("SCORING_LLM_PROVIDER"):
        has_key = settings.anthropic_api_key is not None or settings.anthropic_api_key_secret_arn
        os.environ["SCORING_LLM_PROVIDER"] = "anthropic" if has_key else "heuristic"
    reset_container()
    return get_container()


def seed(argv: list[str]) -> int:
    """`python -m devstack seed`: demo scores in the database `make run` uses (its embedded PostgreSQL, running or
    not, or SCORING_DATABASE_URL); see devstack/seed.py."""
    from devstack import seed as seeding
    from session_scoring.errors import ScoringError

    settings = _load_settings()
    if settings is None:
        return 2
    _embedded_database(settings)
    container = _container(settings)
    try:
        container.schema_service.upgrade()  # a database the stack never started is migrated first
        return seeding.main(argv, container)
    except ScoringError as exc:
        print(f"error: {exc.message}", file=sys.stderr, flush=True)
        return 2


def cli(argv: list[str]) -> int:
    """`python -m devstack cli ...` (`make cli ARGS="..."`): the operator CLI (`session-scoring`) with the settings
    `make run` uses: its embedded PostgreSQL (or SCORING_DATABASE_URL) and its judge, so "current" criteria are the
    stack's (a bare CLI without an API key would name Claude's criteria, under which the stack scored nothing)."""
    from session_scoring.entrypoints import cli as operator_cli

    settings = _load_settings()
    if settings is None:
        return 2
    _embedded_database(settings)
    _container(settings)
    return operator_cli.main(argv)


def main() -> int:
    from devstack.aws import LOCAL_CREDENTIALS, client, create_resources, start_moto
    from session_scoring.errors import ScoringError

    settings = _load_settings()  # what the user asked for; the stack then sets the rest of the environment
    if settings is None:
        return 2
    print("session-scoring: starting the local stack", flush=True)
    url = _embedded_database(settings)
    if url is None:
        database_hint = '"$SCORING_DATABASE_URL"'  # an external URL may hold a password: never print it
        print("  postgres : external (SCORING_DATABASE_URL)", flush=True)
    else:
        database_hint = f"'{url}'"
        print(f"  postgres : embedded, data in {settings.local_data_dir / 'postgres'}", flush=True)

    endpoint, moto = start_moto()
    for key, value in LOCAL_CREDENTIALS.items():
        os.environ.setdefault(key, value)
    os.environ["AWS_ENDPOINT_URL"] = endpoint
    resources = create_resources(endpoint)
    os.environ["SCORING_QUEUE_URL"] = resources.queue_url
    os.environ["SCORING_DLQ_URL"] = resources.dead_letter_queue_url
    os.environ["SCORING_RUNS_QUEUE_URL"] = resources.runs_queue_url
    os.environ["SCORING_BREAKER_TABLE"] = resources.breaker_table
    # Powertools: EMF metric lines on stdout under the deployed namespace; no X-Ray daemon here, so no tracing.
    os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "SessionScoring")
    os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
    print(f"  sqs+dynamodb : moto at {endpoint}", flush=True)
    # moto's own placeholder credentials go in the line: on a machine without AWS credentials boto3 would refuse
    # to sign the local request ("Unable to locate credentials") before it ever reached moto.
    local_credentials = " ".join(f"{key}={value}" for key, value in LOCAL_CREDENTIALS.items())
    print(
        "  redrive  : from another shell, "
        f"{local_credentials} AWS_ENDPOINT_URL={endpoint} SCORING_QUEUE_URL={resources.queue_url} "
        f"SCORING_DLQ_URL={resources.dead_letter_queue_url} "
        f"SCORING_DATABASE_URL={database_hint} "
        "make redrive",
        flush=True,
    )

    container = _container(settings)
    try:
        config = container.config
        container.schema_service.upgrade()  # the migrate function's own call: the same lock, errors and log line
        container.score_repository.ensure_criteria(config.criteria_hash, config.criteria_content)
        # moto's queue is new on every start: attempts left active by a previous run have lost their messages.
        reaped = container.reaper.reap(queue_is_new=True)
    except ScoringError as exc:
        print(f"error: {exc.message}", file=sys.stderr, flush=True)
        moto.stop()
        return 2
    judge_note = {
        "anthropic": "Claude via the Anthropic API (ANTHROPIC_API_KEY is set)",
        "heuristic": "the offline heuristic judge (no LLM; set ANTHROPIC_API_KEY to use Claude)",
    }.get(config.llm_provider, config.llm_provider)
    print(f"  judge    : {judge_note}, model {config.llm_model}", flush=True)
    print(f"  criteria : {config.criteria_hash}", flush=True)
    if reaped.requeued or reaped.failed or reaped.planning_resent:
        print(
            f"  reaper   : {reaped.requeued} attempt(s) left active by a previous run requeued, "
            f"{reaped.failed} failed, {reaped.planning_resent} run(s) still planning resumed",
            flush=True,
        )

    from devstack.queue_poller import QueuePoller
    from functions.scorer.app import handler

    workers: list[QueuePoller | Periodic] = [
        QueuePoller(client("sqs", endpoint), resources.queue_url, handler),
        # Scoring runs have their own queue and poller, so single requests never wait behind a run's jobs.
        QueuePoller(client("sqs", endpoint), resources.runs_queue_url, handler, batch_size=2),
        Periodic(REAP_INTERVAL_SECONDS, container.reaper.reap, "reaper"),
        Periodic(
            BATCH_POLL_INTERVAL_SECONDS,
            lambda: container.batch_poller.poll(BATCH_POLL_INTERVAL_SECONDS + 60),
            "batches",
        ),
    ]
    if config.auto_scoring.enabled:  # the service decides when a run is due (auto_scoring.interval_minutes)
        workers.append(Periodic(AUTO_SCORING_TICK_SECONDS, container.auto_scorer.tick, "auto-scoring"))
        print(f"  auto     : a run of unscored sessions every {config.auto_scoring.interval_minutes} min", flush=True)
    for worker in workers:
        worker.start()

    import uvicorn

    from devstack.server import APP, access_summary, server_options

    port = container.settings.port
    print(f"  dashboard: http://127.0.0.1:{port}/  (PORT changes the port; `make seed` adds demo scores)", flush=True)
    print(f"  api      : http://127.0.0.1:{port}/api/v1/scoring  (docs at /docs; Ctrl-C stops everything)", flush=True)
    print(f"  access   : {access_summary(container.settings)}", flush=True)
    # uvicorn stops on SIGINT and SIGTERM, then raises the signal again under the handler it found. SIGTERM's default
    # would end the process on the spot; made to end like Ctrl-C, it runs the clean-up below (claims released).
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        uvicorn.run(APP, log_level="info", factory=True, **server_options(port))
    except KeyboardInterrupt:
        pass  # the stop that was asked for
    finally:
        for worker in reversed(workers):
            worker.stop()
        # A job still waiting for the judge gives its claim back: the attempt is pending again and the next start
        # requeues it at once, instead of waiting for the lease to run out.
        released = container.scorer.release_claims(SHUTDOWN_NOTE)
        moto.stop()
        note = f" ({released} attempt(s) in flight released)" if released else ""
        print(f"session-scoring: stopped{note}", flush=True)
    return 0


if __name__ == "__main__":
    commands = {"seed": seed, "cli": cli}
    command = commands.get(sys.argv[1]) if len(sys.argv) > 1 else None
    sys.exit(command(sys.argv[2:]) if command else main())
