"""The Lambda handlers invoked with the sample events in events/ (the files `sam local invoke -e` takes).

Real PostgreSQL and moto's SQS as in the other integration tests; the API handler is the Mangum entry point that
API Gateway calls, the scorer handler gets the SQS events, the migration handler gets CloudFormation's Create.
"""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text

from devstack.queue_poller import LocalLambdaContext
from session_scoring.container import reset_container
from tests.conftest import ROOT, THOROUGH_ID, Stack
from tests.support.databases import scratch_database
from tests.support.emf import emf, named
from tests.support.events import CloudFormationListener, http_body, load_event, with_response_url, with_score_id
from tests.support.migrations import head_revision

SCORE_PATH = f"/api/v1/scoring/sessions/{THOROUGH_ID}/score"


def invoke_api(event_name: str) -> tuple[int, Any, dict[str, str]]:
    from functions.api.app import handler

    response = handler(load_event(event_name), LocalLambdaContext(budget_seconds=29))
    return response["statusCode"], http_body(response), response.get("headers", {})


def invoke_scorer(event: dict[str, Any]) -> dict[str, Any]:
    from functions.scorer.app import handler

    result: dict[str, Any] = handler(event, LocalLambdaContext(budget_seconds=600))
    return result


def test_post_event_queues_an_attempt_recording_the_jwt_email(stack: Stack) -> None:
    status, body, headers = invoke_api("api-post-score.json")

    assert status == 202
    assert body["status"] == "pending"
    assert body["session_id"] == THOROUGH_ID
    assert body["scored_triggered_by"] == "oncall-sre@example.com"
    assert headers["location"] == SCORE_PATH
    queued = stack.sqs.receive_message(QueueUrl=stack.env["SCORING_QUEUE_URL"], WaitTimeSeconds=0)["Messages"]
    assert [m["Body"] for m in queued if body["score_id"] in m["Body"]]


def test_every_api_log_line_carries_the_request_id_as_correlation_id(stack: Stack, json_logs: io.StringIO) -> None:
    from session_scoring.log import logger

    request_id = load_event("api-post-score.json")["requestContext"]["requestId"]
    level = logger.log_level
    logger.setLevel("INFO")  # the stack logs warnings only; a queued request logs at INFO
    try:
        status, _, _ = invoke_api("api-post-score.json")
    finally:
        logger.setLevel(level)

    assert status == 202
    records = [json.loads(line) for line in json_logs.getvalue().splitlines() if line.startswith("{")]
    assert "scoring queued" in [r["message"] for r in records]
    assert {r.get("correlation_id") for r in records} == {request_id}
    assert {r.get("function_name") for r in records} == {LocalLambdaContext.function_name}


def test_one_job_event_completes_the_attempt_and_get_event_returns_it(stack: Stack) -> None:
    _, pending, _ = invoke_api("api-post-score.json")

    result = invoke_scorer(with_score_id(load_event("sqs-one-job.json"), pending["score_id"]))

    assert result == {"batchItemFailures": []}
    status, score, _ = invoke_api("api-get-score.json")
    assert status == 200
    assert score["score_id"] == pending["score_id"]
    assert score["status"] == "completed"
    assert 0 <= score["total_score"] <= 100


def test_force_event_creates_a_second_attempt_after_a_completed_one(stack: Stack) -> None:
    _, first, _ = invoke_api("api-post-score.json")
    invoke_scorer(with_score_id(load_event("sqs-one-job.json"), first["score_id"]))

    again_status, again, _ = invoke_api("api-post-score.json")
    forced_status, forced, _ = invoke_api("api-post-score-force.json")

    assert (again_status, again["score_id"]) == (200, first["score_id"])
    assert forced_status == 202
    assert forced["score_id"] != first["score_id"]
    assert forced["status"] == "pending"


def test_bad_request_event_is_422_naming_each_problem(stack: Stack) -> None:
    status, body, _ = invoke_api("api-bad-request.json")

    assert status == 422
    assert body["code"] == "validation_error"
    problems = {tuple(p["loc"])[-1]: p["type"] for p in body["detail"]}
    assert problems["force_rescore"] == "bool_type"  # strict: only JSON true/false
    assert problems["priority"] == "extra_forbidden"
    assert stack.container.score_repository.count_by_status() == {}


