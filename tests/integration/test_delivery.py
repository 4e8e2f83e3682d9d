"""At-least-once delivery: duplicates, vanished sessions, and what a worker does with a job it cannot claim."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import text

from functions.scorer.app import handler
from tests.conftest import SHALLOW_ID, THOROUGH_ID, Stack


def test_duplicate_delivery_of_a_completed_attempt_is_acknowledged_without_judging(
    claude_stack: Stack, fake_claude: Any
) -> None:
    claude_stack.request_score(THOROUGH_ID)
    message = claude_stack.sqs.receive_message(QueueUrl=claude_stack.resources.queue_url, AttributeNames=["All"])
    body = message["Messages"][0]["Body"]
    claude_stack.sqs.send_message(QueueUrl=claude_stack.resources.queue_url, MessageBody=body)
    claude_stack.sqs.change_message_visibility(
        QueueUrl=claude_stack.resources.queue_url,
        ReceiptHandle=message["Messages"][0]["ReceiptHandle"],
        VisibilityTimeout=0,
    )

    assert claude_stack.poller.drain() == 2

    assert len(fake_claude.requests) == 1
    scores = claude_stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}/scores").json()
    assert [s["status"] for s in scores] == ["completed"]


def test_a_batch_with_a_malformed_record_fails_only_that_record(stack: Stack) -> None:
    stack.request_score(THOROUGH_ID)
    good = stack.sqs.receive_message(QueueUrl=stack.resources.queue_url)["Messages"][0]
    event = {
        "Records": [
            {
                "messageId": "good",
                "receiptHandle": good["ReceiptHandle"],
                "body": good["Body"],
                "attributes": {"ApproximateReceiveCount": "1"},
                "messageAttributes": {},
                "eventSource": "aws:sqs",
            },
            {
                "messageId": "bad",
                "receiptHandle": "x",
                "body": "{not json",
                "attributes": {"ApproximateReceiveCount": "1"},
                "messageAttributes": {},
                "eventSource": "aws:sqs",
            },
        ]
    }

    from devstack.queue_poller import LocalLambdaContext

    result = handler(event, LocalLambdaContext())

    assert result == {"batchItemFailures": [{"itemIdentifier": "bad"}]}
    assert stack.score(THOROUGH_ID).json()["status"] == "completed"


def test_session_gone_by_the_time_the_job_runs_fails_with_the_reason(make_stack: Any, tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[2] / "config" / "sample_sessions" / f"{SHALLOW_ID}.json"
    (tmp_path / f"{SHALLOW_ID}.json").write_text(source.read_text())
    stack = make_stack(SCORING_SESSIONS_DIR=str(tmp_path))
    stack.request_score(SHALLOW_ID)
    (tmp_path / f"{SHALLOW_ID}.json").unlink()

    stack.poller.drain()

    score = stack.score(SHALLOW_ID).json()
    assert score["status"] == "failed"
    assert "was not found" in score["error_message"]


def test_job_for_an_attempt_held_by_another_worker_comes_back_later(stack: Stack) -> None:
    stack.request_score(THOROUGH_ID)
    score_id = uuid.UUID(stack.score(THOROUGH_ID).json()["score_id"])
    claim = stack.container.score_repository.claim(score_id, lease_seconds=600)
    assert claim.claimed

    received = stack.poller.drain()

    assert received == 1
    attributes = stack.sqs.get_queue_attributes(
        QueueUrl=stack.resources.queue_url, AttributeNames=["ApproximateNumberOfMessagesNotVisible"]
    )["Attributes"]
    assert attributes["ApproximateNumberOfMessagesNotVisible"] == "1"
    assert stack.score(THOROUGH_ID).json()["status"] == "in_progress"


def test_one_transaction_stores_score_tools_approaches_and_steps(stack: Stack) -> None:
    stack.request_score(SHALLOW_ID)
    stack.poller.drain()
    score = stack.score(SHALLOW_ID).json()

    with stack.container.engine.connect() as conn:
        tools = conn.execute(text("SELECT count(*) FROM score_missing_tools")).scalar()
        steps = (
            conn.execute(
                text(
                    "SELECT step_order FROM score_alternative_approach_steps s JOIN score_alternative_approaches a "
                    "ON a.id = s.approach_id WHERE a.position = 0 ORDER BY step_order"
                )
            )
            .scalars()
            .all()
        )
    assert tools == len(score["missing_tools"])
    assert steps == list(range(1, len(score["alternative_approaches"][0]["steps"]) + 1))
    assert json.dumps(score)
