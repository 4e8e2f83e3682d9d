"""Shared fixtures: a real PostgreSQL (pgserver), moto's server, the fake Claude server, and a wired local stack."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import pytest

from tests.support.fault_ledger import LEDGER
from tests.support.loopback import LoopbackHttpServer

if TYPE_CHECKING:
    from tests.support.fake_claude import FakeClaude

ServerT = TypeVar("ServerT", bound=LoopbackHttpServer)

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "config" / "sample_sessions"

THOROUGH_ID = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
SHALLOW_ID = "3f1d2a9e-0b7c-4e55-9a61-2c8d4e6f7a10"
FAILING_TOOLS_ID = "b2c4e6a8-1d3f-4b5a-8c7e-9f0a1b2c3d4e"
IN_PROGRESS_ID = "e5f6a7b8-c9d0-4e1f-a2b3-c4d5e6f7a8b9"


# No test may wait on a cloud metadata service: on a machine where its address hangs instead of refusing, botocore's
# and google-auth's credential lookups would each cost seconds. Every client in the tests is given its credentials.
os.environ.setdefault("AWS_EC2_METADATA_DISABLED", "true")
os.environ.setdefault("NO_GCE_CHECK", "true")

ON_DEMAND = {
    "benchmark": "benchmark: run with `make bench`",
    "soak": "soak: run with `make soak`",
    "recovery": "recovery: run with `make recovery`",
    "fuzz": "fuzz: run with `make fuzz-short` (or `make fuzz`)",
    "trace_stores": "trace stores: run with `make trace-stores`",
}
"""The markers of the tests that run only when selected (``-m MARKER``, as their make target does), and why a plain
run skips them: they are slow (a lease waited out, a campaign, thousands of jobs), print figures, or need servers of
their own."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    selected = config.getoption("markexpr") or ""
    for marker, reason in ON_DEMAND.items():
        if marker in selected:
            continue
        skip = pytest.mark.skip(reason=reason)
        for item in items:
            if item.get_closest_marker(marker):
                item.add_marker(skip)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In a pytest-xdist worker: hand the fault suite's ledger to the controller."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["fault_ledger"] = LEDGER.as_dict()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """In the pytest-xdist controller: add up each worker's fault ledger."""
    LEDGER.add(getattr(node, "workeroutput", {}).get("fault_ledger", {}))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if LEDGER.tests:
        terminalreporter.write_sep("-", "fault suite")
        terminalreporter.write_line(f"{LEDGER.summary()} ({LEDGER.jobs} jobs in {LEDGER.tests} fault tests)")


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh database on an embedded PostgreSQL for the whole test run (or SCORING_TEST_DATABASE_URL)."""
    external = os.environ.get("SCORING_TEST_DATABASE_URL")
    if external:
        yield external
        return
    from devstack.postgres import start_postgres

    data_dir = Path(tempfile.mkdtemp(prefix="scoring-pg-"))
    url, server = start_postgres(data_dir / "pgdata", database=f"test_{uuid.uuid4().hex[:8]}")
    try:
        yield url
    finally:
        server.cleanup()
        shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    from devstack.aws import start_moto

    endpoint, server = start_moto()
    try:
        yield endpoint
    finally:
        server.stop()


@pytest.fixture(scope="session")
def loopback() -> Iterator[Callable[[type[ServerT]], ServerT]]:
    """The one way tests get a fake server: ``loopback(FakeClaude)`` is that fake, running on 127.0.0.1 and reset.

    Each kind is started once per run, on first use, and stopped at the end.
    """
    running: dict[type[LoopbackHttpServer], LoopbackHttpServer] = {}

    def get(kind: type[ServerT]) -> ServerT:
        server = running.get(kind)
        if server is None:
            server = running[kind] = kind().start()
        server.reset()
        assert isinstance(server, kind)
        return server

    try:
        yield get
    finally:
        for server in running.values():
            server.stop()


@pytest.fixture
def fake_claude(loopback: Callable[[type[FakeClaude]], FakeClaude]) -> FakeClaude:
    from tests.support.fake_claude import FakeClaude

    return loopback(FakeClaude)


@pytest.fixture(scope="session")
def migrated_database(postgres_url: str) -> str:
    from sqlalchemy import create_engine

    from session_scoring.configuration.settings import Settings
    from session_scoring.infrastructure import migrate
    from session_scoring.repositories.scores import install_routines

    engine = create_engine(postgres_url)
    try:
        migrate.upgrade(engine, Settings(), then=install_routines)
    finally:
        engine.dispose()
    return postgres_url


