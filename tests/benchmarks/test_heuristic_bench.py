"""The offline judge on the labelled set (full investigation vs degraded copies) and on a 25k-token session: the
share of pairs ranked right, the spread of its totals, and its time. Prints the figures; asserts only that the
work was done."""

from __future__ import annotations

import statistics
import time
from collections import Counter

import pytest

from session_scoring.judge.heuristic import assess
from session_scoring.judge.rendering import estimate_tokens, render_conversation
from session_scoring.models.session import Session, Stage
from tests.benchmarks.conftest import BenchTable
from tests.support.degraded_twins import TWINS, twin_pairs
from tests.support.labelled_traces import TRACES, labelled_pairs, load_trace

pytestmark = pytest.mark.benchmark


def test_pair_ranking_and_spread(bench_table: BenchTable) -> None:
    pairs = labelled_pairs()
    wins = sum(assess(p.better).total_score > assess(p.worse).total_score for p in pairs)
    sessions = {id(s): s for p in pairs for s in (p.better, p.worse)}
    totals = [assess(s).total_score for s in sessions.values()]
    most_common_value, most_common = Counter(totals).most_common(1)[0]
    bench_table.add(
        "heuristic / labelled pairs ranked right",
        100 * wins / len(pairs),
        "%",
        goal=">= 90 %",
        note=f"{wins} of {len(pairs)} pairs, {len({p.trace_format for p in pairs})} formats",
    )
    bench_table.add(
        "heuristic / distinct totals on the labelled set",
        len(set(totals)),
        "values",
        goal="no single value",
        note=f"{len(totals)} sessions; range {min(totals)}-{max(totals)}, stdev {statistics.pstdev(totals):.1f}, "
        f"most common {most_common_value} x{most_common}",
    )
    assert len(totals) == len(sessions)


def test_degraded_twins_ranked_below_their_originals(bench_table: BenchTable) -> None:
    pairs = twin_pairs()
    for twin in TWINS:
        kind = [p for p in pairs if p.twin == twin]
        wins = sum(assess(p.original).total_score > assess(p.degraded).total_score for p in kind)
        bench_table.add(
            f"heuristic / twins '{twin}' ranked below the original",
            100 * wins / len(kind),
            "%",
            goal=">= 90 %",
            note=f"{wins} of {len(kind)} investigations, {len({p.trace_format for p in kind})} formats",
        )
    assert pairs


def _session_of(target_tokens: int) -> Session:
    """The OTel fixture's stage repeated until its transcript holds about ``target_tokens`` estimated tokens."""
    _, session = load_trace(TRACES / "otel_genai_oom.json")
    stage = session.stages[0]
    stages: list[Stage] = []
    while estimate_tokens(render_conversation(session.model_copy(update={"stages": stages}))) < target_tokens:
        stages += [
            Stage(name=f"{stage.name}-{len(stages) + n}", agent=stage.agent, steps=stage.steps) for n in range(5)
        ]
    return session.model_copy(update={"stages": stages})


def test_time_for_a_25k_token_session(bench_table: BenchTable) -> None:
    session = _session_of(25_000)
    tokens = estimate_tokens(render_conversation(session))
    assess(session)
    runs = []
    for _ in range(20):
        started = time.perf_counter()
        assess(session)
        runs.append((time.perf_counter() - started) * 1000)
    bench_table.add(
        "heuristic / assess a 25k-token session (median of 20)",
        statistics.median(runs),
        "ms",
        goal="< 50 ms",
        note=f"{tokens:,} estimated tokens, {len(session.tool_calls)} tool calls",
    )
    assert tokens >= 25_000
