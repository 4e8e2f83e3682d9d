"""`python -m devstack` (what `make run` starts) as a child process that a test can kill hard, stop and restart on
the same data directory, so the embedded PostgreSQL and its scores outlive the process, as they do for a user; and
the readiness wait every child server of the tests shares (the stack, the trace stores)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import httpx

from devstack.aws import free_port
from tests.conftest import ROOT
from tests.support.fake_claude import FakeClaude, HeldReply

STARTUP_SECONDS = 120


class ServerFailedError(AssertionError):
    """A child server exited, or did not become healthy in time."""


def wait_healthy(
    name: str, health_url: str, process: subprocess.Popen[bytes], seconds: float, log_tail: Callable[[], str]
) -> None:
    """Poll ``health_url`` until it answers 200 (readiness polling of a child process, not test synchronisation); fail
    with the tail of the server's log when the process exits or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerFailedError(f"{name} exited with {process.returncode}:\n{log_tail()}")
        try:
            if httpx.get(health_url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise ServerFailedError(f"{name} did not become healthy in {seconds:g} s:\n{log_tail()}")


@contextmanager
def stack_directory(prefix: str) -> Iterator[Path]:
    """A fresh data directory for a local stack, removed afterwards."""
    data_dir = Path(tempfile.mkdtemp(prefix=prefix))
    data_dir.chmod(0o755)  # the embedded PostgreSQL runs as its own user when we are root
    try:
        yield data_dir
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


class LocalStackProcess:
    """One local stack's process at a time, on a free port, with its data under ``data_dir``."""

    def __init__(self, data_dir: Path, **extra_env: str) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        ours = ("SCORING_", "ANTHROPIC_", "AWS_", "JUDGE_", "POWERTOOLS_")
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(ours) and key not in {"PORT", "DEFAULT_LLM_PROVIDER"}
        }
        self._env = env | {"PORT": str(self.port), "SCORING_LOCAL_DATA_DIR": str(data_dir)} | extra_env
        self.log = data_dir / "stack.log"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start the stack and wait until it answers /health (readiness polling of a child, not synchronisation)."""
        with self.log.open("ab") as out:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "devstack"], cwd=ROOT, env=self._env, stdout=out, stderr=subprocess.STDOUT
            )
        wait_healthy("the local stack", f"{self.base_url}/health", self._process, STARTUP_SECONDS, self.tail)

    def kill(self) -> None:
        """SIGKILL: no clean-up runs (the queue dies with the process; claims keep their leases)."""
        assert self._process is not None
        self._process.send_signal(signal.SIGKILL)
        self._process.wait(timeout=30)

    def terminate(self) -> int:
        """SIGTERM, as a service manager stops it; returns the exit code."""
        assert self._process is not None
        self._process.send_signal(signal.SIGTERM)
        return self._process.wait(timeout=60)

    def output(self) -> str:
        """Everything the stack printed, over all its starts."""
        return self.log.read_text(errors="replace")

    def tail(self, characters: int = 3000) -> str:
        return self.output()[-characters:]

    def get(self, path: str) -> Any:
        return httpx.get(f"{self.base_url}{path}", timeout=10)

    def post(self, path: str, body: Any = None) -> Any:
        return httpx.post(f"{self.base_url}{path}", json=body, timeout=10)

    def start_an_attempt(self, path: str, judge: FakeClaude) -> tuple[str, HeldReply]:
        """Ask for the score at ``path`` and hold the judge's answer once the scorer asks: the attempt's id (in
        progress) and the held answer."""
        held = HeldReply(judge)
        response = self.post(path)
        assert response.status_code == 202, response.text
        assert held.arrived.wait(60), f"the judge was not called:\n{self.tail()}"
        score = self.get(path).json()
        assert score["status"] == "in_progress"
        return str(score["score_id"]), held

    def wait_ended(self, path: str, score_id: str, deadline: float) -> dict[str, Any]:
        """The score at ``path`` once its attempt ``score_id`` has ended, or as it is at ``deadline`` (a
        ``time.monotonic()``): polling the child stack for the state a test measures, bounded."""
        score: dict[str, Any] = self.get(path).json()
        while score["score_id"] != score_id or score["status"] in ("pending", "in_progress"):
            if time.monotonic() >= deadline:
                break
            time.sleep(0.5)
            score = self.get(path).json()
        return score

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "postgres"

    def database_url(self) -> str:
        """The embedded PostgreSQL's URL (it keeps running after a hard kill of the stack)."""
        from pgserver.utils import PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(self.pgdata)
        assert info is not None, "the embedded PostgreSQL has no postmaster.pid"
        assert info.is_running(), "the embedded PostgreSQL is not running"
        return f"postgresql+pg8000://postgres@/scoring?unix_sock={info.socket_dir}/.s.PGSQL.{info.port}"

    def close(self) -> None:
        """Stop the process if it runs, then the embedded PostgreSQL: after a hard kill the stack no longer stops it
        on its own (pgserver stops the server with the last process that opened it, and a killed one never says)."""
        if self._process is not None and self._process.poll() is None:
            self._process.send_signal(signal.SIGINT)
            try:
                self._process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        from pgserver.utils import PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(self.pgdata)
        if info is not None and info.is_running():
            process = info.process
            process.send_signal(signal.SIGINT)  # fast shutdown
            process.wait(timeout=30)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, _traceback: TracebackType | None
    ) -> None:
        self.close()


@contextmanager
def judged_stack(judge_url: str, judge_timeout_seconds: int) -> Iterator[LocalStackProcess]:
    """A local stack (not started) in a fresh data directory, judged by the fake Messages API at ``judge_url``."""
    with (
        stack_directory("scoring-recovery-") as data_dir,
        LocalStackProcess(
            data_dir,
            SCORING_LLM_PROVIDER="anthropic",
            ANTHROPIC_API_KEY="test-key-not-secret",
            ANTHROPIC_BASE_URL=judge_url,
            JUDGE_TIMEOUT_SECONDS=str(judge_timeout_seconds),
        ) as process,
    ):
        yield process
