"""The rules of the SAM template that cfn-lint does not check, read from template.yaml itself.

cfn-lint does not flag a visibility timeout under 6x the function timeout when the SQS mapping comes from a SAM
`Events: SQS` block, nor a wildcard action in a role, so these tests do.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
import uuid
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
    consumers = [c for c in sqs_events(template) if c[0] == "ScorerFunction"]

    assert sorted(name for name, _, _ in sqs_events(template)) == [
        "ExporterFunction",
        "ScorerFunction",
        "ScorerFunction",
    ]
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


RESOURCE_LEVEL_UNSUPPORTED = {
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSubnets",
    "xray:PutTraceSegments",
    "xray:PutTelemetryRecords",
}
"""Actions AWS authorizes only on every resource ("*"); the template's FunctionNetworkInterfacesPolicy says why."""


def test_no_iam_statement_uses_wildcard_actions_or_unnamed_resources(template: dict[str, Any]) -> None:
    found = list(statements(template))
    assert len(found) >= 10

    for owner, statement in found:
        for action in as_list(statement["Action"]):
            assert action != "*", f"{owner}: wildcard action"
            assert not str(action).endswith(":*"), f"{owner}: wildcard action {action}"
        assert "NotAction" not in statement, owner
        assert "NotResource" not in statement, owner
        if statement.get("Principal") is None and "*" in as_list(statement["Resource"]):
            unscoped = set(as_list(statement["Action"])) - RESOURCE_LEVEL_UNSUPPORTED
            assert not unscoped, f"{owner}: statement {statement.get('Sid')} does not name its resources for {unscoped}"


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
        "BatchPollerFunction",
        "AutoScoringFunction",
        "MigrateFunction",
        "ExporterFunction",
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
    assert cluster["DeletionPolicy"] == {"Fn::If": ["RetainData", "Snapshot", "Delete"]}  # a final snapshot
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
    assert judge_users == ["ScorerFunction", "BatchPollerFunction"]


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
    assert result.stdout.strip().splitlines()[-1] == "[]"  # the lines before it are the request's metric (EMF)


def test_every_functions_handler_is_a_function_of_its_package(template: dict[str, Any]) -> None:
    """``Handler`` is ``module.function`` inside the function's ``CodeUri`` (the API's build keeps the package
    path, functions/api/Makefile): each names a module there with that function."""
    for name, function in functions(template).items():
        package = function["Properties"]["CodeUri"].strip("/").replace("/", ".")
        module, attribute = function["Properties"]["Handler"].rsplit(".", 1)
        qualified = module if module.startswith(f"{package}.") else f"{package}.{module}"
        assert callable(getattr(importlib.import_module(qualified), attribute, None)), (
            f"{name}: {qualified}.{attribute}"
        )


