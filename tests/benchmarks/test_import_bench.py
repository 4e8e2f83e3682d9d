"""Importing a 5 MB recording (a mini-swe-agent trajectory of 400 commands, and the same conversation one key away,
found by the generic fallback): the time ``ImportService.import_session`` takes to read it, infer its failures and
describe it (storage is an in-memory store here: the database write is measured by the session-list benchmarks).
Prints the figures; asserts only that the work was done."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

import pytest

from session_scoring.configuration.criteria import TraceImportSection
from session_scoring.repositories.uploads import NewUpload
from session_scoring.services.imports import ImportService
from tests.benchmarks.conftest import BenchTable

pytestmark = pytest.mark.benchmark
TARGET_BYTES = 5 * 1024 * 1024


class _Store:
    def __init__(self) -> None:
        self.uploads: list[NewUpload] = []

    def add_all(self, uploads: Sequence[NewUpload]) -> None:
        self.uploads = list(uploads)


def _mini_trajectory() -> dict[str, object]:
    messages: list[dict[str, str]] = [{"role": "user", "content": "Alert: disk full on node ip-10-0-3-17."}]
    output = "\n".join(f"{n:06d} /var/log/pods/prod_worker-{n % 97}/0.log 12M" for n in range(110))
    step = size = 0
    while size < TARGET_BYTES:
        messages.append(
            {"role": "assistant", "content": f"THOUGHT: look at part {step}.\n\n```bash\ndu -sh /var/{step}\n```"}
        )
        messages.append(
            {"role": "user", "content": f"<returncode>{step % 7 == 0:d}</returncode>\n<output>\n{output}\n</output>"}
        )
        size += len(json.dumps(messages[-2:]))
        step += 1
    return {"info": {"exit_status": "Submitted", "submission": "ledger-worker logs fill /var."}, "messages": messages}


def _timed(body: bytes, name: str) -> tuple[float, int]:
    service = ImportService(_Store(), TraceImportSection())
    started = time.perf_counter()
    answer = service.import_session(body, name, None, "bench")
    return time.perf_counter() - started, answer.tool_calls


@pytest.mark.parametrize(
    ("label", "wrap"),
    [
        ("mini-swe-agent reader", lambda doc: doc),
        ("generic fallback", lambda doc: {"run": {"history": doc["messages"]}}),
    ],
)
def test_importing_a_5_mb_recording(bench_table: BenchTable, label: str, wrap: object) -> None:
    document = wrap(_mini_trajectory())  # type: ignore[operator]
    body = json.dumps(document).encode()
    seconds, calls = min(_timed(body, "big.traj.json") for _ in range(3))
    bench_table.add(
        f"import / a {len(body) / 2**20:.1f} MB recording ({label})",
        seconds * 1000,
        "ms",
        goal="< 2000 ms",
        note=f"{calls} tool calls; best of 3, in-memory store",
    )
    assert calls > 300
