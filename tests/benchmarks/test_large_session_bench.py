"""One large upload read by 20 viewers at once, against everyone else: another caller's simple GET (``/health``)
p99 under that load beside its unloaded p99, and the API process's memory, on `python -m devstack` as `make run`
starts it. Prints; asserts nothing about speed (issue 39's goals: within 2x, under 500 MB)."""

from __future__ import annotations

import json
import multiprocessing
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from session_scoring.models.session import SESSION_FORMAT
from tests.benchmarks.conftest import BenchTable, report
from tests.benchmarks.test_paths_bench import p99
from tests.support.devstack_process import LocalStackProcess, stack_directory

pytestmark = pytest.mark.benchmark
TOOL_CALLS = 40_000
READERS = 20
LOADED_SECONDS = 20
PROBES = 200
READERS_START_SECONDS = 4


def large_document() -> dict[str, Any]:
    """About 5 MB: TOOL_CALLS tool calls in one stage, each with a short result."""
    steps = [
        {
            "kind": "tool_call",
            "tool_call": {"name": f"p{i:05d}", "server": "k8s", "arguments": {}, "result": "r" * 20},
        }
        for i in range(TOOL_CALLS)
    ]
    return {
        "format": SESSION_FORMAT,
        "session_id": "bench-large",
        "status": "completed",
        "stages": [{"name": "investigate", "agent": "KubernetesAgent", "steps": steps}],
        "final_analysis": "done",
    }


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _probe(client: httpx.Client, calls: int) -> list[float]:
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        client.get("/health")
        times.append((time.perf_counter() - start) * 1000)
    return times


def _read_for(base_url: str, session_id: str, seconds: float) -> dict[int, int]:
    """A viewer reading the large upload's view over and over for ``seconds``: its answers by status."""
    statuses: Counter[int] = Counter()
    deadline = time.monotonic() + seconds
    with httpx.Client(base_url=base_url, timeout=120) as client:
        while time.monotonic() < deadline:
            statuses[client.get(f"/api/v1/scoring/sessions/{session_id}").status_code] += 1
    return dict(statuses)


def test_other_callers_under_twenty_readers_of_a_large_upload(bench_table: BenchTable) -> None:
    with stack_directory("scoring-bench-large-") as data_dir, LocalStackProcess(data_dir) as stack:
        stack.start()
        body = json.dumps(large_document())
        with httpx.Client(base_url=stack.base_url, timeout=120) as client:
            imported = client.post(
                "/api/v1/scoring/sessions:import", content=body, headers={"content-type": "application/json"}
            )
            assert imported.status_code == 201, imported.text
            session_id = imported.json()["session_id"]
            unloaded = _probe(client, PROBES)
        pid = stack._process.pid if stack._process is not None else 0
        baseline_mb = _rss_mb(pid)
        stop = threading.Event()
        peak = [baseline_mb]

        def sampler() -> None:
            while not stop.wait(0.2):
                peak[0] = max(peak[0], _rss_mb(pid))

        # The readers in processes of their own: in this one, their threads would hold the probe's interpreter too.
        context = multiprocessing.get_context("spawn")
        with context.Pool(READERS) as readers, ThreadPoolExecutor(1) as pool:
            pending = readers.starmap_async(_read_for, [(stack.base_url, session_id, LOADED_SECONDS + 5)] * READERS)
            pool.submit(sampler)
            with httpx.Client(base_url=stack.base_url, timeout=120) as client:
                time.sleep(READERS_START_SECONDS)  # the readers' processes start: warm-up of a benchmark, no test
                deadline = time.monotonic() + LOADED_SECONDS
                loaded: list[float] = []
                while time.monotonic() < deadline:
                    loaded += _probe(client, 10)
            statuses: Counter[int] = Counter()
            for counted in pending.get(timeout=LOADED_SECONDS + 120):
                statuses.update(counted)
            stop.set()

    report(f"large session: {body.__len__() / 1e6:.1f} MB, {TOOL_CALLS} tool calls; reads {dict(statuses)}")
    bench_table.add(
        f"GET /health p99, {READERS} readers of a 5 MB upload",
        p99(loaded),
        "ms",
        floor=p99(unloaded),
        goal="<= 2x",
        note=f"{len(loaded)} probes; reads by status {dict(statuses)}",
    )
    bench_table.add(
        f"API process RSS, {READERS} readers of a 5 MB upload",
        peak[0],
        "MB",
        floor=baseline_mb,
        goal="< 500 MB",
        note="python -m devstack (API, pollers, moto); peak of 0.2 s samples",
    )
