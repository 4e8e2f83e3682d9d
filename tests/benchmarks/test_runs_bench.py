"""A 1,000-session scoring run through the local stack pieces, with an instant judge, against a single POST and its job.

The stack is the integration tests' (embedded PostgreSQL, moto SQS, the file session source, the Lambda handlers
called in-process by the queue poller); the judge is replaced by one that answers a fixed verdict at once, so the
figures are the run machinery's own: selection, inserts, queueing, claims and stores.

The run is driven as the scorer function drives it: after ``POST /runs`` the runs queue is drained through the scorer
handler (10 records per invocation), which takes the run's planning messages and its jobs as they come, so the queue
holds about one page of jobs at a time. (Planning every page first and then scoring, as this bench once did, kept a
1,000-deep queue, and moto's SQS spends time in proportion to a queue's depth on every call, real SQS does not:
sending ten messages took 22 ms into an empty queue and 300 ms into one 900 deep here, so the figures were moto's.)

- **planning**: ``POST /runs`` and every planning message of the run (``RunService.plan_page``: read one page of
  the session source, insert its attempts, send their jobs), for ``BENCH_RUN_SESSIONS`` sessions (1,000);
- **scoring**: the rest of the drain, until the run is completed, as sessions per second;
- **per session**: (planning + scoring) / sessions, beside the floor of a single ``POST .../score`` and its job through
  the scoring queue, measured in the same run (median of ``BENCH_SINGLE`` sessions, 50).

Nothing here asserts speed: the figures go into the ``bench_table`` printed at the end of ``make bench``.
"""

from __future__ import annotations

import json
import os
import statistics
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from devstack.queue_poller import QueuePoller
from session_scoring.judge.base import JudgeRequest
from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict, TokenUsage
from session_scoring.models.runs import RunPlanningJob
from session_scoring.services.scorer import JobOutcome
from tests.benchmarks.conftest import BenchTable
from tests.conftest import SAMPLES, THOROUGH_ID, Stack
from tests.support.fake_claude import SAMPLE_VERDICT

pytestmark = pytest.mark.benchmark

SESSIONS = int(os.environ.get("BENCH_RUN_SESSIONS", "1000"))
SINGLE = int(os.environ.get("BENCH_SINGLE", "50"))


class InstantJudge:
    """Answers the same valid verdict at once: the bench measures everything around the judge."""

    provider = "heuristic"
    model = "heuristic-rules-v4"

    def __init__(self) -> None:
        self._output = JudgeOutputSchema.model_validate(SAMPLE_VERDICT)

    def evaluate(self, request: JudgeRequest) -> JudgeVerdict:
        return JudgeVerdict(
            output=self._output, provider=self.provider, model=self.model, usage=TokenUsage(), latency_ms=0
        )


@pytest.fixture(scope="module")
def bench_sessions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("bench-sessions")
    template = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())
    start = datetime(2026, 11, 1, tzinfo=UTC)
    for i in range(SESSIONS + SINGLE):
        session_id = f"bench-{i:05d}"
        document = {
            **template,
            "session_id": session_id,
            "status": "completed",
            "started_at": (start + timedelta(minutes=i)).isoformat(),
            "completed_at": (start + timedelta(minutes=i, seconds=90)).isoformat(),
        }
        (directory / f"{session_id}.json").write_text(json.dumps(document))
    return directory


def test_a_thousand_session_run(make_stack: Any, bench_sessions: Path, bench_table: BenchTable) -> None:
    from functions.scorer.app import handler

    stack: Stack = make_stack(SCORING_SESSIONS_DIR=str(bench_sessions))
    stack.container.__dict__["judge"] = InstantJudge()

    # The floor: single POSTs, each job scored through the scoring queue, one at a time.
    singles = []
    for i in range(SESSIONS, SESSIONS + SINGLE):
        started = time.perf_counter()
        assert stack.request_score(f"bench-{i:05d}").status_code == 202
        assert stack.poller.poll_once(wait_seconds=0) == 1
        singles.append(time.perf_counter() - started)
    single = statistics.median(singles)

    started = time.perf_counter()
    response = stack.client.post(
        "/api/v1/scoring/runs", json={"selection": {"which": "unscored"}, "max_sessions": SESSIONS}
    )
    assert response.status_code == 202, response.text
    run_id = response.json()["run_id"]
    post_seconds = time.perf_counter() - started

    # The run as the scorer function runs it: its planning messages and its jobs from the one runs queue.
    planner = stack.container.run_service
    plan_page, planned = planner.plan_page, []

    def timed_plan_page(job: RunPlanningJob) -> JobOutcome:
        page_started = time.perf_counter()
        try:
            return plan_page(job)
        finally:
            planned.append(time.perf_counter() - page_started)

    planner.plan_page = timed_plan_page  # type: ignore[method-assign]
    runs = QueuePoller(stack.sqs, stack.env["SCORING_RUNS_QUEUE_URL"], handler, batch_size=10, wait_seconds=0)
    started = time.perf_counter()
    runs.drain(max_batches=10 * SESSIONS)
    whole = post_seconds + time.perf_counter() - started
    planning = post_seconds + sum(planned)
    scoring = whole - planning
    done = stack.client.get(f"/api/v1/scoring/runs/{run_id}").json()
    assert done["status"] == "completed", done
    assert done["counts"]["completed"] == SESSIONS

    per_session = whole / SESSIONS
    bench_table.add("runs: POST /runs (202, nothing read)", post_seconds * 1000, "ms")
    bench_table.add(f"runs: planning {SESSIONS} sessions ({len(planned)} planning messages)", planning, "s")
    bench_table.add(f"runs: scoring {SESSIONS} sessions, instant judge", SESSIONS / scoring, "sess/s")
    bench_table.add(
        "runs: per session (planning + scoring)",
        per_session * 1000,
        "ms",
        floor=single * 1000,
        goal="<= 1x single",
        note="floor: one POST + its job through the scoring queue",
    )
