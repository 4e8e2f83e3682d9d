"""Importing a 5 MB recording (a mini-swe-agent trajectory of 400 commands, the same conversation one key away,
found by the generic fallback, and a Stratus trajectory whose every line repeats the conversation so far): the time
``ImportService.import_session`` takes to read it, infer its failures and describe it (storage is an in-memory store
here: the database write is measured by the session-list benchmarks). Prints the figures; asserts only that the work
was done."""

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


def _stratus_snapshots() -> bytes:
    """Stratus's combined trajectory: a metadata line, a stage marker, then one line per graph step holding the whole
    conversation so far (LangChain class names), until the file reaches the target size."""
    output = "\n".join(f"worker-{n % 97}-7d9c6b5f4-q2x{n:03d}   1/1   Running   {n % 5}   9m" for n in range(40))
    messages: list[dict[str, object]] = [
        {"type": "SystemMessage", "content": "Diagnose the application."},
        {"type": "HumanMessage", "content": "Namespace boutique; submit the root cause with submit_tool."},
    ]
    lines = [
        json.dumps({"type": "metadata", "problem_id": "bench", "total_stages": 1}),
        json.dumps({"type": "stage_start", "stage": "diagnosis"}),
    ]
    size = step = 0
    while size < TARGET_BYTES:
        call = {"name": "exec_kubectl_cmd_safely", "args": {"command": f"kubectl get pods -l shard={step}"}}
        messages.append({"type": "AIMessage", "content": f"Shard {step}.", "tool_calls": [{**call, "id": f"c{step}"}]})
        messages.append({"type": "ToolMessage", "content": output, "tool_call_id": f"c{step}"})
        line = json.dumps({"type": "event", "stage": "diagnosis", "event_index": step, "messages": messages})
        lines.append(line)
        size += len(line) + 1
        step += 1
    return "\n".join(lines).encode()


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


def test_importing_a_5_mb_stratus_trajectory_of_state_snapshots(bench_table: BenchTable) -> None:
    body = _stratus_snapshots()
    seconds, calls = min(_timed(body, "stratus_agent_trajectory.jsonl") for _ in range(3))
    bench_table.add(
        f"import / a {len(body) / 2**20:.1f} MB recording (Stratus state snapshots, generic fallback)",
        seconds * 1000,
        "ms",
        goal="< 2000 ms",
        note=f"{calls} tool calls, each line repeating the conversation so far; best of 3, in-memory store",
    )
    assert calls > 10
