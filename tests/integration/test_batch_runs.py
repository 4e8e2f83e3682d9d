"""Batch-mode scoring runs end to end: API -> planner (runs queue) -> batch poller -> the fake Message Batches API
-> verdicts stored like online ones. Real PostgreSQL, moto, the fake TARSy serving a few hundred paginated sessions,
and the real Anthropic SDK against the fake Messages API.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from devstack.queue_poller import QueuePoller
from tests.conftest import Stack
from tests.support.fake_claude import SAMPLE_VERDICT, FakeClaude, batch_errored, batch_expired, batch_succeeded
from tests.support.fake_tarsy import FakeTarsy
from tests.support.postgres import sql
from tests.support.tarsy_fixtures import REACT_ID, detailed

SESSIONS = 240
RUNS = "/api/v1/scoring/runs"
BATCH_SIZE = 40
MICROS = 1_000_000


@pytest.fixture
def batch_stack(make_stack: Any, tarsy_env: dict[str, str], fake_claude: FakeClaude, fake_tarsy: FakeTarsy) -> Stack:
    """SESSIONS completed sessions in the fake TARSy (every twentieth still in progress), the Claude judge."""
    return _batch_stack(make_stack, tarsy_env, fake_claude, fake_tarsy)


@pytest.fixture
def writeback_batch_stack(
    make_stack: Any, tarsy_env: dict[str, str], fake_claude: FakeClaude, fake_tarsy: FakeTarsy
) -> Stack:
    """The batch stack with write-back on (sessions from TARSy, which has no trace to write to)."""
    return _batch_stack(make_stack, tarsy_env, fake_claude, fake_tarsy, SCORING_WRITEBACK="true")


def _batch_stack(
    make_stack: Any, tarsy_env: dict[str, str], fake_claude: FakeClaude, fake_tarsy: FakeTarsy, **extra: str
) -> Stack:
    template = detailed(REACT_ID)
    for i in range(SESSIONS):
        document = json.loads(json.dumps(template))
        document["session_id"] = f"batch-{i:04d}"
        document["started_at_us"] = 1_763_000_000 * MICROS + i * 60 * MICROS
        if i % 20 == 19:
            document["status"] = "in_progress"
            document["completed_at_us"] = None
        fake_tarsy.add_detailed(document)
    result: Stack = make_stack(
        **tarsy_env,
        SCORING_LLM_PROVIDER="anthropic",
        SCORING_LLM_MODEL="claude-sonnet-4-6",
        ANTHROPIC_API_KEY="test-key-not-secret",
        ANTHROPIC_BASE_URL=fake_claude.base_url,
        JUDGE_TIMEOUT_SECONDS="5",
        SCORING_RUN_PAGE_SIZE="50",
        SCORING_BATCH_MAX_REQUESTS=str(BATCH_SIZE),
        **extra,
    )
    return result


COMPLETED = {f"batch-{i:04d}" for i in range(SESSIONS) if i % 20 != 19}


def plan(stack: Stack) -> None:
    from functions.scorer.app import handler

    QueuePoller(stack.sqs, stack.env["SCORING_RUNS_QUEUE_URL"], handler, batch_size=10, wait_seconds=0).drain(1000)


def start_batch_run(stack: Stack, **body: Any) -> dict[str, Any]:
    response = stack.client.post(RUNS, json={"max_sessions": 1000, "mode": "batch", **body})
    assert response.status_code == 202, response.text
    run: dict[str, Any] = response.json()
    return run


def get_run(stack: Stack, run_id: str) -> dict[str, Any]:
    run: dict[str, Any] = stack.client.get(f"{RUNS}/{run_id}").json()
    return run


def attempts(stack: Stack) -> list[dict[str, Any]]:
    rows = sql(
        stack.env["SCORING_DATABASE_URL"],
        "SELECT score_id, session_id, status, run_id, batch_id, error_message, input_tokens FROM session_scores",
    )
    return [dict(r._mapping) for r in rows]


def poll(stack: Stack) -> Any:
    return stack.container.batch_poller.poll(900.0)


def test_a_batch_run_scores_exactly_the_selected_sessions_once(batch_stack: Stack, fake_claude: FakeClaude) -> None:
    stack = batch_stack
    run = start_batch_run(stack, selection={"which": "unscored"})
    plan(stack)

    planned = get_run(stack, run["run_id"])
    assert planned["status"] == "running"
    assert planned["counts"]["pending"] == len(COMPLETED)
    assert stack.container.reaper.reap(queue_is_new=True).requeued == 0  # no queue message: the poller's to submit

    first = poll(stack)  # submits in batches of BATCH_SIZE; none has ended yet
    assert first.submitted == len(COMPLETED)
    assert first.batches_created == -(-len(COMPLETED) // BATCH_SIZE)
    assert len(fake_claude.batch_requests) == len(COMPLETED)
    assert get_run(stack, run["run_id"])["counts"]["in_progress"] == len(COMPLETED)

    second = poll(stack)  # every batch has ended: results collected
    assert second.completed == len(COMPLETED)

    done = get_run(stack, run["run_id"])
    assert done["status"] == "completed"
    assert done["counts"]["completed"] == len(COMPLETED)
    assert done["counts"]["pending"] == done["counts"]["in_progress"] == done["counts"]["failed"] == 0
    rows = attempts(stack)
    assert sorted(r["session_id"] for r in rows) == sorted(COMPLETED)
    assert {str(r["score_id"]) for r in rows} == {r["custom_id"] for r in fake_claude.batch_requests}
    assert fake_claude.requests == []  # no online call: every verdict came from a batch

    scores = stack.client.get("/api/v1/scoring/sessions/batch-0000/scores").json()
    assert [(s["status"], s["total_score"], s["run_id"]) for s in scores] == [
        ("completed", SAMPLE_VERDICT["total_score"], run["run_id"])
    ]
    # The same request an online call sends: the rendered prompt, the output schema, the model.
    params = fake_claude.batch_requests[0]["params"]
    assert params["model"] == "claude-sonnet-4-6"
    assert params["output_config"]["format"]["type"] == "json_schema"
    assert params["system"][0]["cache_control"] == {"type": "ephemeral"}
    # The cost is the batch price: half the online price of the same tokens.
    price = stack.container.config.price_of("claude-sonnet-4-6")
    usage = done["usage"]
    online = price.cost_usd(
        usage["input_tokens"], usage["output_tokens"], usage["cache_read_tokens"], usage["cache_write_tokens"]
    )
    assert done["usage"]["cost_usd"] == pytest.approx(online * 0.5, rel=1e-6)

    assert poll(stack).submitted == 0  # nothing left: a later tick submits nothing


def test_an_invalid_batch_verdict_is_repaired_online(batch_stack: Stack, fake_claude: FakeClaude) -> None:
    stack = batch_stack
    fake_claude.script_batch(batch_succeeded("this is not JSON", input_tokens=1000, output_tokens=10))
    run = start_batch_run(stack, selection={"which": "unscored"}, max_sessions=5)
    plan(stack)
    poll(stack)
    poll(stack)

    done = get_run(stack, run["run_id"])
    assert done["status"] == "completed"
    assert done["counts"]["completed"] == 5
    assert len(fake_claude.requests) == 1  # one online repair turn
    repair = fake_claude.requests[0]["messages"]
    assert [m["role"] for m in repair] == ["user", "assistant", "user"]
    assert repair[1]["content"] == "this is not JSON"
    assert "not a valid evaluation" in repair[2]["content"]
    # The same prompt as the batch's (rendered again: only the per-request fence marker differs).
    assert fake_claude.requests[0]["system"] == fake_claude.batch_requests[0]["params"]["system"]
    assert len(repair[0]["content"]) == len(fake_claude.batch_requests[0]["params"]["messages"][0]["content"])
    repaired = [r for r in attempts(stack) if str(r["score_id"]) == fake_claude.batch_requests[0]["custom_id"]]
    assert repaired[0]["status"] == "completed"
    assert repaired[0]["input_tokens"] > 1000  # the batch answer's tokens and the repair turn's


def test_transient_batch_errors_and_expiry_go_into_the_next_batch_and_invalid_requests_fail(
    batch_stack: Stack, fake_claude: FakeClaude
) -> None:
    stack = batch_stack
    fake_claude.script_batch(
        batch_errored("overloaded_error", "Overloaded"),
        batch_errored("invalid_request_error", "prompt is too long"),
        batch_expired(),
    )
    run = start_batch_run(stack, selection={"which": "unscored"}, max_sessions=4)
    plan(stack)
    poll(stack)  # submit
    collected = poll(stack)  # collect: 1 scored, 1 failed, 2 back for the next batch (submitted in the same tick)
    assert (collected.completed, collected.failed, collected.resubmitted, collected.submitted) == (1, 1, 2, 2)
    poll(stack)

    done = get_run(stack, run["run_id"])
    assert done["status"] == "completed"
    assert (done["counts"]["completed"], done["counts"]["failed"]) == (3, 1)
    failed = [r for r in attempts(stack) if r["status"] == "failed"]
    assert "rejected the request (invalid_request_error: prompt is too long)" in failed[0]["error_message"]
    assert len(fake_claude.batches) == 2
    assert fake_claude.requests == []


def test_cancel_mid_batch_leaves_nothing_pending(batch_stack: Stack, fake_claude: FakeClaude) -> None:
    stack = batch_stack
    fake_claude.hold_batches = True
    run = start_batch_run(stack, selection={"which": "unscored"}, max_sessions=60)
    plan(stack)
    assert poll(stack).submitted == 60  # two batches, both still processing
    assert poll(stack).batches_waiting == 2

    cancelled = stack.client.post(f"{RUNS}/{run['run_id']}/cancel")
    assert cancelled.status_code == 200
    assert cancelled.json()["status"] == "cancelled"
    assert {b.status for b in fake_claude.batches.values()} == {"canceling"}  # the batches were cancelled too

    fake_claude.end_batches()
    poll(stack)
    done = get_run(stack, run["run_id"])
    assert done["status"] == "cancelled"
    assert done["counts"]["cancelled"] == 60
    assert done["counts"]["pending"] == done["counts"]["in_progress"] == done["counts"]["completed"] == 0
    assert {r["status"] for r in attempts(stack)} == {"cancelled"}
    assert fake_claude.requests == []


def test_batch_dry_run_is_priced_at_the_batch_discount(batch_stack: Stack) -> None:
    body = {"selection": {"which": "unscored"}, "max_sessions": 20, "dry_run": True}
    online = batch_stack.client.post(RUNS, json=body).json()
    batch = batch_stack.client.post(RUNS, json={**body, "mode": "batch"}).json()

    assert batch["sessions_selected"] == online["sessions_selected"] == 20
    assert batch["estimate"]["estimated_cost_usd"] == pytest.approx(
        online["estimate"]["estimated_cost_usd"] * 0.5, rel=1e-3
    )
    assert "batch discount" in batch["estimate"]["method"]


@pytest.mark.parametrize("provider", ["bedrock", "heuristic"])
def test_batch_mode_without_the_anthropic_provider_is_400(make_stack: Any, provider: str) -> None:
    stack: Stack = make_stack(SCORING_LLM_PROVIDER=provider, AWS_REGION="us-east-1")
    response = stack.client.post(RUNS, json={"max_sessions": 5, "mode": "batch"})

    assert response.status_code == 400
    assert f"provider is '{provider}'" in response.json()["detail"]
    assert "use mode=online" in response.json()["detail"]


def test_the_schedule_event_submits_and_collects(batch_stack: Stack, fake_claude: FakeClaude) -> None:
    from devstack.queue_poller import LocalLambdaContext
    from functions.scorer.poll_batches import handler as poll_batches_handler
    from tests.support.events import load_event

    run = start_batch_run(batch_stack, selection={"which": "unscored"}, max_sessions=3)
    plan(batch_stack)
    event = load_event("schedule-poll-batches.json")

    first = poll_batches_handler(event, LocalLambdaContext(budget_seconds=120))
    second = poll_batches_handler(event, LocalLambdaContext(budget_seconds=120))

    assert (first["submitted"], first["batches_created"], second["completed"]) == (3, 1, 3)
    assert first["runs_stuck_planning"] == 0
    assert get_run(batch_stack, run["run_id"])["status"] == "completed"

    stuck = start_batch_run(
        batch_stack, selection={"which": "all"}, max_sessions=3
    )  # its planning message is never read
    sql(
        batch_stack.env["SCORING_DATABASE_URL"],
        "UPDATE scoring_runs SET created_at = now() - interval '1 hour' WHERE run_id = :id",
        id=stuck["run_id"],
    )
    assert poll_batches_handler(event, LocalLambdaContext(budget_seconds=120))["runs_stuck_planning"] == 1


def test_a_batch_that_is_gone_fails_its_attempts_with_the_reason(batch_stack: Stack, fake_claude: FakeClaude) -> None:
    run = start_batch_run(batch_stack, selection={"which": "unscored"}, max_sessions=3)
    plan(batch_stack)
    assert poll(batch_stack).submitted == 3
    fake_claude.batches.clear()  # the API no longer knows the batch (404)

    assert poll(batch_stack).failed == 3

    done = get_run(batch_stack, run["run_id"])
    assert done["status"] == "completed"
    assert done["counts"]["failed"] == 3
    for row in attempts(batch_stack):
        assert row["error_message"].startswith(f"the Message Batch {row['batch_id']} cannot be read: ")


def test_a_batch_verdict_is_written_back_by_the_scorer_like_an_online_one(
    writeback_batch_stack: Stack, fake_claude: FakeClaude
) -> None:
    stack = writeback_batch_stack
    chosen = ["batch-0000", "batch-0001", "batch-0002"]
    start_batch_run(stack, selection={"session_ids": chosen})
    plan(stack)
    poll(stack)  # submitted

    collected = poll(stack)

    assert (collected.completed, collected.writebacks_queued) == (3, 3)
    assert stack.poller.drain() == 3  # the scorer takes each job as the completed attempt's write-back
    for session_id in chosen:
        score = stack.score(session_id).json()
        assert score["status"] == "completed"  # a write-back that cannot be done never fails the score
        writeback = score["writeback"]
        assert (writeback["sink"], writeback["status"], writeback["tries"]) == ("tarsy", "failed", 1)
        assert "phoenix or mlflow" in writeback["error_message"]
    assert fake_claude.requests == []  # the write-back judged nothing again


def test_without_write_back_a_batch_verdict_sends_no_job(batch_stack: Stack, fake_claude: FakeClaude) -> None:
    stack = batch_stack
    start_batch_run(stack, selection={"session_ids": ["batch-0000"]})
    plan(stack)
    poll(stack)

    assert (poll(stack).completed, stack.poller.drain()) == (1, 0)
    assert stack.score("batch-0000").json()["writeback"] is None
