"""The scoring job message: a message from before ``deferrals`` still parses, and new messages stay readable by it."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from session_scoring.models.jobs import ScoringJob
from session_scoring.models.runs import QueueMessage

OLD_MESSAGE = json.dumps(
    {
        "version": 1,
        "score_id": "5b0e4a3c-2f1d-4c8b-9a7e-6d5c4b3a2f10",
        "session_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7",
        "requested_by": "oncall-sre@example.com",
        "requested_at": "2026-11-22T09:15:41Z",
    }
)


def _job() -> ScoringJob:
    return ScoringJob(score_id=uuid.uuid4(), session_id="s-1", requested_by="me", requested_at=datetime.now(UTC))


def test_a_message_from_before_deferrals_parses_as_never_deferred() -> None:
    job = QueueMessage.validate_json(OLD_MESSAGE)

    assert isinstance(job, ScoringJob)
    assert job.deferrals == 0


def test_a_never_deferred_job_is_sent_without_the_field_so_an_older_scorer_still_reads_it() -> None:
    body = json.loads(_job().model_dump_json())

    assert "deferrals" not in body
    assert set(body) == set(json.loads(OLD_MESSAGE)) | {"run_id"}


def test_a_deferred_copy_is_the_same_attempt_with_one_more_deferral() -> None:
    job = _job()

    copy = QueueMessage.validate_json(job.deferred().deferred().model_dump_json())

    assert isinstance(copy, ScoringJob)
    assert copy.deferrals == 2
    assert copy.model_copy(update={"deferrals": 0}) == job


def test_a_negative_deferral_count_is_refused() -> None:
    with pytest.raises(ValidationError, match="deferrals"):
        ScoringJob.model_validate_json(json.dumps({**json.loads(OLD_MESSAGE), "deferrals": -1}))
