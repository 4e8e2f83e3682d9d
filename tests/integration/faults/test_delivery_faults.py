"""Faults of delivery and storage: duplicates, racing workers, a worker that dies, a database restart."""

from __future__ import annotations

import threading
import uuid
from typing import Any

from sqlalchemy import create_engine, text

from session_scoring.models.jobs import ScoringJob
from tests.conftest import FAILING_TOOLS_ID, SHALLOW_ID, THOROUGH_ID, Stack
from tests.support.fake_claude import SAMPLE_VERDICT, FakeReply, reply_verdict
from tests.support.postgres import restart


def _job(stack: Stack, session_id: str) -> ScoringJob:
    score = stack.score(session_id).json()
    return ScoringJob(
        score_id=uuid.UUID(score["score_id"]),
        session_id=session_id,
        requested_by="api-client",
        requested_at=score["requested_at"],
    )


def _execute(database_url: str, sql: str, **params: Any) -> None:
    engine = create_engine(database_url)
    try:
        with engine.begin() as conn:
            conn.execute(text(sql), params)
    finally:
        engine.dispose()


def test_the_same_message_delivered_twice_scores_once(fault_stack: Stack, fake_claude: Any, settle: Any) -> None:
    fault_stack.request_score(FAILING_TOOLS_ID)
    job = _job(fault_stack, FAILING_TOOLS_ID)
    fault_stack.sqs.send_message(QueueUrl=fault_stack.resources.queue_url, MessageBody=job.model_dump_json())

    assert fault_stack.poller.drain() == 2
    state = settle(fault_stack, faults=1, jobs=1, drain=False)

    assert state.completed == 1
    assert len(fake_claude.requests) == 1
    score = fault_stack.score(FAILING_TOOLS_ID).json()
    assert len(score["missing_tools"]) == len(SAMPLE_VERDICT["missing_tools"])


