"""Redrive on real PostgreSQL and moto: the receive-and-resend mover, the StartMessageMoveTask path (SQS's server-side
move emulated, since moto lacks the API), and what happens when a move fails or an attempt cannot be reopened."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from session_scoring.errors import QueueUnavailableError
from session_scoring.infrastructure.queue import MoveTaskStatus, SqsDeadLetterQueue
from session_scoring.models.jobs import ScoringJob
from session_scoring.services.redrive import DeadLetterService, RedriveProgress
from tests.conftest import SHALLOW_ID, THOROUGH_ID, Stack

GAVE_UP = "the judge answered 529: Overloaded (gave up after 3 deliveries; the job is in the dead-letter queue)"


def _dead_letter(stack: Stack, session_id: str) -> uuid.UUID:
    """A request whose attempt failed on its last delivery and whose message waits in the dead-letter queue."""
    score = stack.request_score(session_id).json()
    score_id = uuid.UUID(score["score_id"])
    received = stack.sqs.receive_message(QueueUrl=stack.resources.queue_url, MaxNumberOfMessages=10)
    for message in received.get("Messages", []):  # the scoring queue gave the message up to the dead-letter queue
        stack.sqs.delete_message(QueueUrl=stack.resources.queue_url, ReceiptHandle=message["ReceiptHandle"])
    assert stack.container.score_repository.fail(score_id, None, GAVE_UP, dead_lettered=True)
    job = ScoringJob(
        score_id=score_id, session_id=session_id, requested_by="api-client", requested_at=score["requested_at"]
    )
    stack.sqs.send_message(QueueUrl=stack.resources.dead_letter_queue_url, MessageBody=job.model_dump_json())
    return score_id


def _dlq_size(stack: Stack) -> int:
    return len(
        stack.sqs.receive_message(
            QueueUrl=stack.resources.dead_letter_queue_url, MaxNumberOfMessages=10, VisibilityTimeout=0
        ).get("Messages", [])
    )


class EmulatedMoveTaskQueue(SqsDeadLetterQueue):
    """SQS's StartMessageMoveTask done the way SQS does it (every visible message moved), for moto."""

    def __init__(self, stack: Stack, fail_start: bool = False) -> None:
        super().__init__(stack.sqs, stack.resources.queue_url, stack.resources.dead_letter_queue_url, True)
        self._fail_start = fail_start
        self.moved = 0

    def start_move_task(self) -> str:
        if self._fail_start:
            raise QueueUnavailableError("SQS StartMessageMoveTask failed: AccessDenied")
        while batch := self.receive(30):
            for message in batch:
                self.resend(message)
                self.moved += 1
        return "task-1"

    def move_task_status(self, task_handle: str) -> MoveTaskStatus:
        return MoveTaskStatus(status="COMPLETED", moved=self.moved, to_move=self.moved)


def test_redrive_with_the_move_task_reopens_and_completes(stack: Stack) -> None:
    ids = [_dead_letter(stack, THOROUGH_ID), _dead_letter(stack, SHALLOW_ID)]
    service = DeadLetterService(EmulatedMoveTaskQueue(stack), stack.container.score_repository)
    progress: list[RedriveProgress] = []

    result = service.redrive(progress.append)

    assert (result.method, result.moved, result.reopened) == ("StartMessageMoveTask", 2, 2)
    assert progress[-1] == RedriveProgress(2, 2)
    assert _dlq_size(stack) == 0
    assert stack.poller.drain() == 2
    for session_id, score_id in zip((THOROUGH_ID, SHALLOW_ID), ids, strict=True):
        score = stack.score(session_id).json()
        assert (score["score_id"], score["status"]) == (str(score_id), "completed")


class LateArrivalMoveTaskQueue(EmulatedMoveTaskQueue):
    """The race: a job is dead-lettered after the redrive has read the queue and before the move task starts."""

    def __init__(self, stack: Stack, late_session_id: str) -> None:
        super().__init__(stack)
        self._stack = stack
        self._late_session_id = late_session_id

    def start_move_task(self) -> str:
        _dead_letter(self._stack, self._late_session_id)
        return super().start_move_task()


def test_a_job_dead_lettered_while_the_redrive_runs_is_scored_not_left_failed(stack: Stack) -> None:
    early = _dead_letter(stack, THOROUGH_ID)
    service = DeadLetterService(
        LateArrivalMoveTaskQueue(stack, SHALLOW_ID),
        stack.container.score_repository,
    )

    result = service.redrive()

    assert (result.moved, result.reopened) == (2, 1)  # the late one was moved without being reopened first
    assert stack.poller.drain() == 2
    assert stack.score(THOROUGH_ID).json()["score_id"] == str(early)
    assert [stack.score(s).json()["status"] for s in (THOROUGH_ID, SHALLOW_ID)] == ["completed", "completed"]


def test_a_failed_move_leaves_the_attempts_failed_with_their_reason(stack: Stack) -> None:
    score_id = _dead_letter(stack, THOROUGH_ID)
    queues = EmulatedMoveTaskQueue(stack, fail_start=True)
    service = DeadLetterService(queues, stack.container.score_repository)

    with pytest.raises(QueueUnavailableError):
        service.redrive()

    score = stack.score(THOROUGH_ID).json()
    assert (score["score_id"], score["status"], score["error_message"]) == (str(score_id), "failed", GAVE_UP)
    assert _dlq_size(stack) == 1  # nothing moved, nothing pending without a message


def test_an_attempt_superseded_by_a_new_request_is_not_reopened(stack: Stack) -> None:
    old = _dead_letter(stack, THOROUGH_ID)
    stack.sqs.send_message(QueueUrl=stack.resources.dead_letter_queue_url, MessageBody="{not a job")
    newer = stack.request_score(THOROUGH_ID).json()  # the operator asked again before redriving

    result = stack.container.dead_letters.redrive()

    assert (result.method, result.moved, result.reopened) == ("receive-and-resend", 2, 0)
    assert any(str(old) in note and "another active attempt" in note for note in result.skipped)
    assert any("not a scoring job" in note for note in result.skipped)
    stack.poller.drain()
    history = {s["score_id"]: s for s in stack.client.get(f"/api/v1/scoring/sessions/{THOROUGH_ID}/scores").json()}
    assert history[newer["score_id"]]["status"] == "completed"
    assert history[str(old)]["status"] == "failed"
    assert history[str(old)]["error_message"] == GAVE_UP


def test_cli_reports_configuration_errors_readably(make_stack: Any, capsys: Any) -> None:
    from session_scoring.entrypoints.cli import main

    make_stack(SCORING_DLQ_URL="")

    assert main(["dlq"]) == 2
    assert "SCORING_DLQ_URL must both be set" in capsys.readouterr().err


def test_cli_says_when_there_is_nothing_to_redrive(stack: Stack, capsys: Any) -> None:
    from session_scoring.entrypoints.cli import main

    assert main(["redrive"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "nothing to redrive"
