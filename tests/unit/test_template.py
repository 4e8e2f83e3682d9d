"""The rules of the SAM template that cfn-lint does not check, read from template.yaml itself.

cfn-lint does not flag a visibility timeout under 6x the function timeout when the SQS mapping comes from a SAM
`Events: SQS` block, nor a wildcard action in a role, so these tests do.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.cfn import load_template, ref_target

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    return load_template(ROOT / "template.yaml")


def resources(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    return {name: r for name, r in template["Resources"].items() if r["Type"] == kind}


def functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return resources(template, "AWS::Serverless::Function")


def prop(template: dict[str, Any], function: dict[str, Any], name: str) -> Any:
    return function["Properties"].get(name, template["Globals"]["Function"].get(name))


def env(function: dict[str, Any]) -> dict[str, Any]:
    variables: dict[str, Any] = function["Properties"].get("Environment", {}).get("Variables", {})
    return variables


def sqs_events(template: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    for name, function in functions(template).items():
        for event in function["Properties"].get("Events", {}).values():
            if event["Type"] == "SQS":
                yield name, function, event["Properties"]


def walk(node: Any) -> Iterator[Any]:
    yield node
    if isinstance(node, dict):
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def statements(template: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every IAM statement of every role and queue policy, with the branches of !If conditions unfolded."""
    for name, resource in template["Resources"].items():
        for node in walk(resource.get("Properties", {})):
            if isinstance(node, dict) and "Statement" in node:
                for statement in node["Statement"]:
                    if "Fn::If" in statement:
                        yield from ((name, s) for s in statement["Fn::If"][1:] if s != {"Ref": "AWS::NoValue"})
                    else:
                        yield name, statement


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def test_the_scorer_consumes_the_queue_with_partial_batch_failures_and_a_concurrency_cap(
    template: dict[str, Any],
) -> None:
    consumers = list(sqs_events(template))

    assert [name for name, _, _ in consumers] == ["ScorerFunction", "ScorerFunction"]
    caps = {}
    for _, _, event in consumers:
        assert event["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
        caps[ref_target(event["Queue"])] = event["ScalingConfig"]["MaximumConcurrency"]
    # Scoring runs have their own queue and cap, so they never take the scorers single requests need.
    assert caps == {
        "ScoringQueue": {"Ref": "ScorerMaximumConcurrency"},
        "RunsQueue": {"Ref": "RunsMaximumConcurrency"},
    }
    for parameter in ("ScorerMaximumConcurrency", "RunsMaximumConcurrency"):
        assert int(template["Parameters"][parameter]["MinValue"]) >= 2  # SQS's own minimum


def test_queue_visibility_is_at_least_six_times_the_consumer_timeout(template: dict[str, Any]) -> None:
    for _, function, event in sqs_events(template):
        queue = template["Resources"][ref_target(event["Queue"])]
        timeout = int(prop(template, function, "Timeout"))
        window = int(event.get("MaximumBatchingWindowInSeconds", 0))
        assert int(queue["Properties"]["VisibilityTimeout"]) >= 6 * timeout + window


def test_the_lease_outlives_the_scorer_timeout(template: dict[str, Any]) -> None:
    scorer = functions(template)["ScorerFunction"]
    assert int(env(scorer)["SCORING_LEASE_SECONDS"]) > int(prop(template, scorer, "Timeout"))


def test_every_consumed_queue_has_a_dead_letter_queue_that_keeps_messages_longer(template: dict[str, Any]) -> None:
    parameters = template["Parameters"]
    for name, function, event in sqs_events(template):
        queue = template["Resources"][ref_target(event["Queue"])]["Properties"]
        redrive = queue["RedrivePolicy"]
        dead_letter = template["Resources"][ref_target(redrive["deadLetterTargetArn"])]

        assert dead_letter["Type"] == "AWS::SQS::Queue"
        assert int(dead_letter["Properties"]["MessageRetentionPeriod"]) > int(queue["MessageRetentionPeriod"])
        assert redrive["maxReceiveCount"] == {"Ref": "MaxReceiveCount"}
        assert int(parameters["MaxReceiveCount"]["Default"]) == 5
        # The scorer marks the attempt failed on the last receive: it must know the same count.
        assert env(function)["SCORING_MAX_RECEIVE_COUNT"] == {"Ref": "MaxReceiveCount"}, name


def test_breaker_table_is_on_demand_with_ttl_on_the_powertools_expiry_attribute(template: dict[str, Any]) -> None:
    [table] = resources(template, "AWS::DynamoDB::Table").values()
    properties = table["Properties"]

    assert properties["BillingMode"] == "PAY_PER_REQUEST"
    assert properties["TimeToLiveSpecification"] == {"AttributeName": "expiration", "Enabled": True}
    assert properties["KeySchema"] == [{"AttributeName": "id", "KeyType": "HASH"}]
    assert env(functions(template)["ScorerFunction"])["SCORING_BREAKER_TABLE"] == {"Ref": "BreakerTable"}


def test_no_iam_statement_uses_wildcard_actions_or_unnamed_resources(template: dict[str, Any]) -> None:
    found = list(statements(template))
    assert len(found) >= 10

    for owner, statement in found:
        for action in as_list(statement["Action"]):
            assert action != "*", f"{owner}: wildcard action"
            assert not str(action).endswith(":*"), f"{owner}: wildcard action {action}"
        assert "NotAction" not in statement, owner
        assert "NotResource" not in statement, owner
        if statement.get("Principal") is None:
            for resource in as_list(statement["Resource"]):
                assert resource != "*", f"{owner}: statement {statement.get('Sid')} does not name its resources"


def test_functions_define_their_own_roles_so_sam_adds_no_broad_policies(template: dict[str, Any]) -> None:
    for name, function in functions(template).items():
        assert "Role" in function["Properties"], name
        assert "Policies" not in function["Properties"], name
        role = template["Resources"][ref_target(function["Properties"]["Role"])]
        log_group = ref_target(function["Properties"]["LoggingConfig"]["LogGroup"])
        log_statements = [s for s in role["Properties"]["Policies"][0]["PolicyDocument"]["Statement"] if "Sid" in s]
        writable = [
            r for s in log_statements if "logs:PutLogEvents" in as_list(s["Action"]) for r in as_list(s["Resource"])
        ]
        assert {"Fn::GetAtt": [log_group, "Arn"]} in writable, name


def test_database_functions_and_only_they_run_in_the_vpc(template: dict[str, Any]) -> None:
    for name, function in functions(template).items():
        uses_database = "SCORING_DATABASE_HOST" in env(function)
        assert ("VpcConfig" in function["Properties"]) == uses_database, name
        if uses_database:
            assert function["Properties"]["VpcConfig"]["SubnetIds"] == {"Ref": "PrivateSubnetIds"}
    assert {name for name, f in functions(template).items() if "VpcConfig" in f["Properties"]} == {
        "ApiFunction",
        "ScorerFunction",
        "ReaperFunction",
        "MigrateFunction",
    }
    for kind in ("AWS::RDS::DBProxy", "AWS::RDS::DBSubnetGroup"):
        for resource in resources(template, kind).values():
            assert {"Ref": "PrivateSubnetIds"} in walk(resource["Properties"])


def test_database_is_serverless_v2_behind_a_tls_proxy_with_iam_auth(template: dict[str, Any]) -> None:
    [cluster] = resources(template, "AWS::RDS::DBCluster").values()
    [proxy] = resources(template, "AWS::RDS::DBProxy").values()
    [instance] = resources(template, "AWS::RDS::DBInstance").values()

    assert cluster["Properties"]["Engine"] == "aurora-postgresql"
    assert "ServerlessV2ScalingConfiguration" in cluster["Properties"]
    assert cluster["Properties"]["StorageEncrypted"] is True
    assert cluster["DeletionPolicy"] == "Snapshot"
    assert instance["Properties"]["DBInstanceClass"] == "db.serverless"
    assert proxy["Properties"]["RequireTLS"] is True
    assert proxy["Properties"]["Auth"][0]["IAMAuth"] == "REQUIRED"
    for name in ("ApiFunction", "ScorerFunction"):
        variables = env(functions(template)[name])
        assert variables["SCORING_DATABASE_IAM_AUTH"] == {"Fn::If": ["CreateDatabase", "true", "false"]}
        assert variables["SCORING_DATABASE_SSL"]["Fn::If"][1] == "verify-full"


def test_secrets_are_referenced_never_inlined(template: dict[str, Any]) -> None:
    for name, function in functions(template).items():
        for variable in env(function):
            assert not re.search(r"(API_KEY|PASSWORD|TOKEN)$", variable), f"{name} inlines {variable}"
    for name in template["Parameters"]:
        if re.search(r"(Key|Password|Token)", name):
            assert name.endswith("SecretArn"), name


def test_the_api_ships_no_anthropic_sdk(template: dict[str, Any]) -> None:
    api = functions(template)["ApiFunction"]
    layers = [template["Resources"][ref_target(layer)] for layer in api["Properties"]["Layers"]]
    sources = [ROOT / api["Properties"]["CodeUri"]] + [ROOT / layer["Properties"]["ContentUri"] for layer in layers]

    for source in sources:
        requirements = source / "requirements.txt"
        if requirements.exists():
            assert "anthropic" not in requirements.read_text().lower(), requirements
    for module in (ROOT / "functions" / "api").rglob("*.py"):
        assert not re.search(r"^\s*(import|from)\s+anthropic", module.read_text(), re.MULTILINE), module
    judge_users = [n for n, f in functions(template).items() if {"Ref": "JudgeLayer"} in f["Properties"]["Layers"]]
    assert judge_users == ["ScorerFunction"]


def test_api_handler_imports_and_serves_without_loading_the_anthropic_sdk() -> None:
    """In a fresh interpreter where the SDK *is* installed, the API module and a request never load it."""
    probe = (
        "import sys\n"
        "from devstack.queue_poller import LocalLambdaContext\n"
        "from functions.api.app import handler\n"
        "from tests.support.events import load_event\n"
        "event = load_event('api-get-score.json')\n"
        "event['rawPath'] = event['requestContext']['http']['path'] = '/openapi.json'\n"
        "assert handler(event, LocalLambdaContext())['statusCode'] == 200\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'anthropic'))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_layers_pin_every_package_and_agree_on_shared_versions() -> None:
    def pins(layer: str) -> dict[str, str]:
        lines = (ROOT / "layers" / layer / "requirements.txt").read_text().splitlines()
        found = dict(line.split("==", 1) for line in lines if line and not line.startswith("#"))
        assert all(found.values()), layer
        return found

    base, judge = pins("dependencies"), pins("judge")
    assert "anthropic" in judge
    assert "anthropic" not in base
    assert {name: judge[name] for name in judge.keys() & base.keys()} == {
        name: base[name] for name in judge.keys() & base.keys()
    }


def test_migrations_run_on_every_new_core_layer_before_the_functions_change(template: dict[str, Any]) -> None:
    [migration] = [r for r in template["Resources"].values() if r["Type"] == "Custom::DatabaseMigration"]

    assert migration["Properties"]["CoreLayerVersion"] == {"Ref": "CoreLayer"}
    assert ref_target(migration["Properties"]["ServiceToken"]) == "MigrateFunction"
    for name in ("ApiFunction", "ScorerFunction"):
        assert functions(template)[name]["DependsOn"] == "DatabaseMigration"
    migrate = functions(template)["MigrateFunction"]
    assert env(migrate)["SCORING_DATABASE_HOST"]["Fn::If"][1] == {"Fn::GetAtt": ["DatabaseCluster", "Endpoint.Address"]}


def test_jwt_authorizer_is_optional_and_guards_the_scoring_routes(template: dict[str, Any]) -> None:
    authorizer = template["Resources"]["JwtAuthorizer"]
    route = template["Resources"]["ScoringRoute"]["Properties"]

    assert authorizer["Condition"] == "UseJwt"
    assert template["Conditions"]["UseJwt"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "JwtIssuer"}, ""]}]}
    assert route["RouteKey"] == "ANY /api/{proxy+}"
    assert route["AuthorizationType"] == {"Fn::If": ["UseJwt", "JWT", "NONE"]}
    cors = template["Resources"]["HttpApi"]["Properties"]["CorsConfiguration"]["Fn::If"]
    assert cors[1]["AllowOrigins"] == {"Fn::Split": [",", {"Ref": "CorsAllowedOrigins"}]}
    api_env = env(functions(template)["ApiFunction"])
    assert api_env["SCORING_CORS_ORIGINS"] == {"Ref": "CorsAllowedOrigins"}


def test_outputs_name_the_api_queues_and_breaker_table(template: dict[str, Any]) -> None:
    assert {"ApiUrl", "QueueUrl", "DeadLetterQueueUrl", "BreakerTableName"} <= template["Outputs"].keys()


def test_the_reaper_runs_on_a_schedule_with_the_scorers_code_and_can_requeue(template: dict[str, Any]) -> None:
    reaper = template["Resources"]["ReaperFunction"]["Properties"]
    scorer = template["Resources"]["ScorerFunction"]["Properties"]
    assert reaper["CodeUri"] == scorer["CodeUri"]
    assert reaper["Handler"] == "app.reap_handler"
    schedule = next(iter(reaper["Events"].values()))
    assert schedule["Type"] == "ScheduleV2"
    assert schedule["Properties"]["ScheduleExpression"].startswith("rate(")
    role = template["Resources"][ref_target(reaper["Role"])]
    statements = role["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    assert any("sqs:SendMessage" in as_list(s.get("Action", [])) for s in statements if isinstance(s, dict))
