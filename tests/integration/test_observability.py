"""The metrics a scoring job emits: the CloudWatch EMF lines the real scorer handler prints to stdout.

The handler is driven with events/sqs-one-job.json on the local stack (real PostgreSQL, moto, Claude through the
SDK against the fake Messages API). CloudWatch turns each line into metrics; these are the names, dimensions and
values the template's alarms and dashboard read.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from aws_lambda_powertools.utilities.batch.exceptions import BatchProcessingError

from devstack.queue_poller import LocalLambdaContext, QueuePoller
from session_scoring.observability import metrics
from tests.conftest import SAMPLES, THOROUGH_ID, Stack
from tests.support.emf import Emitted, emf, named
from tests.support.events import load_event, with_score_id
from tests.support.fake_claude import SAMPLE_VERDICT, reply_error, reply_verdict


def queue_attempt(stack: Stack, capsys: pytest.CaptureFixture[str]) -> tuple[str, Emitted]:
    response = stack.request_score(THOROUGH_ID)
    assert response.status_code == 202
    return response.json()["score_id"], emf(capsys.readouterr().out)


def run_job(score_id: str, receive_count: int = 1) -> dict[str, Any]:
    from functions.scorer.app import handler

    event = with_score_id(load_event("sqs-one-job.json"), score_id)
    event["Records"][0]["attributes"]["ApproximateReceiveCount"] = str(receive_count)
    result: dict[str, Any] = handler(event, LocalLambdaContext(budget_seconds=600))
    return result


@pytest.fixture(autouse=True)
def empty_metric_set() -> None:
    """Start from an empty shared set: code run outside a handler elsewhere in the session leaves figures in it."""
    metrics.clear_metrics()


@pytest.fixture
def cold() -> None:
    """The next invocation is this execution environment's first, as after a deploy."""
    from aws_lambda_powertools.metrics.provider import cold_start

    cold_start.is_cold_start = True


