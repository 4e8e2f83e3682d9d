"""What the masking step adds to importing a 2 MB session: the same upload imported with masking on and off.

The session is the long native-format investigation of ``tests/support/long_session.py`` (about 2 MB, 2,400 tool
calls), one result in fifty carrying planted secrets (35 kinds), the rest plain output; then the same without any.
Prints the median of each and their ratio (goal: at most 1.10x); asserts only that the secrets were masked.

The two are measured in turns (off, on, off, on, ...) and in this process's CPU time: a few milliseconds of masking
against about fifty of importing are lost in a shared machine's wall-clock noise, and turns keep a slow spell from
falling on one side only. Each import starts from a collected heap, so that a garbage collection one import's
garbage made due does not land on the next, whichever side that is.
"""

from __future__ import annotations

import gc
import json
import statistics
import time
from collections.abc import Sequence

import pytest

from session_scoring.configuration.criteria import TraceImportSection
from session_scoring.masking import build_masker
from session_scoring.repositories.uploads import NewUpload
from session_scoring.services.imports import ImportService
from tests.benchmarks.conftest import BenchTable
from tests.support.long_session import long_session_document
from tests.support.planted_secrets import planted_secrets, planted_text

ROUNDS = 15


class _Kept:
    """An upload store that keeps the last upload in memory (the database is not what is measured)."""

    def __init__(self) -> None:
        self.last: Sequence[NewUpload] = ()

    def add_all(self, uploads: Sequence[NewUpload]) -> None:
        self.last = uploads


def _body(planted: bool = True) -> bytes:
    document = long_session_document("masking-bench")
    calls = [s["tool_call"] for s in document["stages"][0]["steps"] if s["kind"] == "tool_call"]
    for call in calls[::50] if planted else ():
        call["result"] = planted_text(planted_secrets())
    return json.dumps(document).encode()


def _medians_ms(off: ImportService, on: ImportService, body: bytes) -> tuple[float, float]:
    """The median CPU time of importing ``body`` with each service, measured in turns."""
    times: dict[int, list[float]] = {0: [], 1: []}
    for _ in range(ROUNDS):
        for side, service in enumerate((off, on)):
            gc.collect()  # each import starts from a collected heap: a collection the last one owed lands on neither
            started = time.process_time()
            service.import_session(body, "bench.json", "application/json", "bench")
            times[side].append((time.process_time() - started) * 1000)
    return statistics.median(times[0]), statistics.median(times[1])


@pytest.mark.benchmark
def test_masking_a_2_mb_session_against_its_import_time(bench_table: BenchTable) -> None:
    body = _body()
    store = _Kept()
    plain = ImportService(store, TraceImportSection(), build_masker(enabled=False))
    masked = ImportService(store, TraceImportSection(), build_masker())
    masked.import_session(body, "bench.json", "application/json", "bench")  # compile the patterns once

    without, with_masking = _medians_ms(plain, masked, body)

    stored = store.last[0]
    assert sum(stored.session.masked_values.values()) > 0
    assert planted_secrets()[0].value not in stored.document
    bench_table.add(
        f"import a {len(body) / 1e6:.1f} MB upload, masking on (vs off)",
        with_masking,
        "ms",
        floor=without,
        goal="<= 1.10x",
        note=f"{sum(stored.session.masked_values.values())} values masked",
    )
    clean = _body(planted=False)
    clean_without, clean_with = _medians_ms(plain, masked, clean)
    bench_table.add(
        f"import a {len(clean) / 1e6:.1f} MB upload without secrets, masking on (vs off)",
        clean_with,
        "ms",
        floor=clean_without,
        goal="<= 1.10x",
        note="nothing to mask: the common case",
    )
