"""Training exports as jobs (where an exports bucket is configured), end to end on real PostgreSQL and moto's server:
POST -> the exporter handler on the queue's message (the sample event in events/) -> the file in S3 equals the
streamed export -> GET answers a presigned URL that fetches it; and the ways a job fails, each readable on the job."""

from __future__ import annotations

import copy
import json
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from sqlalchemy import create_engine, text

from devstack.queue_poller import LocalLambdaContext
from session_scoring.entrypoints.cli import main as cli
from session_scoring.repositories.exports import ExportJobRepository
from tests.conftest import FAILING_TOOLS_ID, SHALLOW_ID, THOROUGH_ID, Stack
from tests.support.events import load_event

EXPORT = "/api/v1/scoring/exports/training"


def s3(endpoint: str) -> Any:
    return boto3.client(
        "s3", region_name="us-east-1", endpoint_url=endpoint, aws_access_key_id="testing", aws_secret_access_key="x"
    )


@pytest.fixture
def export_env(stack_env: dict[str, str], moto_endpoint: str) -> dict[str, str]:
    """A bucket and an exports queue of the stack's own (the scoring queues come from ``stack_env``)."""
    prefix = stack_env["SCORING_QUEUE_URL"].rsplit("/", 1)[-1].removesuffix("-jobs")
    bucket = f"{prefix}-exports"
    s3(moto_endpoint).create_bucket(Bucket=bucket)
    sqs = boto3.client("sqs", region_name="us-east-1", endpoint_url=moto_endpoint)
    queue_url = sqs.create_queue(QueueName=f"{prefix}-exports")["QueueUrl"]
    return {"SCORING_EXPORTS_BUCKET": bucket, "SCORING_EXPORTS_QUEUE_URL": queue_url}


@pytest.fixture
def export_stack(make_stack: Callable[..., Stack], export_env: dict[str, str]) -> Stack:
    return make_stack(**export_env)


def score_samples(stack: Stack) -> None:
    for session_id in (THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID):
        assert stack.request_score(session_id).status_code == 202
    stack.poller.drain()


def run_exporter(stack: Stack, receive_count: int = 1, budget_seconds: float = 900.0) -> dict[str, Any]:
    """Deliver the exports queue's waiting messages to the exporter handler, each in the sample event's shape."""
    from functions.exporter.handler import handler

    queue_url = stack.env["SCORING_EXPORTS_QUEUE_URL"]
    messages = stack.sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0)["Messages"]
    assert len(messages) == 1
    event = copy.deepcopy(load_event("sqs-export-job.json"))
    event["Records"][0]["body"] = messages[0]["Body"]
    event["Records"][0]["attributes"]["ApproximateReceiveCount"] = str(receive_count)
    result: dict[str, Any] = handler(event, LocalLambdaContext(budget_seconds=budget_seconds))
    stack.sqs.delete_message(QueueUrl=queue_url, ReceiptHandle=messages[0]["ReceiptHandle"])
    return result


def test_an_export_job_writes_the_streamed_export_to_s3_and_answers_a_presigned_url(
    export_stack: Stack, tmp_path: Path, moto_endpoint: str
) -> None:
    stack = export_stack
    score_samples(stack)
    streamed = tmp_path / "streamed.jsonl"
    assert cli(["export", "training", "--min-score", "0", "--out", str(streamed)]) == 0  # the CLI streams as before

    posted = stack.client.post(EXPORT, json={"min_score": 0, "format": "openai-chat"})
    assert posted.status_code == 202, posted.text
    job = posted.json()
    assert (job["status"], job["requested_by"]) == ("queued", "api-client")
    assert job["criteria_hash"] == stack.container.config.criteria_hash  # 'current' resolved when asked
    assert posted.headers["location"] == f"/api/v1/scoring/exports/{job['export_id']}"
    assert stack.client.get(posted.headers["location"]).json()["download_url"] is None

    assert run_exporter(stack) == {"batchItemFailures": []}

    done = stack.client.get(posted.headers["location"]).json()
    expected = streamed.read_bytes()
    assert done["status"] == "completed", done
    assert (done["rows_written"], done["bytes_written"]) == (3, len(expected))
    assert done["started_at"]
    assert done["finished_at"]
    assert done["expires_at"]
    with urllib.request.urlopen(done["download_url"], timeout=10) as answer:
        assert answer.read() == expected
        assert f"training-openai-chat-{job['export_id']}.jsonl" in answer.headers["Content-Disposition"]
    assert [json.loads(line)["session_id"] for line in expected.splitlines()]


def test_a_job_whose_bucket_is_missing_fails_with_the_reason(
    make_stack: Callable[..., Stack], export_env: dict[str, str]
) -> None:
    stack = make_stack(**{**export_env, "SCORING_EXPORTS_BUCKET": "no-such-exports-bucket"})
    score_samples(stack)
    job = stack.client.post(EXPORT, json={"min_score": 0}).json()

    assert run_exporter(stack) == {"batchItemFailures": []}  # recorded on the job, so the message is done with

    failed = stack.client.get(f"/api/v1/scoring/exports/{job['export_id']}").json()
    assert failed["status"] == "failed"
    assert "no-such-exports-bucket" in failed["error"]
    assert "NoSuchBucket" in failed["error"]
    assert failed["download_url"] is None
    assert failed["finished_at"]