def test_sessions_list_event_pages_the_sample_sessions(stack: Stack) -> None:
    invoke_api("api-post-score.json")

    status, page, _ = invoke_api("api-list-sessions.json")

    assert status == 200
    by_id = {item["session_id"]: item for item in page["items"]}
    assert THOROUGH_ID in by_id
    assert by_id[THOROUGH_ID]["score"]["status"] == "pending"
    assert page["page"] == 1


def test_malformed_record_is_the_only_batch_item_failure(stack: Stack) -> None:
    _, pending, _ = invoke_api("api-post-score.json")
    event = with_score_id(load_event("sqs-batch-one-malformed.json"), pending["score_id"])
    malformed = event["Records"][1]

    result = invoke_scorer(event)

    assert result == {"batchItemFailures": [{"itemIdentifier": malformed["messageId"]}]}
    assert invoke_api("api-get-score.json")[1]["status"] == "completed"


def test_duplicate_delivery_scores_once(stack: Stack) -> None:
    _, pending, _ = invoke_api("api-post-score.json")

    result = invoke_scorer(with_score_id(load_event("sqs-duplicate.json"), pending["score_id"]))

    assert result == {"batchItemFailures": []}
    history = stack.client.get(f"{SCORE_PATH}s").json()
    assert [(h["score_id"], h["status"]) for h in history] == [(pending["score_id"], "completed")]


def test_api_event_with_cors_origin_gets_cors_headers(make_stack: Any) -> None:
    make_stack(SCORING_CORS_ORIGINS="https://tarsy.example.com, https://ops.example.com")
    from functions.api.app import handler

    event = load_event("api-get-score.json")
    event["headers"]["origin"] = "https://ops.example.com"
    allowed = handler(event, LocalLambdaContext())
    event["headers"]["origin"] = "https://evil.example.com"
    refused = handler(event, LocalLambdaContext())

    assert allowed["headers"]["access-control-allow-origin"] == "https://ops.example.com"
    assert "access-control-allow-origin" not in refused["headers"]


# ---------------------------------------------------------------- the migration custom resource


@pytest.fixture
def cfn(loopback: Callable[[type[CloudFormationListener]], CloudFormationListener]) -> CloudFormationListener:
    return loopback(CloudFormationListener)


