"""One large upload read by 20 viewers at once, against everyone else: another caller's simple GET (``/health``)
p99 under that load beside its unloaded p99, and the API process's memory, on `python -m devstack` as `make run`
starts it. Prints; asserts nothing about speed (issue 39's goals: within 2x, under 500 MB).

Two loads, one row each:

- **20 viewers open the upload at once** (issue 39's finding: 20 reads of one large upload at the same moment), ten
  times, two seconds apart; the p99 is of the probes that started while a burst was being answered.
- **20 readers in a closed loop** for 20 seconds, each reading again as soon as it has its answer (a stress: about
  700 reads of 512 KiB a second, which on a 2-core machine keeps both cores busy receiving, so the probe also waits
  for a core of its own).
"""

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
BURSTS = 10
BURST_INTERVAL_SECONDS = 2.0


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


def _open_at(base_url: str, session_id: str, starts: list[float]) -> list[tuple[float, float, int]]:
    """A viewer opening the large upload's view once at each of ``starts`` (wall-clock times, shared by the
    processes): when each read started and ended, and its status."""
    reads = []
    with httpx.Client(base_url=base_url, timeout=120) as client:
        client.get("/health")  # connected before the first burst, as an open dashboard is
        for start in starts:
            time.sleep(max(0.0, start - time.time()))  # the load's schedule (a benchmark's load generator)
            began = time.time()
            status = client.get(f"/api/v1/scoring/sessions/{session_id}").status_code
            reads.append((began, time.time(), status))
    return reads


def _bursts(base_url: str, session_id: str) -> tuple[list[float], Counter[int]]:
    """``READERS`` viewers open the upload at once, ``BURSTS`` times: the /health probes (ms) that started while a
    burst was being answered, and the viewers' answers by status."""
    first = time.time() + READERS_START_SECONDS
    starts = [first + n * BURST_INTERVAL_SECONDS for n in range(BURSTS)]
    context = multiprocessing.get_context("spawn")
    probes: list[tuple[float, float]] = []
    with context.Pool(READERS) as viewers:
        pending = viewers.starmap_async(_open_at, [(base_url, session_id, starts)] * READERS)
        with httpx.Client(base_url=base_url, timeout=120) as client:
            while time.time() < starts[-1] + BURST_INTERVAL_SECONDS:
                began = time.time()
                client.get("/health")
                probes.append((began, (time.time() - began) * 1000))
        reads = [read for viewer in pending.get(timeout=120) for read in viewer]
    windows = [
        (min(r[0] for r in burst), max(r[1] for r in burst))
        for burst in ([r for r in reads if abs(r[0] - start) < BURST_INTERVAL_SECONDS / 2] for start in starts)
        if burst
    ]
    during = [ms for began, ms in probes if any(low <= began <= high for low, high in windows)]
    return during, Counter(status for _, _, status in reads)


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
        in_bursts, burst_statuses = _bursts(stack.base_url, session_id)
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
        f"GET /health p99, {READERS} viewers open a 5 MB upload at once",
        p99(in_bursts),
        "ms",
        floor=p99(unloaded),
        goal="<= 2x",
        note=f"{len(in_bursts)} probes during {BURSTS} bursts; reads by status {dict(burst_statuses)}",
    )
    bench_table.add(
        f"GET /health p99, {READERS} readers of a 5 MB upload in a closed loop",
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
