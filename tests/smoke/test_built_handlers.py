"""Smoke test of the `sam build` output: each built handler, run by the Lambda runtime's Python version, with only
the built function and its layers on the path, invoked with the files in events/ against a real PostgreSQL, moto
(SQS, DynamoDB, Secrets Manager, S3) and the fake Claude server: migrate, accept a request, score it, and export it as
training data through the exporter into the stack's bucket; and each scheduled function once with its event.

Needs `.aws-sam/build` (`make build`) and the runtime's interpreter (SCORING_LAMBDA_PYTHON, else python3.12 on PATH);
`make smoke` and `make test` provide both.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import pytest
from sqlalchemy import create_engine, make_url, text

from tests.conftest import ROOT
from tests.support.cfn import load_template, ref_target
from tests.support.events import EVENTS, CloudFormationListener, load_event, with_response_url, with_score_id
from tests.support.fake_claude import SAMPLE_VERDICT
from tests.support.migrations import head_revision

BUILD = ROOT / ".aws-sam" / "build"
RUNNER = Path(__file__).with_name("invoke_built.py")
EXPORT = "/api/v1/scoring/exports/training"
_MOTO_KEYS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}


def built_template() -> dict[str, Any]:
    return load_template(BUILD / "template.yaml")


@pytest.fixture(scope="module")
def runtime_python() -> str:
    if not (BUILD / "template.yaml").is_file():
        pytest.fail("no .aws-sam/build: run `make build` (sam build) first")
    runtime = built_template()["Globals"]["Function"]["Runtime"]  # e.g. python3.12
    python = os.environ.get("SCORING_LAMBDA_PYTHON") or shutil.which(runtime)
    if not python:
        pytest.fail(f"no {runtime} interpreter: set SCORING_LAMBDA_PYTHON (make does it from pyenv when present)")
    version = subprocess.run(
        [python, "-c", "import sys; print(f'python{sys.version_info[0]}.{sys.version_info[1]}')"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version == runtime, f"{python} is {version}, the functions run on {runtime}"
    return python


def python_path(function: str) -> str:
    """The function's code, then its layers' python/ folders in template order, as Lambda merges them into /opt."""
    properties = built_template()["Resources"][function]["Properties"]
    layers = [BUILD / ref_target(layer) / "python" for layer in properties["Layers"]]
    return os.pathsep.join([str(BUILD / Path(properties["CodeUri"]).name), *map(str, layers)])


@dataclass
class Invocation:
    results: dict[str, Any]
    init_ms: float
    python: str
    anthropic_loaded: bool
    anthropic_importable: bool
    judge_sdks_importable: list[str]


@dataclass
class SmokeStack:
    python: str
    env: dict[str, str]
    database_url: str
    tmp: Path
    moto_endpoint: str

    def invoke(self, function: str, *events: str | tuple[str, dict[str, Any]]) -> Invocation:
        """Run the built handler once per event, in one fresh interpreter; an event is a file name in events/,
        or (name, event) for a copy of one with test-specific values (the score id, the response URL)."""
        paths = []
        scratch = self.tmp / uuid.uuid4().hex[:8]
        scratch.mkdir()
        for item in events:
            if isinstance(item, str):
                paths.append(str(EVENTS / item))
            else:
                name, event = item
                (scratch / name).write_text(json.dumps(event))
                paths.append(str(scratch / name))
        env = {**self.env, "PYTHONPATH": python_path(function)}
        handler = built_template()["Resources"][function]["Properties"]["Handler"]
        completed = subprocess.run(
            [self.python, "-S", str(RUNNER), function, handler, *paths],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert completed.returncode == 0, completed.stderr[-3000:]
        printed = [json.loads(line) for line in completed.stdout.splitlines() if line.startswith("{")]
        lines = [line for line in printed if "_aws" not in line]  # the handlers' own EMF metric lines are not ours
        results = {}
        for line, path in zip(lines[:-1], paths, strict=True):
            assert "error" not in line, f"{function} raised on {path}: {line['error']}\n{completed.stderr[-2000:]}"
            results[line["event"]] = line["result"]
        summary = lines[-1]
        return Invocation(
            results,
            summary["init_ms"],
            summary["python"],
            summary["anthropic_loaded"],
            summary["anthropic_importable"],
            summary["judge_sdks_importable"],
        )

    def scores(self) -> list[dict[str, Any]]:
        engine = create_engine(self.database_url)
        try:
            with engine.connect() as conn:
                rows = conn.execute(
                    text(
                        "SELECT score_id::text, status, total_score, judge_provider, error_message FROM session_scores"
                    )
                )
                return [dict(row._mapping) for row in rows]
        finally:
            engine.dispose()


@pytest.fixture
def smoke(
    runtime_python: str, postgres_url: str, moto_endpoint: str, fake_claude: Any, tmp_path: Path
) -> Iterator[SmokeStack]:
    from devstack.aws import LOCAL_CREDENTIALS, client, create_resources

    name = f"smoke_{uuid.uuid4().hex[:8]}"
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    database_url = make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    resources = create_resources(moto_endpoint, prefix=f"s{uuid.uuid4().hex[:10]}", max_receive_count=3)
    exports_bucket = f"{name.replace('_', '-')}-exports"
    boto3.client(
        "s3", endpoint_url=moto_endpoint, region_name=LOCAL_CREDENTIALS["AWS_REGION"], **_MOTO_KEYS
    ).create_bucket(Bucket=exports_bucket)
    exports_queue_url = client("sqs", moto_endpoint).create_queue(QueueName=f"{name}-exports")["QueueUrl"]
    key_arn = client("secretsmanager", moto_endpoint).create_secret(
        Name=f"smoke-judge-key-{uuid.uuid4().hex[:6]}", SecretString="smoke-key-not-secret"
    )["ARN"]
    core = BUILD / "CoreLayer"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        **LOCAL_CREDENTIALS,
        "AWS_DEFAULT_REGION": LOCAL_CREDENTIALS["AWS_REGION"],  # Lambda sets both
        "AWS_ENDPOINT_URL": moto_endpoint,
        "SCORING_DATABASE_URL": database_url,
        "SCORING_QUEUE_URL": resources.queue_url,
        "SCORING_DLQ_URL": resources.dead_letter_queue_url,
        "SCORING_BREAKER_TABLE": resources.breaker_table,
        "SCORING_MAX_RECEIVE_COUNT": "3",
        "SCORING_EXPORTS_BUCKET": exports_bucket,
        "SCORING_EXPORTS_QUEUE_URL": exports_queue_url,
        # Where the core layer's files are in this build (in Lambda: /opt/config, /opt/migrations, base /opt).
        "SCORING_CONFIG_PATH": str(core / "config" / "scoring_config.yaml"),
        "SCORING_MIGRATIONS_DIR": str(core / "migrations"),
        "SCORING_BASE_DIR": str(core),
        "SCORING_LLM_PROVIDER": "anthropic",
        "ANTHROPIC_API_KEY_SECRET_ARN": key_arn,
        "ANTHROPIC_BASE_URL": fake_claude.base_url,
        "JUDGE_TIMEOUT_SECONDS": "10",
        "JUDGE_RETRY_BASE_SECONDS": "0",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }
    try:
        yield SmokeStack(runtime_python, env, database_url, tmp_path, moto_endpoint)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()


def test_built_handlers_migrate_accept_score_and_export_a_session(smoke: SmokeStack, fake_claude: Any) -> None:
    with CloudFormationListener() as cfn:
        create = with_response_url(load_event("cfn-migrate-create.json"), cfn.url)
        migrate = smoke.invoke("MigrateFunction", ("create.json", create))
    assert migrate.results["create.json"]["Status"] == "SUCCESS"
    assert [r["Status"] for r in cfn.responses] == ["SUCCESS"]
    assert cfn.responses[0]["Data"]["Revision"] == head_revision()

    api = smoke.invoke("ApiFunction", "api-post-score.json", "api-bad-request.json", "api-list-sessions.json")
    posted = api.results["api-post-score.json"]
    assert posted["statusCode"] == 202, posted
    pending = json.loads(posted["body"])
    assert pending["status"] == "pending"
    assert pending["scored_triggered_by"] == "oncall-sre@example.com"
    assert api.results["api-bad-request.json"]["statusCode"] == 422
    assert api.results["api-list-sessions.json"]["statusCode"] == 200
    assert not api.anthropic_loaded
    assert not api.anthropic_importable, "the API function's package must not contain the Anthropic SDK"
    assert api.judge_sdks_importable == [], "the API function's package must carry none of the judges' SDKs"

    scorer = smoke.invoke(
        "ScorerFunction",
        ("one-job.json", with_score_id(load_event("sqs-one-job.json"), pending["score_id"])),
        ("malformed.json", with_score_id(load_event("sqs-batch-one-malformed.json"), pending["score_id"])),
    )
    assert scorer.results["one-job.json"] == {"batchItemFailures": []}
    malformed_id = load_event("sqs-batch-one-malformed.json")["Records"][1]["messageId"]
    assert scorer.results["malformed.json"] == {"batchItemFailures": [{"itemIdentifier": malformed_id}]}
    assert scorer.anthropic_loaded, "the scorer judged with Claude through the SDK from the judge layer"

    [score] = smoke.scores()
    assert score["score_id"] == pending["score_id"]
    assert (score["status"], score["error_message"]) == ("completed", None)
    assert score["total_score"] == SAMPLE_VERDICT["total_score"]
    assert score["judge_provider"] == "anthropic"
    assert len(fake_claude.requests) == 1
    headers = fake_claude.request_headers[0]
    assert "smoke-key-not-secret" in headers.get("authorization", "") + headers.get("x-api-key", ""), (
        "the judge's key came from Secrets Manager"
    )

    reaper, auto_scoring, poller = (
        smoke.invoke(function, event)
        for function, event in (
            ("ReaperFunction", "schedule-reap.json"),
            ("AutoScoringFunction", "schedule-auto-score.json"),
            ("BatchPollerFunction", "schedule-poll-batches.json"),
        )
    )
    assert reaper.results["schedule-reap.json"]["requeued"] == 0  # the one attempt is completed
    assert auto_scoring.results["schedule-auto-score.json"]["run_id"] is None  # off unless AutoScoringEnabled
    assert poller.results["schedule-poll-batches.json"]["submitted"] == 0  # no batch-mode run

    dashboard = load_event("api-get-score.json")
    dashboard["rawPath"] = dashboard["requestContext"]["http"]["path"] = "/"
    after = smoke.invoke("ApiFunction", "api-get-score.json", ("dashboard.json", dashboard))
    completed = json.loads(after.results["api-get-score.json"]["body"])
    assert (completed["score_id"], completed["status"]) == (pending["score_id"], "completed")
    if (ROOT / "functions" / "api" / "static" / "index.html").is_file():  # `make build` builds the dashboard first
        page = after.results["dashboard.json"]
        assert page["statusCode"] == 200, page
        assert page["headers"]["content-type"].startswith("text/html")

    print(
        f"\nCold init from .aws-sam/build on Python {api.python} (handler module import, app construction "
        f"included): API {after.init_ms:.0f} ms, scorer {scorer.init_ms:.0f} ms, migrate {migrate.init_ms:.0f} ms, "
        f"reaper {reaper.init_ms:.0f} ms, auto-scoring {auto_scoring.init_ms:.0f} ms, batch poller "
        f"{poller.init_ms:.0f} ms"
    )

    exported = export_through_built_handlers(smoke)
    assert [line["session_id"] for line in exported] == [completed["session_id"]]
    assert exported[0]["total_score"] == SAMPLE_VERDICT["total_score"]
    assert exported[0]["messages"], "the line carries the investigation as a conversation"


def api_event(method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """The sample API event with another method, path and JSON body (what API Gateway sends for that request)."""
    event = load_event("api-post-score.json")
    event["rawPath"] = event["requestContext"]["http"]["path"] = path
    event["requestContext"]["http"]["method"] = method
    event["pathParameters"] = {"proxy": path.removeprefix("/api/")}
    if body is not None:
        event["headers"]["content-type"] = "application/json"
        event["body"] = json.dumps(body)
    return event


def export_through_built_handlers(smoke: SmokeStack) -> list[dict[str, Any]]:
    """A training export as in AWS: the API's POST queues a job, the built exporter writes it to the bucket from the
    queue's message (in the sample event's shape), the API's GET answers a presigned URL; returns the file's lines."""
    posted = smoke.invoke("ApiFunction", ("post-export.json", api_event("POST", EXPORT, {"min_score": 0})))
    answer = posted.results["post-export.json"]
    assert answer["statusCode"] == 202, answer
    export_id = json.loads(answer["body"])["export_id"]

    sqs = boto3.client("sqs", endpoint_url=smoke.moto_endpoint, region_name="us-east-1", **_MOTO_KEYS)
    queue_url = smoke.env["SCORING_EXPORTS_QUEUE_URL"]
    [message] = sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=0)["Messages"]
    event = load_event("sqs-export-job.json")
    event["Records"][0]["body"] = message["Body"]
    exporter = smoke.invoke("ExporterFunction", ("export-job.json", event))
    assert exporter.results["export-job.json"] == {"batchItemFailures": []}
    assert not exporter.anthropic_loaded

    job_path = f"{EXPORT.removesuffix('/training')}/{export_id}"
    got = smoke.invoke("ApiFunction", ("get-export.json", api_event("GET", job_path)))
    job = json.loads(got.results["get-export.json"]["body"])
    assert job["status"] == "completed", job
    with urllib.request.urlopen(job["download_url"], timeout=10) as download:
        lines = [json.loads(line) for line in download.read().splitlines()]
    assert len(lines) == job["rows_written"]
    return lines


LAMBDA_UNZIPPED_LIMIT = 262_144_000
"""Lambda's limit on a function's code and all its layers, unzipped (250 MB, in bytes): above it a deploy fails."""


def _unzipped_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())


def test_each_built_function_with_its_layers_fits_lambdas_unzipped_limit() -> None:
    if not (BUILD / "template.yaml").is_file():
        pytest.fail("no .aws-sam/build: run `make build` (sam build) first")
    resources = built_template()["Resources"]
    sizes: dict[str, int] = {}
    for name, resource in resources.items():
        if resource["Type"] != "AWS::Serverless::Function":
            continue
        properties = resource["Properties"]
        parts = [BUILD / Path(properties["CodeUri"]).name, *(BUILD / ref_target(x) for x in properties["Layers"])]
        sizes[name] = sum(_unzipped_bytes(part) for part in parts)
    print("unzipped, code and layers: " + ", ".join(f"{n} {b / 1e6:.1f} MB" for n, b in sorted(sizes.items())))
    too_large = {name: size for name, size in sizes.items() if size > LAMBDA_UNZIPPED_LIMIT}
    assert not too_large, f"over Lambda's {LAMBDA_UNZIPPED_LIMIT:,} bytes unzipped: {too_large}"