@pytest.fixture
def empty_database(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A new, empty database that the migration handler is configured for."""
    with scratch_database(postgres_url, "cfn") as url:
        monkeypatch.setenv("SCORING_DATABASE_URL", url)
        monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "CRITICAL")
        reset_container()
        try:
            yield url
        finally:
            reset_container()


def invoke_migrate(event: dict[str, Any], budget_seconds: float = 300) -> dict[str, Any]:
    from functions.migrate.app import handler

    result: dict[str, Any] = handler(event, LocalLambdaContext(budget_seconds=budget_seconds))
    return result


def tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_create_event_migrates_and_answers_success_with_the_revision(
    empty_database: str, cfn: CloudFormationListener
) -> None:
    event = load_event("cfn-migrate-create.json")

    result = invoke_migrate(with_response_url(event, cfn.url))

    assert result["Status"] == "SUCCESS"
    [answer] = cfn.responses
    assert answer["Status"] == "SUCCESS"
    assert answer["Data"] == {"Revision": head_revision(), "PreviousRevision": ""}
    assert (answer["StackId"], answer["RequestId"], answer["LogicalResourceId"]) == (
        event["StackId"],
        event["RequestId"],
        event["LogicalResourceId"],
    )
    assert answer["PhysicalResourceId"]
    assert {"session_scores", "alembic_version"} <= tables(empty_database)


def test_update_is_idempotent_and_delete_leaves_the_data(empty_database: str, cfn: CloudFormationListener) -> None:
    event = load_event("cfn-migrate-create.json")
    invoke_migrate(with_response_url(event, cfn.url))

    invoke_migrate(with_response_url(event, cfn.url, "Update"))
    invoke_migrate(with_response_url(event, cfn.url, "Delete"))

    update, delete = cfn.responses[1:]
    assert update["Status"] == "SUCCESS"
    assert update["Data"] == {"Revision": head_revision(), "PreviousRevision": head_revision()}
    assert update["PhysicalResourceId"] == delete["PhysicalResourceId"] == "session-scoring-database-schema"
    assert delete["Status"] == "SUCCESS"
    assert "session_scores" in tables(empty_database)


def test_failing_migration_answers_failed_with_the_database_error(
    empty_database: str, cfn: CloudFormationListener, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    migrations = tmp_path / "migrations"
    shutil.copytree(ROOT / "migrations", migrations)
    (migrations / "versions" / "9999_broken.py").write_text(
        '"""A migration that fails."""\n'
        "from alembic import op\n\n"
        'revision = "9999_broken"\n'
        f'down_revision = "{head_revision()}"\n\n\n'
        "def upgrade() -> None:\n"
        '    op.execute("ALTER TABLE session_scores ADD COLUMN note text")\n'
        '    op.execute("SELECT no_such_function()")\n\n\n'
        "def downgrade() -> None:\n"
        "    pass\n"
    )
    monkeypatch.setenv("SCORING_MIGRATIONS_DIR", str(migrations))
    reset_container()

    result = invoke_migrate(with_response_url(load_event("cfn-migrate-create.json"), cfn.url))

    assert result["Status"] == "FAILED"
    [answer] = cfn.responses
    assert answer["Status"] == "FAILED"
    assert "database migration failed" in answer["Reason"]
    assert "no_such_function" in answer["Reason"]
    assert "function no_such_function() does not exist (SQLSTATE 42883)" in answer["Reason"]
    # The run is one transaction: nothing of it stays. The advisory lock was released for the next run.
    assert tables(empty_database) == set()
    engine = create_engine(empty_database)
    try:
        with engine.connect() as conn:
            assert conn.execute(text("SELECT pg_try_advisory_lock(:id)"), {"id": 0x5C0_12E}).scalar() is True
    finally:
        engine.dispose()


def test_unconfigured_database_answers_failed_saying_what_to_set(
    cfn: CloudFormationListener, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("SCORING_DATABASE_URL", "SCORING_DATABASE_SECRET_ARN", "SCORING_DATABASE_HOST"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("POWERTOOLS_LOG_LEVEL", "CRITICAL")
    reset_container()

    try:
        invoke_migrate(with_response_url(load_event("cfn-migrate-create.json"), cfn.url))
    finally:
        reset_container()

    [answer] = cfn.responses
    assert answer["Status"] == "FAILED"
    assert "SCORING_DATABASE_URL" in answer["Reason"]


def test_answers_failed_before_the_function_times_out(
    empty_database: str, cfn: CloudFormationListener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another migrator holds the advisory lock past our budget: CloudFormation still gets an answer in time."""
    monkeypatch.setenv("SCORING_DATABASE_STATEMENT_TIMEOUT_MS", "3000")
    reset_container()
    holder = create_engine(empty_database)
    with holder.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:id)"), {"id": 0x5C0_12E})
        conn.commit()
        try:
            result = invoke_migrate(
                with_response_url(load_event("cfn-migrate-create.json"), cfn.url), budget_seconds=21.5
            )
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": 0x5C0_12E})
            conn.commit()
    holder.dispose()

    assert result["Status"] == "FAILED"
    assert len(cfn.responses) == 1
    assert "timeout" in cfn.responses[0]["Reason"]


def test_schedule_event_requeues_an_attempt_whose_message_was_lost(stack: Stack) -> None:
    from sqlalchemy import create_engine, text

    from functions.scorer.reap import handler as reap_handler

    stack.request_score(THOROUGH_ID)
    stack.sqs.purge_queue(QueueUrl=stack.resources.queue_url)
    engine = create_engine(stack.env["SCORING_DATABASE_URL"])
    with engine.begin() as conn:
        conn.execute(text("UPDATE session_scores SET requested_at = now() - interval '3 hours'"))
    engine.dispose()

    result = reap_handler(load_event("schedule-reap.json"), LocalLambdaContext(budget_seconds=60))

    assert (result["requeued"], result["failed"]) == (1, 0)
    stack.poller.drain()
    assert stack.score(THOROUGH_ID).json()["status"] == "completed"