def test_an_export_out_of_time_stops_and_says_how_far_it_got(export_stack: Stack) -> None:
    score_samples(export_stack)
    job = export_stack.client.post(EXPORT, json={"min_score": 0}).json()

    run_exporter(export_stack, budget_seconds=1.0)  # less than the margin kept to record the failure

    failed = export_stack.client.get(f"/api/v1/scoring/exports/{job['export_id']}").json()
    assert failed["status"] == "failed"
    assert "did not finish within the exporter's time after 0 sessions" in failed["error"]
    assert failed["rows_written"] == 0


def test_a_redelivered_running_job_is_failed_as_interrupted_and_a_finished_one_is_left_alone(
    export_stack: Stack,
) -> None:
    job = export_stack.client.post(EXPORT, json={"min_score": 90}).json()
    export_id = uuid.UUID(job["export_id"])
    repository = ExportJobRepository(export_stack.container.query_engine)
    assert repository.claim(export_id) is not None  # an exporter took it, then died

    assert run_exporter(export_stack, receive_count=2) == {"batchItemFailures": []}

    failed = export_stack.client.get(f"/api/v1/scoring/exports/{export_id}").json()
    assert failed["status"] == "failed"
    assert "stopped during an earlier attempt" in failed["error"]
    finished = repository.get(export_id)
    repository.complete(export_id, "exports/late.jsonl", 1, 1)
    assert repository.get(export_id) == finished  # a finished job is never rewritten


def test_where_exports_are_jobs_the_streaming_get_is_405_naming_the_post(export_stack: Stack) -> None:
    jobs = export_stack.client.get(EXPORT, params={"min_score": 0})
    assert jobs.status_code == 405
    assert jobs.headers["allow"] == "POST"
    assert "POST /api/v1/scoring/exports/training" in jobs.json()["detail"]


def test_without_a_bucket_the_post_is_405_and_the_get_streams(stack: Stack) -> None:
    refused = stack.client.post(EXPORT, json={"min_score": 0})
    assert refused.status_code == 405
    assert refused.headers["allow"] == "GET"
    assert "SCORING_EXPORTS_BUCKET" in refused.json()["detail"]
    assert stack.client.get(EXPORT, params={"min_score": 0}).status_code == 200


def test_bad_requests_are_clear_and_store_no_job(export_stack: Stack) -> None:
    bad_format = export_stack.client.post(EXPORT, json={"format": "csv"})
    assert bad_format.status_code == 400
    assert "openai-chat" in bad_format.json()["detail"]
    assert export_stack.client.post(EXPORT, json={"min_score": 101}).status_code == 422
    assert export_stack.client.post(EXPORT, json={"criteria_hash": "nope"}).status_code == 400
    unknown = export_stack.client.get(f"/api/v1/scoring/exports/{uuid.uuid4()}")
    assert unknown.status_code == 404
    assert "POST /exports/training" in unknown.json()["detail"]
    assert _jobs(export_stack) == []


def test_a_queue_that_refuses_the_job_is_a_503_and_the_job_says_why(
    make_stack: Callable[..., Stack], export_env: dict[str, str], moto_endpoint: str
) -> None:
    missing_queue = f"{moto_endpoint}/000000000000/no-such-exports-queue"
    stack = make_stack(**{**export_env, "SCORING_EXPORTS_QUEUE_URL": missing_queue})

    answer = stack.client.post(EXPORT, json={"min_score": 0})

    assert answer.status_code == 503
    assert "exports queue" in answer.json()["detail"]
    [(status, error)] = _jobs(stack)
    assert status == "failed"
    assert "ask again" in error


def _jobs(stack: Stack) -> list[tuple[str, str | None]]:
    engine = create_engine(stack.env["SCORING_DATABASE_URL"])
    try:
        with engine.connect() as conn:
            return [(r.status, r.error_message) for r in conn.execute(text("SELECT * FROM export_jobs"))]
    finally:
        engine.dispose()


def test_a_large_export_goes_up_in_parts_and_a_failed_one_leaves_no_upload_behind(
    export_stack: Stack, moto_endpoint: str
) -> None:
    from session_scoring.infrastructure.aws import aws_client
    from session_scoring.infrastructure.exports import PART_BYTES, S3ExportStore

    bucket = export_stack.env["SCORING_EXPORTS_BUCKET"]
    store = S3ExportStore(aws_client("s3", export_stack.container.settings), bucket)
    line = b'{"session_id": "s", "messages": "' + b"m" * 1000 + b'"}\n'
    count = 2 * PART_BYTES // len(line) + 10  # three parts: two full, one short

    written = store.upload("exports/large.jsonl", (line for _ in range(count)))

    client = s3(moto_endpoint)
    head = client.head_object(Bucket=bucket, Key="exports/large.jsonl", PartNumber=1)
    assert head["PartsCount"] == 3
    body = client.get_object(Bucket=bucket, Key="exports/large.jsonl")["Body"].read()
    assert written == len(body) == count * len(line)
    assert body == line * count

    def broken() -> Iterator[bytes]:
        yield from (line for _ in range(count))
        raise RuntimeError("the database went away")

    with pytest.raises(RuntimeError, match="went away"):
        store.upload("exports/broken.jsonl", broken())
    assert client.list_multipart_uploads(Bucket=bucket).get("Uploads", []) == []
    assert "Contents" not in client.list_objects_v2(Bucket=bucket, Prefix="exports/broken")