@dataclass
class Stack:
    """The service wired like `make run`: API client, queue poller and container, on real PG and moto."""

    client: Any
    poller: Any
    container: Any
    resources: Any
    sqs: Any
    env: dict[str, str]

    def request_score(self, session_id: str, force: bool = False, **headers: str) -> Any:
        body = {"force_rescore": True} if force else None
        return self.client.post(f"/api/v1/scoring/sessions/{session_id}/score", json=body, headers=headers)

    def score(self, session_id: str) -> Any:
        return self.client.get(f"/api/v1/scoring/sessions/{session_id}/score")


def _truncate(url: str) -> None:
    from sqlalchemy import create_engine, text

    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(
            text(
                "TRUNCATE score_alternative_approach_steps, score_alternative_approaches, score_missing_tools, "
                "session_scores, scoring_runs, scoring_criteria_definitions, uploaded_sessions, "
                "latest_scores, latest_score_counts, latest_score_tools, latest_tool_counts, judge_labels, "
                "export_jobs, trend_members, trend_histograms, trend_dimension_sums, comparison_pairs, "
                "comparison_cells, score_writebacks, session_references, outcome_counts, score_dimensions, "
                "score_failure_tags"
            )
        )
    engine.dispose()


JUDGE_VARIABLES = (
    "OPENAI_API_KEY",
    "GOOGLE_API_KEY",
    "XAI_API_KEY",
    "SCORING_LLM_PROVIDERS_FILE",
    "OPENAI_BASE_URL",
    "GOOGLE_GEMINI_BASE_URL",
    "ANTHROPIC_VERTEX_BASE_URL",
    "SCORING_VERTEX_ACCESS_TOKEN",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_LOCATION",
)
"""The other judges' variables: a developer's own keys never reach a test stack."""


@pytest.fixture
def stack_env(migrated_database: str, moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment of a fresh stack: its own queues, a clean database, the heuristic judge by default."""
    from devstack.aws import LOCAL_CREDENTIALS, create_resources

    _truncate(migrated_database)
    resources = create_resources(moto_endpoint, prefix=f"t{uuid.uuid4().hex[:10]}", max_receive_count=3)
    env = {
        **LOCAL_CREDENTIALS,
        "AWS_ENDPOINT_URL": moto_endpoint,
        "SCORING_DATABASE_URL": migrated_database,
        "SCORING_QUEUE_URL": resources.queue_url,
        "SCORING_DLQ_URL": resources.dead_letter_queue_url,
        "SCORING_RUNS_QUEUE_URL": resources.runs_queue_url,
        "SCORING_BREAKER_TABLE": resources.breaker_table,
        "SCORING_MAX_RECEIVE_COUNT": "3",
        "SCORING_LLM_PROVIDER": "heuristic",
        "SCORING_SESSIONS_DIR": str(SAMPLES),
        "JUDGE_RETRY_BASE_SECONDS": "0",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }
    for key in (
        "ANTHROPIC_API_KEY",
        "SCORING_LLM_MODEL",
        "DEFAULT_LLM_PROVIDER",
        "SCORING_ENABLED",
        "SCORING_TRUST_FORWARDED_USER",
        "SCORING_CONFIG_PATH",
        "ANTHROPIC_BASE_URL",
        "SCORING_RUBRIC",
        *JUDGE_VARIABLES,
    ):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    env["_dead_letter_queue_url"] = resources.dead_letter_queue_url
    return env


@pytest.fixture
def make_stack(stack_env: dict[str, str], moto_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Build a stack after optional environment changes: ``make_stack(SCORING_LLM_PROVIDER="anthropic", ...)``."""
    from fastapi.testclient import TestClient

    from devstack.aws import LocalResources, client
    from devstack.queue_poller import QueuePoller
    from session_scoring.container import get_container, reset_container

    built: list[Any] = []

    def build(**overrides: str) -> Stack:
        for key, value in overrides.items():
            monkeypatch.setenv(key, value)
        reset_container()
        from functions.api.app import app
        from functions.scorer.app import handler

        sqs = client("sqs", moto_endpoint)
        resources = LocalResources(
            stack_env["SCORING_QUEUE_URL"], stack_env["SCORING_DLQ_URL"], stack_env["SCORING_BREAKER_TABLE"]
        )
        test_client = TestClient(app)
        built.append(test_client)
        poller = QueuePoller(sqs, resources.queue_url, handler, wait_seconds=0, budget_seconds=120)
        return Stack(test_client, poller, get_container(), resources, sqs, {**stack_env, **overrides})

    yield build
    for test_client in built:
        test_client.close()
    reset_container()


@pytest.fixture
def stack(make_stack: Any) -> Stack:
    result: Stack = make_stack()
    return result


@pytest.fixture
def claude_stack(make_stack: Any, fake_claude: Any) -> Stack:
    """A stack whose judge is Claude through the real SDK, pointed at the fake Messages API server."""
    result: Stack = make_stack(
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="5",
    )
    return result