def _unauthenticated_on_default_route(event_name: str) -> dict[str, Any]:
    """The same request sent to the public ``$default`` route (no authorizer) with a percent-encoded path."""
    import copy

    event = copy.deepcopy(load_event(event_name))
    event["routeKey"] = "$default"
    event["requestContext"]["routeKey"] = "$default"
    event["requestContext"].pop("authorizer", None)
    event["rawPath"] = event["rawPath"].replace("/api/", "/%61pi/", 1)
    return event


def test_with_authentication_required_a_scoring_route_needs_claims_whatever_route_delivered_it(
    make_stack: Any,
) -> None:
    from functions.api.app import handler

    stack = make_stack(SCORING_REQUIRE_AUTH="true")
    response = handler(_unauthenticated_on_default_route("api-post-score.json"), LocalLambdaContext(budget_seconds=29))

    assert response["statusCode"] == 401
    assert http_body(response)["code"] == "authentication_required"
    assert stack.score(THOROUGH_ID).status_code == 401  # no claims on a test client's request either
    status, _, _ = invoke_api("api-post-score.json")  # through the JWT route, with claims
    assert status == 202


def test_without_authentication_configured_the_local_api_needs_no_claims(stack: Stack) -> None:
    assert stack.request_score(THOROUGH_ID).status_code == 202


def test_other_methods_on_non_api_paths_are_not_found(stack: Stack) -> None:
    for method in ("POST", "PUT", "DELETE"):
        response = stack.client.request(method, "/sessions/anything")
        assert response.status_code == 404, method
        assert response.json()["code"] == "not_found"
    assert stack.client.put(f"/api/v1/scoring/sessions/{THOROUGH_ID}/score").status_code == 405


def test_plan_run_event_plans_the_run_and_queues_its_jobs(stack: Stack) -> None:
    created = stack.client.post("/api/v1/scoring/runs", json={"selection": {"which": "unscored"}, "max_sessions": 10})
    assert created.status_code == 202
    run_id = created.json()["run_id"]
    event = load_event("sqs-plan-run.json")
    body = json.loads(event["Records"][0]["body"])
    event["Records"][0]["body"] = json.dumps({**body, "run_id": run_id})

    result = invoke_scorer(event)

    assert result == {"batchItemFailures": []}
    run = stack.client.get(f"/api/v1/scoring/runs/{run_id}").json()
    assert run["status"] == "running"
    assert run["counts"]["pending"] == 3  # the three completed sample sessions; the fourth is still in progress


@pytest.mark.parametrize(
    ("module", "event_name"),
    [
        ("reap", "schedule-reap.json"),
        ("auto_score", "schedule-auto-score.json"),
        ("poll_batches", "schedule-poll-batches.json"),
    ],
)
def test_each_scheduled_handler_logs_with_its_invocation_and_prints_its_cold_start(
    stack: Stack, module: str, event_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each scheduled function's handler, invoked as its schedule invokes it in a new environment: its log lines
    carry the invocation's request id, and it prints the ``ColdStart`` metric (then each warm invocation none)."""
    from importlib import import_module

    from aws_lambda_powertools.metrics.provider import cold_start

    from session_scoring.log import logger

    handler = import_module(f"functions.scorer.{module}").handler
    context = LocalLambdaContext(function_name=f"session-scoring-{module}", budget_seconds=60)
    cold_start.is_cold_start = True
    capsys.readouterr()

    handler(load_event(event_name), context)
    cold, keys = emf(capsys.readouterr().out), logger.get_current_keys()
    handler(load_event(event_name), LocalLambdaContext(budget_seconds=60))
    warm = emf(capsys.readouterr().out)

    assert (keys["function_request_id"], keys["function_name"]) == (context.aws_request_id, context.function_name)
    assert named(cold, "ColdStart", function_name=context.function_name) == [1]
    assert not [key for key in warm if key[0] == "ColdStart"]