def test_two_workers_racing_for_one_attempt_score_it_once(fault_stack: Stack, fake_claude: Any, settle: Any) -> None:
    # The winner's judge call is held until the loser has tried to claim, so the two really overlap.
    loser_done = threading.Event()
    fake_claude.default = FakeReply(body=reply_verdict(SAMPLE_VERDICT).body, on_request=lambda: loser_done.wait(10))
    fault_stack.request_score(FAILING_TOOLS_ID)
    job = _job(fault_stack, FAILING_TOOLS_ID)
    worker = fault_stack.container.scorer
    start = threading.Barrier(2)
    outcomes: list[str] = []

    def race() -> None:
        start.wait()
        reason = worker.process(job, receive_count=1, remaining_seconds=60).reason
        outcomes.append(reason)
        if reason != "completed":
            loser_done.set()

    threads = [threading.Thread(target=race) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(outcomes) == ["another scorer holds this attempt; retry when its lease expires", "completed"]
    state = settle(fault_stack, faults=1, jobs=1)  # the queued message arrives late and is acknowledged
    assert state.completed == 1
    assert len(fake_claude.requests) == 1


def test_a_worker_killed_after_claiming_is_taken_over_when_its_lease_expires(
    fault_stack: Stack, fake_claude: Any, settle: Any
) -> None:
    fault_stack.request_score(FAILING_TOOLS_ID)
    job = _job(fault_stack, FAILING_TOOLS_ID)
    repository = fault_stack.container.score_repository
    dead_claim = repository.claim(job.score_id, lease_seconds=30)  # this worker "dies" here
    assert dead_claim.claimed

    fault_stack.poller.drain()  # another worker sees the live lease and defers
    assert fault_stack.score(FAILING_TOOLS_ID).json()["status"] == "in_progress"
    assert len(fake_claude.requests) == 0

    _execute(
        fault_stack.env["SCORING_DATABASE_URL"],
        "UPDATE session_scores SET lease_expires_at = now() - interval '1 second' WHERE score_id = :id",
        id=job.score_id,
    )
    fault_stack.poller.make_deferred_visible()
    state = settle(fault_stack, faults=1, jobs=1)

    assert state.completed == 1
    # The dead worker's token no longer counts: its late result would be refused, and nothing is stored twice.
    from session_scoring.models.judge import JudgeOutputSchema, JudgeVerdict, TokenUsage

    late = JudgeVerdict(
        output=JudgeOutputSchema.model_validate(SAMPLE_VERDICT),
        provider="anthropic",
        model="late",
        usage=TokenUsage(input_tokens=1, output_tokens=1, cache_read_tokens=0, cache_write_tokens=0),
        latency_ms=1,
    )
    from session_scoring.models.records import PromptStats

    assert dead_claim.claim_token is not None
    assert not repository.complete(job.score_id, dead_claim.claim_token, "hash", late, PromptStats(False, None, None))
    assert fault_stack.score(FAILING_TOOLS_ID).json()["judge"]["model"] != "late"


def test_postgres_restarted_in_the_middle_of_a_batch_loses_nothing(
    make_stack: Any, fake_claude: Any, restartable_postgres: tuple[str, Any], settle: Any
) -> None:
    from tests.integration.faults.conftest import FAULT_ENV

    url, server = restartable_postgres
    # The database is stopped or restarted while the judge "thinks": under load pg_ctl takes longer than FAULT_ENV's
    # 1 s judge timeout, which would add a judge retry that is not what these tests are about.
    patient = {**FAULT_ENV, "JUDGE_TIMEOUT_SECONDS": "60"}
    stack: Stack = make_stack(**patient, ANTHROPIC_BASE_URL=fake_claude.base_url, SCORING_DATABASE_URL=url)
    restarts: list[str] = []

    def restart_database() -> None:
        restart(server)
        restarts.append("restarted")

    # The second judge call of the batch restarts PostgreSQL while the worker waits for the verdict: the pooled
    # connections die under the worker, which must store the verdict on a fresh one.
    fake_claude.script(
        reply_verdict(SAMPLE_VERDICT),
        FakeReply(on_request=restart_database, body=reply_verdict(SAMPLE_VERDICT).body),
        reply_verdict(SAMPLE_VERDICT),
    )
    for session_id in (THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID):
        assert stack.request_score(session_id).status_code == 202

    assert stack.poller.poll_once(wait_seconds=0) == 3  # one batch of three
    assert restarts == ["restarted"]
    stack.poller.make_deferred_visible()
    state = settle(stack, faults=1, jobs=3)

    assert state.completed == 3
    assert [stack.score(s).json()["status"] for s in (THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID)] == ["completed"] * 3


def stop(server: Any) -> None:
    from pgserver import pg_ctl

    pg_ctl(["-w", "stop", "-m", "fast"], pgdata=server.pgdata, user=server.system_user, timeout=30)


def test_postgres_down_while_storing_is_retried_later_and_stores_the_score_whole(
    make_stack: Any, fake_claude: Any, restartable_postgres: tuple[str, Any], settle: Any
) -> None:
    from tests.integration.faults.conftest import FAULT_ENV

    url, server = restartable_postgres
    # The database is stopped or restarted while the judge "thinks": under load pg_ctl takes longer than FAULT_ENV's
    # 1 s judge timeout, which would add a judge retry that is not what these tests are about.
    patient = {**FAULT_ENV, "JUDGE_TIMEOUT_SECONDS": "60"}
    stack: Stack = make_stack(**patient, ANTHROPIC_BASE_URL=fake_claude.base_url, SCORING_DATABASE_URL=url)
    fake_claude.script(FakeReply(on_request=lambda: stop(server), body=reply_verdict(SAMPLE_VERDICT).body))
    stack.request_score(FAILING_TOOLS_ID)

    assert stack.poller.poll_once(wait_seconds=0) == 1  # the verdict arrives with the database gone
    restart(server)

    score = stack.score(FAILING_TOOLS_ID).json()
    assert score["status"] == "in_progress"  # nothing half-stored; the attempt is still leased to the worker
    assert score["total_score"] is None
    assert score["missing_tools"] == []
    _execute(url, "UPDATE session_scores SET lease_expires_at = now() - interval '1 second'")
    stack.poller.make_deferred_visible()
    state = settle(stack, faults=1, jobs=1)

    assert state.completed == 1
    assert len(fake_claude.requests) == 2