def test_layers_pin_every_package_and_agree_on_shared_versions() -> None:
    def pins(layer: str) -> dict[str, str]:
        lines = (ROOT / "layers" / layer / "requirements.txt").read_text().splitlines()
        found = dict(line.split("==", 1) for line in lines if line and not line.startswith("#"))
        assert all(found.values()), layer
        return found

    base, judge, stats = pins("dependencies"), pins("judge"), pins("stats")
    for sdk in ("anthropic", "openai", "google-genai"):  # the judges' SDKs: the scorer's layer only
        assert sdk in judge
        assert sdk not in base
    assert "numpy" in stats  # the API's statistics: not in the scorer's layers (Lambda's 250 MB)
    assert "numpy" not in base
    assert "numpy" not in judge
    for layer in (judge, stats):
        assert {name: layer[name] for name in layer.keys() & base.keys()} == {
            name: base[name] for name in layer.keys() & base.keys()
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


def test_the_gateway_may_require_a_scope_of_the_whole_api_and_the_function_gets_the_role_settings(
    template: dict[str, Any],
) -> None:
    from session_scoring.configuration.settings import Settings

    route = template["Resources"]["ScoringRoute"]["Properties"]
    assert route["AuthorizationScopes"] == {
        "Fn::If": ["UseJwtScopes", {"Fn::Split": [",", {"Ref": "JwtAuthorizationScopes"}]}, {"Ref": "AWS::NoValue"}]
    }
    # !Condition, as the test's loader reads it
    assert template["Conditions"]["UseJwtScopes"]["Fn::And"][0] == {"Fn::Condition": "UseJwt"}
    api_env = env(functions(template)["ApiFunction"])
    passed = {"SCORING_ROLE_CLAIM": "RoleClaim", "SCORING_ROLE_MAP": "RoleMap", "SCORING_DEFAULT_ROLE": "DefaultRole"}
    assert {name: api_env[name] for name in passed} == {name: {"Ref": ref} for name, ref in passed.items()}
    aliases = {str(field.validation_alias) for field in Settings.model_fields.values()}
    assert set(passed) <= aliases
    assert template["Parameters"]["RoleClaim"]["Default"] == Settings.model_fields["role_claim"].default
    assert template["Parameters"]["DefaultRole"]["AllowedValues"] == ["", "viewer", "labeller", "operator", "admin"]


def test_scopes_without_an_issuer_are_refused(template: dict[str, Any]) -> None:
    judge = {"AnthropicApiKeySecretArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:key"}
    jwt = {"JwtIssuer": "https://cognito-idp.eu-west-1.amazonaws.com/pool", "JwtAudience": "client"}

    assert rules_pass(template, **judge, **jwt, JwtAuthorizationScopes="scoring/read,scoring/write") == []
    [refusal] = rules_pass(template, **judge, AllowUnauthenticatedApi="true", JwtAuthorizationScopes="scoring/read")
    assert "JwtAuthorizationScopes needs JwtIssuer" in refusal


def test_outputs_name_the_api_queues_and_breaker_table(template: dict[str, Any]) -> None:
    assert {"ApiUrl", "QueueUrl", "DeadLetterQueueUrl", "BreakerTableName"} <= template["Outputs"].keys()


def test_the_reaper_runs_on_a_schedule_with_the_scorers_code_and_can_requeue(template: dict[str, Any]) -> None:
    reaper = template["Resources"]["ReaperFunction"]["Properties"]
    scorer = template["Resources"]["ScorerFunction"]["Properties"]
    assert reaper["CodeUri"] == scorer["CodeUri"]
    schedule = next(iter(reaper["Events"].values()))
    assert schedule["Type"] == "ScheduleV2"
    assert schedule["Properties"]["ScheduleExpression"].startswith("rate(")
    role = template["Resources"][ref_target(reaper["Role"])]
    statements = role["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    assert any("sqs:SendMessage" in as_list(s.get("Action", [])) for s in statements if isinstance(s, dict))


def test_the_batch_poller_runs_on_a_schedule_with_its_own_least_privilege_role(template: dict[str, Any]) -> None:
    poller = template["Resources"]["BatchPollerFunction"]["Properties"]
    assert poller["CodeUri"] == template["Resources"]["ScorerFunction"]["Properties"]["CodeUri"]
    schedule = next(iter(poller["Events"].values()))
    assert schedule["Type"] == "ScheduleV2"
    assert schedule["Properties"]["ScheduleExpression"].startswith("rate(")
    assert ref_target(poller["Role"]) == "BatchPollerRole"
    role = template["Resources"]["BatchPollerRole"]
    statements = role["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    actions = {a for s in statements if isinstance(s, dict) for a in as_list(s.get("Action", []))}
    assert not {a for a in actions if a.startswith(("sqs:", "dynamodb:", "bedrock:"))}  # only what it uses


def test_the_auto_scoring_schedule_is_disabled_unless_the_parameter_enables_it(template: dict[str, Any]) -> None:
    parameter = template["Parameters"]["AutoScoringEnabled"]
    assert parameter["Default"] == "false"
    function = template["Resources"]["AutoScoringFunction"]["Properties"]
    [schedule] = function["Events"].values()
    assert schedule["Type"] == "ScheduleV2"
    assert schedule["Properties"]["State"] == {"Fn::If": ["AutoScoringOn", "ENABLED", "DISABLED"]}
    assert template["Conditions"]["AutoScoringOn"] == {"Fn::Equals": [{"Ref": "AutoScoringEnabled"}, "true"]}
    # The same parameter turns on auto_scoring.enabled in the configuration the function reads.
    assert env(template["Resources"]["AutoScoringFunction"])["SCORING_AUTO_ENABLED"] == {"Ref": "AutoScoringEnabled"}
    statements = template["Resources"]["AutoScoringRole"]["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    actions = {a for s in statements if isinstance(s, dict) for a in as_list(s.get("Action", []))}
    assert {a for a in actions if a.startswith("sqs:")} == {"sqs:SendMessage"}


# ---------------------------------------------------------------- monitoring: alarms, dashboard, tracing

ALARM_TOPIC_ACTIONS = {"Fn::If": ["UseAlarmTopic", [{"Ref": "AlarmTopicArn"}], {"Ref": "AWS::NoValue"}]}


def alarms(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {name: r["Properties"] for name, r in resources(template, "AWS::CloudWatch::Alarm").items()}


def watched(alarm: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(namespace, metric name, dimensions) of every metric an alarm reads, plain or in metric math."""
    if "MetricName" in alarm:
        dimensions = {d["Name"]: d["Value"] for d in alarm.get("Dimensions", [])}
        return [(alarm["Namespace"], alarm["MetricName"], dimensions)]
    found = []
    for query in alarm["Metrics"]:
        if "MetricStat" in query:
            metric = query["MetricStat"]["Metric"]
            dimensions = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
            found.append((metric["Namespace"], metric["MetricName"], dimensions))
    return found


def expression(alarm: dict[str, Any]) -> str:
    [returned] = [q for q in alarm["Metrics"] if q.get("ReturnData", True)]
    return str(returned["Expression"])


EXPECTED_ALARMS = {
    # alarm: (metrics it reads, threshold, comparison)
    "DeadLetterQueueNotEmptyAlarm": (
        [
            (
                "AWS/SQS",
                "ApproximateNumberOfMessagesVisible",
                {"QueueName": {"Fn::GetAtt": ["ScoringDeadLetterQueue", "QueueName"]}},
            )
        ],
        0,
        "GreaterThanThreshold",
    ),
    "OldestScoringMessageAlarm": (
        [("AWS/SQS", "ApproximateAgeOfOldestMessage", {"QueueName": {"Fn::GetAtt": ["ScoringQueue", "QueueName"]}})],
        {"Ref": "OldestMessageAlarmSeconds"},
        "GreaterThanThreshold",
    ),
    "JudgeBreakerOpenAlarm": (
        [("SessionScoring", "JudgeBreakerOpen", {"service": "session-scoring"})],
        1,
        "GreaterThanOrEqualToThreshold",
    ),
    "ScoringFailureRatioAlarm": (
        [
            ("SessionScoring", "ScoresFailed", {"ReasonCategory": "permanent", "service": "session-scoring"}),
            ("SessionScoring", "ScoresFailed", {"ReasonCategory": "transient", "service": "session-scoring"}),
            ("SessionScoring", "ScoresCompleted", {"service": "session-scoring"}),
        ],
        {"Ref": "FailureRatioAlarmPercent"},
        "GreaterThanThreshold",
    ),
    "Api5xxRatioAlarm": (
        [
            ("AWS/ApiGateway", "5xx", {"ApiId": {"Ref": "HttpApi"}}),
            ("AWS/ApiGateway", "Count", {"ApiId": {"Ref": "HttpApi"}}),
        ],
        {"Ref": "Api5xxRatioAlarmPercent"},
        "GreaterThanThreshold",
    ),
    "ScorerErrorsAlarm": (
        [("AWS/Lambda", "Errors", {"FunctionName": {"Ref": "ScorerFunction"}})],
        {"Ref": "ScorerErrorsAlarmThreshold"},
        "GreaterThanThreshold",
    ),
    "ScorerThrottlesAlarm": (
        [("AWS/Lambda", "Throttles", {"FunctionName": {"Ref": "ScorerFunction"}})],
        0,
        "GreaterThanThreshold",
    ),
    "BatchPollerErrorsAlarm": (
        [("AWS/Lambda", "Errors", {"FunctionName": {"Ref": "BatchPollerFunction"}})],
        0,
        "GreaterThanThreshold",
    ),
    "RunStuckPlanningAlarm": (
        [("SessionScoring", "RunsStuckPlanning", {"service": "session-scoring"})],
        0,
        "GreaterThanThreshold",
    ),
    "ExportsFailedAlarm": (
        [("SessionScoring", "ExportsFailed", {"service": "session-scoring"})],
        0,
        "GreaterThanThreshold",
    ),
    "ExportsDeadLetterQueueNotEmptyAlarm": (
        [
            (
                "AWS/SQS",
                "ApproximateNumberOfMessagesVisible",
                {"QueueName": {"Fn::GetAtt": ["ExportsDeadLetterQueue", "QueueName"]}},
            )
        ],
        0,
        "GreaterThanThreshold",
    ),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_ALARMS))
def test_each_alarm_watches_its_metric_with_its_threshold_and_notifies_the_optional_topic(
    template: dict[str, Any], name: str
) -> None:
    metrics, threshold, comparison = EXPECTED_ALARMS[name]
    alarm = alarms(template)[name]

    assert watched(alarm) == metrics
    assert alarm["Threshold"] == threshold
    assert alarm["ComparisonOperator"] == comparison
    assert alarm["TreatMissingData"] == "notBreaching"  # no traffic is not an incident
    assert alarm["AlarmActions"] == alarm["OKActions"] == ALARM_TOPIC_ACTIONS
    assert len(alarm["AlarmDescription"]) > 60, "the description says what to do"


def test_no_alarm_is_left_out_of_the_checks_and_the_dashboard(template: dict[str, Any]) -> None:
    assert set(alarms(template)) == set(EXPECTED_ALARMS)
    body = dashboard_body(template)
    [alarm_widget] = [w for w in body["widgets"] if w["type"] == "alarm"]
    assert sorted(alarm_widget["properties"]["alarms"]) == sorted(f"<{name}.Arn>" for name in EXPECTED_ALARMS)


def test_alarm_topic_is_optional(template: dict[str, Any]) -> None:
    parameter = template["Parameters"]["AlarmTopicArn"]
    assert parameter["Default"] == ""
    assert re.fullmatch(parameter["AllowedPattern"], "")
    assert re.fullmatch(parameter["AllowedPattern"], "arn:aws:sns:eu-west-1:123456789012:oncall")
    assert not re.fullmatch(parameter["AllowedPattern"], "oncall@example.com")
    assert template["Conditions"]["UseAlarmTopic"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "AlarmTopicArn"}, ""]}]}


def test_ratio_alarms_need_a_minimum_volume_and_the_breaker_alarm_carries_the_last_state(
    template: dict[str, Any],
) -> None:
    found = alarms(template)

    assert expression(found["ScoringFailureRatioAlarm"]) == "IF(finished >= 5, 100 * failed / finished, 0)"
    assert expression(found["Api5xxRatioAlarm"]).startswith("IF(FILL(requests, 0) >= 20,")
    breaker = found["JudgeBreakerOpenAlarm"]
    assert expression(breaker) == "FILL(state, REPEAT)"
    assert breaker["EvaluationPeriods"] == breaker["DatapointsToAlarm"] == {"Ref": "BreakerOpenAlarmMinutes"}
    [state] = [q for q in breaker["Metrics"] if q["Id"] == "state"]
    assert (state["MetricStat"]["Period"], state["MetricStat"]["Stat"]) == (60, "Maximum")  # minutes


def test_alarms_and_dashboard_read_only_metrics_and_dimensions_the_code_emits(template: dict[str, Any]) -> None:
    from session_scoring.observability import NAMESPACE, FailureCategory, Metric

    emitted = {m.value for m in Metric} | {"ColdStart"}
    read = [(name, dims) for alarm in alarms(template).values() for ns, name, dims in watched(alarm) if ns == NAMESPACE]
    assert read
    for name, dims in read:
        assert name in emitted, name
        assert dims.get("ReasonCategory", "permanent") in {c.value for c in FailureCategory}
    shown = {
        row[1]
        for widget in dashboard_body(template)["widgets"]
        for row in widget["properties"].get("metrics", [])
        if isinstance(row[0], str) and row[0] == NAMESPACE
    }
    assert shown <= emitted
    # Every metric the code emits is on the dashboard (ApiRequests and ColdStart through SEARCH expressions).
    text = json.dumps(dashboard_body(template))
    for name in emitted:
        assert name in text, f"{name} is not on the dashboard"


def dashboard_body(template: dict[str, Any]) -> dict[str, Any]:
    [dashboard] = resources(template, "AWS::CloudWatch::Dashboard").values()
    body = dashboard["Properties"]["DashboardBody"]["Fn::Sub"]
    assert isinstance(body, str)
    names = set(re.findall(r"\$\{([^}]+)\}", body))
    for name in names:  # every substitution names a parameter, a resource or a pseudo parameter
        base = name.split(".")[0]
        assert base.startswith("AWS::") or base in template["Resources"], name
    parsed: dict[str, Any] = json.loads(re.sub(r"\$\{([^}]+)\}", r"<\1>", body))
    return parsed


def test_tracing_is_active_and_every_role_may_write_traces(template: dict[str, Any]) -> None:
    assert template["Globals"]["Function"]["Tracing"] == "Active"
    policy = template["Resources"]["FunctionNetworkInterfacesPolicy"]["Properties"]["PolicyDocument"]
    [traces] = [s for s in policy["Statement"] if s["Sid"] == "WriteTraces"]
    assert set(traces["Action"]) == {"xray:PutTraceSegments", "xray:PutTelemetryRecords"}
    for name, function in functions(template).items():
        role = template["Resources"][ref_target(function["Properties"]["Role"])]
        assert {"Ref": "FunctionNetworkInterfacesPolicy"} in role["Properties"]["ManagedPolicyArns"], name
    assert (
        template["Globals"]["Function"]["Environment"]["Variables"]["POWERTOOLS_METRICS_NAMESPACE"] == "SessionScoring"
    )


# ---------------------------------------------------------------- secure by default


def rules_pass(template: dict[str, Any], **parameters: str) -> list[str]:
    """The AssertDescription of every CloudFormation rule that fails for these parameter values (defaults else)."""

    def value(node: Any) -> Any:
        if isinstance(node, dict) and "Ref" in node:
            name = node["Ref"]
            return parameters.get(name, template["Parameters"][name].get("Default", ""))
        if isinstance(node, dict) and "Fn::Equals" in node:
            left, right = node["Fn::Equals"]
            return value(left) == value(right)
        if isinstance(node, dict) and "Fn::Not" in node:
            return not value(node["Fn::Not"][0])
        return node

    failed = []
    for rule in template["Rules"].values():
        if "RuleCondition" in rule and not value(rule["RuleCondition"]):
            continue
        failed += [a["AssertDescription"] for a in rule["Assertions"] if not value(a["Assert"])]
    return failed


def test_a_deploy_without_authentication_fails_unless_explicitly_allowed(template: dict[str, Any]) -> None:
    judge = {"AnthropicApiKeySecretArn": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:key"}
    jwt = {"JwtIssuer": "https://cognito-idp.eu-west-1.amazonaws.com/pool", "JwtAudience": "client"}

    [refusal] = rules_pass(template, **judge)  # the defaults: no JwtIssuer, AllowUnauthenticatedApi false
    assert "AllowUnauthenticatedApi" in refusal
    assert "JwtIssuer" in refusal
    assert rules_pass(template, **judge, AllowUnauthenticatedApi="true") == []
    assert rules_pass(template, **judge, **jwt) == []
    assert template["Parameters"]["AllowUnauthenticatedApi"]["Default"] == "false"


def test_api_access_is_logged_as_json_without_credentials(template: dict[str, Any]) -> None:
    stage = template["Resources"]["HttpApiStage"]["Properties"]
    log_group = template["Resources"]["ApiAccessLogGroup"]["Properties"]
    settings = stage["AccessLogSettings"]

    assert settings["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}
    assert log_group["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    line = json.loads(settings["Format"])
    assert {"requestId", "ip", "routeKey", "status", "integrationError", "authorizerError"} <= line.keys()
    assert all(str(v).startswith("$context.") for v in line.values())
    assert "header" not in settings["Format"].lower()  # never the Authorization header


def test_breaker_table_has_point_in_time_recovery(template: dict[str, Any]) -> None:
    [table] = resources(template, "AWS::DynamoDB::Table").values()
    assert table["Properties"]["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def test_functions_get_network_interface_actions_scoped_not_the_aws_vpc_managed_policy(
    template: dict[str, Any],
) -> None:
    for name, role in resources(template, "AWS::IAM::Role").items():
        assert "AWSLambdaVPCAccessExecutionRole" not in json.dumps(role["Properties"].get("ManagedPolicyArns")), name
    policy = template["Resources"]["FunctionNetworkInterfacesPolicy"]["Properties"]["PolicyDocument"]
    by_sid = {s["Sid"]: s for s in policy["Statement"]}

    assert set(by_sid["DescribeNetworkInterfaces"]["Action"]) <= RESOURCE_LEVEL_UNSUPPORTED
    create = by_sid["CreateNetworkInterfaces"]
    assert create["Action"] == "ec2:CreateNetworkInterface"
    scoped = [r["Fn::Sub"] for r in create["Resource"]]
    assert all(":${AWS::Region}:${AWS::AccountId}:" in r for r in scoped)
    assert any(r.endswith(":security-group/${FunctionSecurityGroup}") for r in scoped)
    manage = by_sid["ManageNetworkInterfaces"]
    assert manage["Resource"]["Fn::Sub"].endswith(":${AWS::Region}:${AWS::AccountId}:network-interface/*")
    # Logs: only each function's own log group (the managed policy granted every log group).
    for owner, statement in statements(template):
        if any(str(a).startswith("logs:") for a in as_list(statement["Action"])):
            for resource in as_list(statement["Resource"]):
                assert template["Resources"][ref_target(resource)]["Type"] == "AWS::Logs::LogGroup", owner


# ---------------------------------------------------------------- training exports


def test_the_exporter_takes_one_job_at_a_time_from_its_own_queue_and_writes_only_the_exports_bucket(
    template: dict[str, Any],
) -> None:
    exporter = functions(template)["ExporterFunction"]
    [event] = [e for name, _, e in sqs_events(template) if name == "ExporterFunction"]
    assert ref_target(event["Queue"]) == "ExportsQueue"
    assert event["BatchSize"] == 1
    assert env(exporter)["SCORING_EXPORTS_BUCKET"] == {"Ref": "ExportsBucket"}
    assert exporter["Properties"]["Handler"] == "handler.handler"
    assert (ROOT / "functions" / "exporter" / "handler.py").is_file()
    role = template["Resources"][ref_target(exporter["Properties"]["Role"])]["Properties"]
    [document] = [p["PolicyDocument"] for p in role["Policies"]]
    writes = [s for s in document["Statement"] if s.get("Sid") == "WriteExports"]
    assert [set(s["Action"]) for s in writes] == [{"s3:PutObject", "s3:AbortMultipartUpload"}]
    assert writes[0]["Resource"] == {"Fn::Sub": "${ExportsBucket.Arn}/exports/*"}
    # The API only sends jobs and presigns reads of exports; it never writes the bucket.
    api = template["Resources"]["ApiRole"]["Properties"]["Policies"][0]["PolicyDocument"]["Statement"]
    s3_actions = {a for s in api if "Sid" in s for a in as_list(s["Action"]) if str(a).startswith("s3:")}
    assert s3_actions == {"s3:GetObject"}
    assert env(functions(template)["ApiFunction"])["SCORING_EXPORTS_BUCKET"] == {"Ref": "ExportsBucket"}


def test_the_exports_bucket_is_private_encrypted_and_expires_exports(template: dict[str, Any]) -> None:
    bucket = template["Resources"]["ExportsBucket"]["Properties"]
    assert set(bucket["PublicAccessBlockConfiguration"].values()) == {True}
    [encryption] = bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert encryption["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"
    rules = {rule["Id"]: rule for rule in bucket["LifecycleConfiguration"]["Rules"]}
    assert rules["ExpireExports"]["ExpirationInDays"] == {"Ref": "ExportRetentionDays"}
    assert rules["ExpireExports"]["Prefix"] == "exports/"
    assert rules["AbortIncompleteUploads"]["AbortIncompleteMultipartUpload"]["DaysAfterInitiation"] == 1
    from session_scoring.services.exports import export_key

    assert export_key(uuid.uuid4()).startswith("exports/")


def test_the_exports_bucket_is_versioned_and_its_access_is_logged_to_a_private_bucket(template: dict[str, Any]) -> None:
    bucket = template["Resources"]["ExportsBucket"]["Properties"]
    assert bucket["VersioningConfiguration"] == {"Status": "Enabled"}
    rules = {rule["Id"]: rule for rule in bucket["LifecycleConfiguration"]["Rules"]}
    # Versioning must not keep an expired export: its last version goes a day after the export expires.
    assert rules["ExpireExports"]["NoncurrentVersionExpiration"] == {"NoncurrentDays": 1}
    assert rules["RemoveExpiredDeleteMarkers"]["ExpiredObjectDeleteMarker"] is True

    logging = bucket["LoggingConfiguration"]
    log_bucket = template["Resources"][ref_target(logging["DestinationBucketName"])]["Properties"]
    assert set(log_bucket["PublicAccessBlockConfiguration"].values()) == {True}
    [encryption] = log_bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert encryption["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == "AES256"  # the only one log delivery writes
    [expiry] = [r for r in log_bucket["LifecycleConfiguration"]["Rules"] if "ExpirationInDays" in r]
    assert expiry["ExpirationInDays"] == {"Ref": "LogRetentionDays"}
    # Only S3's log delivery, for the exports bucket of this account, may write there, under the logs' prefix.
    [policy] = [
        r["Properties"]["PolicyDocument"]
        for r in resources(template, "AWS::S3::BucketPolicy").values()
        if r["Properties"]["Bucket"] == logging["DestinationBucketName"]
    ]
    [delivery] = [s for s in policy["Statement"] if s["Effect"] == "Allow"]
    assert delivery["Principal"] == {"Service": "logging.s3.amazonaws.com"}
    assert delivery["Action"] == "s3:PutObject"
    assert delivery["Resource"]["Fn::Sub"].endswith(f"/{logging['LogFilePrefix']}*")
    assert delivery["Condition"]["ArnLike"]["aws:SourceArn"] == {"Fn::GetAtt": ["ExportsBucket", "Arn"]}
    assert delivery["Condition"]["StringEquals"]["aws:SourceAccount"] == {"Ref": "AWS::AccountId"}


# ---------------------------------------------------------------- a deploy that keeps its data

STATEFUL_TYPES = {
    # cfn-lint's list of likely stateful types (rule I3011), which `make template-lint` also runs, plus S3 buckets,
    # which cfn-lint leaves out because CloudFormation cannot delete a bucket that still holds objects.
    "AWS::Backup::BackupVault",
    "AWS::CloudFormation::Stack",
    "AWS::Cognito::UserPool",
    "AWS::DocDB::DBCluster",
    "AWS::DocDB::DBInstance",
    "AWS::DynamoDB::GlobalTable",
    "AWS::DynamoDB::Table",
    "AWS::EC2::Volume",
    "AWS::EFS::FileSystem",
    "AWS::EMR::Cluster",
    "AWS::ElastiCache::CacheCluster",
    "AWS::ElastiCache::ReplicationGroup",
    "AWS::Elasticsearch::Domain",
    "AWS::FSx::FileSystem",
    "AWS::KMS::Key",
    "AWS::Kinesis::Stream",
    "AWS::Logs::LogGroup",
    "AWS::Neptune::DBCluster",
    "AWS::Neptune::DBInstance",
    "AWS::OpenSearchService::Domain",
    "AWS::Organizations::Account",
    "AWS::QLDB::Ledger",
    "AWS::RDS::DBCluster",
    "AWS::RDS::DBInstance",
    "AWS::Redshift::Cluster",
    "AWS::S3::Bucket",
    "AWS::SDB::Domain",
    "AWS::SQS::Queue",
    "AWS::SecretsManager::Secret",
}

KEPT_UNLESS_THROWAWAY = {"Ref": "DataRetention"}
SNAPSHOT_UNLESS_THROWAWAY = {"Fn::If": ["RetainData", "Snapshot", "Delete"]}
HOLDS_NO_DATA = {
    "BreakerTable": "the judge's circuit state only, which expires by itself",
    "DatabaseInstance": "an Aurora instance; the data is in the cluster's volume, kept by the cluster's snapshot",
}


def test_every_stateful_resource_keeps_its_data_on_delete_and_replace_unless_the_stack_is_throwaway(
    template: dict[str, Any],
) -> None:
    parameter = template["Parameters"]["DataRetention"]
    assert parameter["Default"] == "Retain"
    assert parameter["AllowedValues"] == ["Retain", "Delete"]
    assert template["Conditions"]["RetainData"] == {"Fn::Equals": [{"Ref": "DataRetention"}, "Retain"]}

    stateful = {name: r for name, r in template["Resources"].items() if r["Type"] in STATEFUL_TYPES}
    assert len(stateful) >= 18
    for name, resource in stateful.items():
        assert "DeletionPolicy" in resource, f"{name} has no DeletionPolicy"
        assert "UpdateReplacePolicy" in resource, f"{name} has no UpdateReplacePolicy"
        policy = resource["DeletionPolicy"]
        assert resource["UpdateReplacePolicy"] == policy, name  # replacing drops data as surely as deleting
        if name in HOLDS_NO_DATA:
            assert policy == "Delete", name
        elif resource["Type"] in ("AWS::RDS::DBCluster", "AWS::RDS::DBInstance"):
            assert policy == SNAPSHOT_UNLESS_THROWAWAY, name
        else:
            assert policy == KEPT_UNLESS_THROWAWAY, name
    # What the issue called out by name: queued work, dead letters and the database.
    for name in ("ScoringQueue", "RunsQueue", "ExportsQueue", "ScoringDeadLetterQueue", "ExportsDeadLetterQueue"):
        assert stateful[name]["DeletionPolicy"] == KEPT_UNLESS_THROWAWAY
    assert stateful["DatabaseCluster"]["DeletionPolicy"] == SNAPSHOT_UNLESS_THROWAWAY


def test_every_log_group_expires_after_the_retention_parameter(template: dict[str, Any]) -> None:
    log_groups = resources(template, "AWS::Logs::LogGroup")
    assert len(log_groups) == len(functions(template)) + 1  # one per function and the API's access log
    for name, log_group in log_groups.items():
        assert log_group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}, name


def test_every_security_group_rule_says_what_it_is_for(template: dict[str, Any]) -> None:
    rules = [
        (name, rule)
        for name, group in resources(template, "AWS::EC2::SecurityGroup").items()
        for key in ("SecurityGroupIngress", "SecurityGroupEgress")
        for rule in group["Properties"].get(key, [])
    ]
    rules += [
        (name, r["Properties"])
        for kind in ("AWS::EC2::SecurityGroupIngress", "AWS::EC2::SecurityGroupEgress")
        for name, r in resources(template, kind).items()
    ]
    assert len(rules) >= 8
    for name, rule in rules:
        assert len(rule.get("Description", "")) > 10, f"{name}: a rule without a description"


def test_the_api_has_reserved_concurrency_and_every_other_function_is_capped_by_what_invokes_it(
    template: dict[str, Any],
) -> None:
    api = functions(template)["ApiFunction"]["Properties"]
    assert api["ReservedConcurrentExecutions"] == {
        "Fn::If": ["ReserveApiConcurrency", {"Ref": "ApiReservedConcurrency"}, {"Ref": "AWS::NoValue"}]
    }
    reserved = int(template["Parameters"]["ApiReservedConcurrency"]["Default"])
    burst = template["Resources"]["HttpApiStage"]["Properties"]["DefaultRouteSettings"]["ThrottlingBurstLimit"]
    assert reserved >= burst  # every request of a burst the stage lets through has an instance
    assert template["Conditions"]["ReserveApiConcurrency"] == {
        "Fn::Not": [{"Fn::Equals": [{"Ref": "ApiReservedConcurrency"}, "0"]}]
    }

    custom_resource_functions = {
        ref_target(r["Properties"]["ServiceToken"])
        for r in template["Resources"].values()
        if r["Type"].startswith("Custom::")
    }
    for name, function in functions(template).items():
        if name == "ApiFunction":
            continue
        assert "ReservedConcurrentExecutions" not in function["Properties"], name
        events = list(function["Properties"].get("Events", {}).values())
        if name in custom_resource_functions:
            assert events == [], name  # invoked by CloudFormation, once per deploy
            continue
        assert events, f"{name} has no trigger, so nothing bounds how often it runs"
        for event in events:
            capped_queue = event["Type"] == "SQS" and "MaximumConcurrency" in event["Properties"]["ScalingConfig"]
            assert capped_queue or event["Type"] == "ScheduleV2", f"{name}: a {event['Type']} event has no cap"


# ---------------------------------------------------------------- checkov and its skip list


def test_each_checkov_skip_names_existing_resources_and_says_why_it_does_not_apply(template: dict[str, Any]) -> None:
    from scripts.checkov_gate import load_skips

    skips = load_skips()
    deployment_page = (ROOT / "docs" / "deployment.md").read_text()
    pairs = [(skip["check"], resource) for skip in skips for resource in skip["resources"]]
    assert len(pairs) == len(set(pairs)), "a finding is listed twice"
    for skip in skips:
        assert re.fullmatch(r"CKV2?_AWS_\d+", skip["check"]), skip
        assert skip["resources"], skip["check"]
        for resource in skip["resources"]:
            assert resource in template["Resources"], f"{skip['check']} names {resource}, which is not in the template"
        assert len(skip["reason"].split()) >= 15, f"{skip['check']}: the reason does not say why"
        assert f"`{skip['check']}`" in deployment_page, f"docs/deployment.md does not list {skip['check']}"


def test_the_skipped_encryption_checks_hold_in_the_form_checkov_does_not_recognise(template: dict[str, Any]) -> None:
    queues = resources(template, "AWS::SQS::Queue")
    assert len(queues) == 5
    for name, queue in queues.items():
        assert queue["Properties"]["SqsManagedSseEnabled"] is True, name
    for name, table in resources(template, "AWS::DynamoDB::Table").items():
        assert table["Properties"]["SSESpecification"] == {"SSEEnabled": True}, name


def checkov_report(failed: list[tuple[str, str]], passed: int = 3) -> dict[str, Any]:
    """checkov's JSON report (one framework) with these (check id, resource) findings."""
    return {
        "check_type": "cloudformation",
        "summary": {"passed": passed, "failed": len(failed)},
        "results": {
            "failed_checks": [
                {"check_id": check, "check_name": "a check", "resource": f"AWS::SQS::Queue.{resource}"}
                for check, resource in failed
            ]
        },
    }


def test_the_checkov_gate_fails_on_an_unlisted_finding_and_on_a_listed_one_that_is_gone() -> None:
    from scripts.checkov_gate import judge

    skips = [{"check": "CKV_AWS_27", "resources": ["ScoringQueue", "RunsQueue"], "reason": "..."}]

    listed = judge(checkov_report([("CKV_AWS_27", "ScoringQueue"), ("CKV_AWS_27", "RunsQueue")]), skips)
    assert (listed.unlisted, listed.stale, listed.passed) == ([], [], 3)

    # The same check on a new queue is a new finding: the skip is per resource, not per check.
    new = judge(
        checkov_report([("CKV_AWS_27", "ScoringQueue"), ("CKV_AWS_27", "RunsQueue"), ("CKV_AWS_27", "NewQueue")]),
        skips,
    )
    assert [(f.check, f.resource) for f in new.unlisted] == [("CKV_AWS_27", "NewQueue")]

    fixed = judge([checkov_report([("CKV_AWS_27", "ScoringQueue")])], skips)  # a list: several frameworks
    assert fixed.unlisted == []
    assert fixed.stale == [("CKV_AWS_27", "RunsQueue")]


def test_the_gateway_and_the_app_allow_every_method_a_route_takes_across_origins(template: dict[str, Any]) -> None:
    """A browser on an allowed origin preflights every write: a method missing here (PUT of a label) fails there."""
    from functions.api.middleware import CORS_METHODS
    from functions.api.route_roles import ROUTE_ROLES

    used = {method for method, _ in ROUTE_ROLES} | {"OPTIONS"}
    cors = template["Resources"]["HttpApi"]["Properties"]["CorsConfiguration"]["Fn::If"][1]

    assert used <= set(cors["AllowMethods"])
    assert used <= set(CORS_METHODS)
