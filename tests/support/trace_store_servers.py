"""Real Arize Phoenix and MLflow tracking servers for the trace-store tests, and a fault proxy in front of them.

The servers come from PyPI, installed by ``make trace-stores`` into a virtual environment of their own
(``.local/trace-stores-venv``, pins in ``requirements-trace-stores.txt``: their dependencies are not the service's).
Each runs on a free loopback port with SQLite in a temporary directory, in a process group of its own; readiness is
polled on its health endpoint with a deadline, and :meth:`StoreServer.stop` ends the group. The agents' side (sending
traces, reading annotations back) runs in that environment too: :func:`run_agents` calls
``tests/support/trace_store_agents.py`` with its interpreter.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx

from devstack.aws import free_port
from tests.support.devstack_process import ServerFailedError, wait_healthy
from tests.support.loopback import LoopbackHttpServer, QuietHandler, send_json

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "tests" / "support" / "trace_store_agents.py"
FIXTURES = ROOT / "tests" / "fixtures" / "trace_stores" / "investigations.json"
READY_DEADLINE_SECONDS = 240.0
"""A first start compiles the servers' bytecode: minutes on a busy two-core machine, seconds after that."""


def _quiet_environment(extra: dict[str, str]) -> dict[str, str]:
    """The servers' environment: the machine's, without the service's settings, with telemetry off."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCORING_", "AWS_", "ANTHROPIC_"))}
    env.update({"DO_NOT_TRACK": "1", "PYTHONUNBUFFERED": "1", **extra})
    return env


@dataclass
class StoreServer:
    name: str
    url: str
    health_path: str
    process: subprocess.Popen[bytes]
    log: Path

    def log_tail(self, lines: int = 30) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def wait_ready(self, deadline_seconds: float = READY_DEADLINE_SECONDS) -> None:
        """Poll the health endpoint until it answers 200; fail with the server's log past the deadline."""
        try:
            wait_healthy(self.name, f"{self.url}{self.health_path}", self.process, deadline_seconds, self.log_tail)
        except ServerFailedError:
            self.stop()
            raise

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)


def _start(name: str, command: list[str], env: dict[str, str], workdir: Path, url: str, health: str) -> StoreServer:
    log = workdir / f"{name.lower()}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, cwd=workdir, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    return StoreServer(name, url, health, process, log)


def launch_phoenix(python: Path, workdir: Path) -> StoreServer:
    """Start Phoenix (not yet ready: :meth:`StoreServer.wait_ready`)."""
    port, grpc_port = free_port(), free_port()
    env = _quiet_environment(
        {
            "PHOENIX_WORKING_DIR": str(workdir / "phoenix"),
            "PHOENIX_HOST": "127.0.0.1",
            "PHOENIX_PORT": str(port),
            "PHOENIX_GRPC_PORT": str(grpc_port),
            "PHOENIX_TELEMETRY_ENABLED": "false",
        }
    )
    command = [str(python.parent / "phoenix"), "serve"]
    return _start("Phoenix", command, env, workdir, f"http://127.0.0.1:{port}", "/healthz")


def launch_mlflow(python: Path, workdir: Path) -> StoreServer:
    """Start an MLflow tracking server (not yet ready: :meth:`StoreServer.wait_ready`)."""
    port = free_port()
    command = [
        str(python.parent / "mlflow"),
        "server",
        "--backend-store-uri",
        f"sqlite:///{workdir / 'mlflow.db'}",
        "--default-artifact-root",
        str(workdir / "mlflow-artifacts"),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--workers",
        "1",
    ]
    env = _quiet_environment({"MLFLOW_DISABLE_TELEMETRY": "true"})
    return _start("MLflow", command, env, workdir, f"http://127.0.0.1:{port}", "/health")


def run_agents(python: Path, *args: str) -> Any:
    """Run a command of ``trace_store_agents.py`` with the stores' interpreter; its JSON answer."""
    done = subprocess.run(
        [str(python), str(AGENTS), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=_quiet_environment({"MLFLOW_DISABLE_TELEMETRY": "true", "PHOENIX_TELEMETRY_ENABLED": "false"}),
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"trace_store_agents.py {args[0]} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def investigations() -> list[dict[str, Any]]:
    loaded: list[dict[str, Any]] = json.loads(FIXTURES.read_text(encoding="utf-8"))
    return loaded


# ------------------------------------------------------------------------------------------------ the fault proxy


class FaultProxy(LoopbackHttpServer):
    """Forwards every request to a real store, except that while ``fail_writes`` is set, the store's write of a
    verdict (a POST whose path contains one of ``WRITE_PATHS``) is answered with that status and never forwarded."""

    WRITE_PATHS = ("/span_annotations", "/assessments")

    def __init__(self, target: str) -> None:
        super().__init__()
        self.target = target
        self.fail_writes: int | None = None
        self.refused: list[str] = []
        self._lock = threading.Lock()

    def reset(self) -> None:
        self.fail_writes = None
        self.refused = []

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        proxy = self

        class Handler(QuietHandler):
            def _forward(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                status = proxy.fail_writes
                if status is not None and self.command == "POST" and any(p in self.path for p in proxy.WRITE_PATHS):
                    with proxy._lock:
                        proxy.refused.append(self.path)
                    send_json(self, status, json.dumps({"detail": "injected by the fault proxy"}).encode())
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
                answer = httpx.request(
                    self.command, f"{proxy.target}{self.path}", content=body, headers=headers, timeout=30
                )
                send_json(self, answer.status_code, answer.content)

            do_GET = _forward
            do_POST = _forward

        return Handler