@pytest.mark.usefixtures("cold")
def test_a_completed_job_emits_its_judging_figures_and_the_cold_start(
    claude_stack: Stack, fake_claude: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    score_id, requested = queue_attempt(claude_stack, capsys)
    fake_claude.script(
        reply_error(429, "rate_limit_error", "slow down", headers={"retry-after": "0"}),
        reply_verdict(SAMPLE_VERDICT, input_tokens=1200, output_tokens=450, cache_read=300, cache_write=40),
    )

    assert run_job(score_id) == {"batchItemFailures": []}
    first = emf(capsys.readouterr().out)
    run_job(score_id)  # a duplicate delivery in the same, now warm, environment
    second = emf(capsys.readouterr().out)

    assert named(requested, "ScoresRequested") == [1]
    assert named(first, "JobsReceived") == [1]
    assert named(first, "ScoresCompleted") == [1]
    assert named(first, "JudgeRetries") == [1]
    assert named(first, "JudgeInputTokens") == [1200]
    assert named(first, "JudgeOutputTokens") == [450]
    assert named(first, "JudgeCacheReadTokens") == [300]
    assert named(first, "JudgeCacheWriteTokens") == [40]
    [latency] = named(first, "JudgeLatency")
    [attempt] = named(first, "JudgeAttemptTime")
    assert 0 <= latency <= attempt  # the whole judging includes the rate-limited call
    # claude-sonnet-4-6 in config/scoring_config.yaml: 3 / 15 / 0.30 / 3.75 USD per million tokens.
    cost = (1200 * 3.0 + 450 * 15.0 + 300 * 0.30 + 40 * 3.75) / 1_000_000
    assert named(first, "JudgeEstimatedCostUSD") == [pytest.approx(cost)]
    judge = claude_stack.score(THOROUGH_ID).json()["judge"]
    assert judge["estimated_cost_usd"] == pytest.approx(cost)
    assert judge["latency_ms"] <= judge["judging_ms"] == attempt
    assert not [key for key in first if key[0] == "ScoresFailed"]
    [(cold_start, cold_dimensions)] = [(v, dict(k[1])) for k, v in first.items() if k[0] == "ColdStart"]
    assert cold_start == [1]
    assert cold_dimensions["service"] == "session-scoring"
    assert "function_name" in cold_dimensions
    # The duplicate is acknowledged without judging: nothing counted twice, and no second cold start.
    assert named(second, "JobsReceived") == [1]
    assert not [key for key in second if key[0] in ("ScoresCompleted", "ColdStart", "JudgeLatency")]


def test_a_permanently_failed_job_emits_scores_failed_by_category(
    claude_stack: Stack, fake_claude: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    score_id, _ = queue_attempt(claude_stack, capsys)
    fake_claude.script(reply_error(400, "invalid_request_error", "messages: field required"))

    assert run_job(score_id) == {"batchItemFailures": []}
    emitted = emf(capsys.readouterr().out)

    assert named(emitted, "ScoresFailed", ReasonCategory="permanent") == [1]
    assert named(emitted, "ScoresFailed", ReasonCategory="transient") == []
    assert named(emitted, "JobsDeadLettered") == []
    assert not [key for key in emitted if key[0] in ("ScoresCompleted", "JudgeLatency")]
    assert claude_stack.score(THOROUGH_ID).json()["status"] == "failed"


def test_a_transient_failure_defers_the_job_and_on_its_last_delivery_dead_letters_it(
    make_stack: Any, fake_claude: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    stack: Stack = make_stack(
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="5",
        JUDGE_MAX_RETRIES="1",
    )
    score_id, _ = queue_attempt(stack, capsys)
    fake_claude.default = reply_error(529, "overloaded_error", "Overloaded")

    # A batch whose every record failed raises, so the poller backs off; the metrics are printed all the same.
    with pytest.raises(BatchProcessingError):
        run_job(score_id, receive_count=1)
    first = emf(capsys.readouterr().out)
    with pytest.raises(BatchProcessingError):
        run_job(score_id, receive_count=3)  # the stack's queue allows 3 receives
    final = emf(capsys.readouterr().out)

    assert named(first, "JobsDeferred") == [1]
    assert named(first, "JudgeRetries") == [1]
    assert not [key for key in first if key[0] == "ScoresFailed"]
    assert named(final, "ScoresFailed", ReasonCategory="transient") == [1]
    assert named(final, "JobsDeadLettered") == [1]
    assert named(final, "JobsDeferred") == []


def test_a_session_over_the_input_budget_counts_a_prompt_compaction(
    make_stack: Any, fake_claude: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The sample session with one tool's output grown to about 100,000 tokens, against a 12,000-token budget."""
    session = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())
    steps = session["stages"][0]["steps"]
    call = next(step["tool_call"] for step in steps if step["kind"] == "tool_call")
    call["result"] = "".join(f"line {n}: container log output {'x' * 60}\n" for n in range(5000))
    (tmp_path / f"{THOROUGH_ID}.json").write_text(json.dumps(session))
    stack: Stack = make_stack(
        SCORING_LLM_PROVIDER="anthropic",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="5",
        JUDGE_INPUT_BUDGET_TOKENS="12000",
        SCORING_SESSIONS_DIR=str(tmp_path),
    )
    score_id, _ = queue_attempt(stack, capsys)

    assert run_job(score_id) == {"batchItemFailures": []}
    emitted = emf(capsys.readouterr().out)

    assert stack.score(THOROUGH_ID).json()["judge"]["prompt_compacted"] is True
    assert named(emitted, "PromptCompactions") == [1]
    assert named(emitted, "ScoresCompleted") == [1]


def test_api_requests_are_counted_by_route_template_method_and_status_class(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    stack.request_score(THOROUGH_ID)
    stack.score("never-scored")
    stack.client.get("/sessions/anything")

    emitted = emf(capsys.readouterr().out)

    score_route = "/api/v1/scoring/sessions/{session_id}/score"
    assert named(emitted, "ApiRequests", Route=score_route, Method="POST", StatusClass="2xx") == [1]
    assert named(emitted, "ApiRequests", Route=score_route, Method="GET", StatusClass="4xx") == [1]
    others = [v for (name, dims), v in emitted.items() if name == "ApiRequests" and ("Route", "other") in dims]
    assert others == [[1]]  # a page path is counted, but never as its own dimension value
    assert not any("never-scored" in value for (_, dims) in emitted for _, value in dims)


def start_run(stack: Stack) -> tuple[str, QueuePoller]:
    """Start a run over every session (at most 10); returns its id and a poller of the runs queue that hands its
    messages to the scorer handler, one per invocation (nothing is polled yet)."""
    from functions.scorer.app import handler

    created = stack.client.post("/api/v1/scoring/runs", json={"max_sessions": 10, "selection": {"which": "all"}})
    assert created.status_code == 202, created.text
    runs = QueuePoller(stack.sqs, stack.env["SCORING_RUNS_QUEUE_URL"], handler, batch_size=1, wait_seconds=0)
    return str(created.json()["run_id"]), runs


def pending_in_run(stack: Stack, run_id: str) -> int:
    pending: int = stack.client.get(f"/api/v1/scoring/runs/{run_id}").json()["counts"]["pending"]
    return pending


def test_cancelling_a_run_emits_scores_cancelled_and_its_jobs_then_complete_nothing(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id, runs = start_run(stack)
    runs.poll_once(wait_seconds=0)  # plans the run: one job per completed sample session
    planned = pending_in_run(stack, run_id)
    assert planned >= 3
    capsys.readouterr()

    cancelled = stack.client.post(f"/api/v1/scoring/runs/{run_id}/cancel")
    at_cancel = emf(capsys.readouterr().out)
    runs.drain(max_batches=100)  # the cancelled attempts' jobs are delivered all the same
    after = emf(capsys.readouterr().out)

    assert cancelled.status_code == 200
    assert named(at_cancel, "ScoresCancelled") == [planned]
    assert sum(named(after, "JobsReceived")) == planned
    assert not [key for key in after if key[0] in ("ScoresCompleted", "ScoresFailed", "ScoresCancelled")]


def test_planning_a_run_emits_its_planning_message_and_the_attempts_it_queued(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id, runs = start_run(stack)
    capsys.readouterr()

    runs.poll_once(wait_seconds=0)  # the planning message only: one page, one job per completed sample session
    emitted = emf(capsys.readouterr().out)

    planned = pending_in_run(stack, run_id)
    assert planned >= 3
    assert named(emitted, "RunPlanningMessages") == [1]
    assert named(emitted, "RunAttemptsQueued") == [planned]
    assert named(emitted, "JobsReceived") == []  # no job was delivered in that invocation


def test_the_reaper_function_emits_what_it_requeued_and_failed(
    stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    from sqlalchemy import create_engine, text

    from functions.scorer.reap import handler as reap_handler

    stack.request_score(THOROUGH_ID)
    stack.sqs.purge_queue(QueueUrl=stack.resources.queue_url)  # its message is lost
    engine = create_engine(stack.env["SCORING_DATABASE_URL"])
    with engine.begin() as conn:
        conn.execute(text("UPDATE session_scores SET requested_at = now() - interval '3 hours'"))
    engine.dispose()
    capsys.readouterr()

    result = reap_handler({}, LocalLambdaContext(budget_seconds=60))
    emitted = emf(capsys.readouterr().out)

    assert (result["requeued"], result["failed"]) == (1, 0)
    assert named(emitted, "StrandedAttemptsRequeued") == [1]
    assert named(emitted, "StrandedAttemptsFailed") == [0]
