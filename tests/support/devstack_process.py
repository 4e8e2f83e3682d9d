"""`python -m devstack` (what `make run` starts) as a child process that a test can kill hard, stop and restart on
the same data directory, so the embedded PostgreSQL and its scores outlive the process, as they do for a user."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import ROOT

STARTUP_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LocalStackProcess:
    """One local stack's process at a time, on a free port, with its data under ``data_dir``."""

    def __init__(self, data_dir: Path, **extra_env: str) -> None:
        self.data_dir = data_dir
        self.port = _free_port()
        ours = ("SCORING_", "ANTHROPIC_", "AWS_", "JUDGE_")
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
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise AssertionError(f"the local stack exited with {self._process.returncode}:\n{self.tail()}")
            try:
                if httpx.get(f"{self.base_url}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        raise AssertionError(f"the local stack did not become healthy in {STARTUP_SECONDS} s:\n{self.tail()}")

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
