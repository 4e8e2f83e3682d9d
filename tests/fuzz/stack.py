"""The local stack the campaign attacks: `python -m devstack` as a process on a free loopback port, with a PostgreSQL
of the campaign's own (so the campaign can count rows behind the API), moto, the heuristic judge and the worker.

Only 127.0.0.1 is ever addressed: the API, moto and PostgreSQL's Unix socket.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
from sqlalchemy import Engine, create_engine

from tests.conftest import ROOT, SAMPLES

STARTUP_SECONDS = 120


class StackFailedError(RuntimeError):
    """The local stack did not start, or died."""


@dataclass(frozen=True)
class LocalStack:
    base_url: str
    database: Engine
    """An engine on the stack's database, for counting rows behind the API (never for writes)."""
    log: Path
    sessions_dir: Path
    """Where the stack's file source reads sessions (a copy of the samples; the campaign may add its own)."""


def extra_settings() -> dict[str, str]:
    """FUZZ_STACK_ENV: settings for the stack, ``NAME=value`` separated by commas (to attack another configuration,
    e.g. ``SCORING_DATABASE_PREPARED_STATEMENTS=off``)."""
    pairs = [item.split("=", 1) for item in os.environ.get("FUZZ_STACK_ENV", "").split(",") if "=" in item]
    return {name.strip(): value.strip() for name, value in pairs}


def _free_port() -> int:
    from devstack.aws import free_port

    return free_port()


def _wait_healthy(base_url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise StackFailedError(f"the local stack exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(f"{base_url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)  # readiness polling of a child process
    raise StackFailedError(f"the local stack did not become healthy in {STARTUP_SECONDS} s:\n{log.read_text()[-3000:]}")


@contextmanager
def running_stack(keep_log: Path | None = None) -> Iterator[LocalStack]:
    """Start PostgreSQL, then the stack on it; stop both (and remove their data) on exit, first copying the stack's
    log to ``keep_log``."""
    from devstack.postgres import start_postgres

    data_dir = Path(tempfile.mkdtemp(prefix="scoring-fuzz-"))
    data_dir.chmod(0o755)  # the embedded PostgreSQL runs as its own user when we are root
    sessions_dir = data_dir / "sessions"
    shutil.copytree(SAMPLES, sessions_dir)
    url, server = start_postgres(data_dir / "pgdata", database="fuzz")
    engine = create_engine(url, pool_size=1, max_overflow=0)
    port = _free_port()
    ours = ("SCORING_", "ANTHROPIC_", "AWS_", "JUDGE_", "POWERTOOLS_")
    env = {key: value for key, value in os.environ.items() if not key.startswith(ours) and key != "PORT"}
    env |= {
        "PORT": str(port),
        "SCORING_LOCAL_DATA_DIR": str(data_dir),
        "SCORING_DATABASE_URL": url,
        "SCORING_SESSIONS_DIR": str(sessions_dir),
        "SCORING_LLM_PROVIDER": "heuristic",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }
    env |= extra_settings()
    log = data_dir / "stack.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "devstack"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(base_url, process, log)
        yield LocalStack(base_url, engine, log, sessions_dir)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if keep_log is not None and log.is_file():
            shutil.copyfile(log, keep_log)
        engine.dispose()
        server.cleanup()
        shutil.rmtree(data_dir, ignore_errors=True)
