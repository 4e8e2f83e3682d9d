"""Metrics (CloudWatch embedded metric format) and traces (X-Ray) through Powertools, in one place.

Services name a metric by its :class:`Metric` (the names ``template.yaml``'s alarms and dashboard read,
docs/operations-monitoring.md) through :func:`count`, into the shared :data:`metrics` set the handler's
``@metrics.log_metrics`` flushes, or :func:`emit_now`, printed at once (a dimension of its own, or no handler to
flush), or through a ``record_*`` function where the figures need shaping. The X-Ray tracer is built on first use
(:func:`get_tracer`): its SDK's import costs the API's cold start half a second. Like logging, this module imports
nothing else of ours.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, TypeVar, cast

from aws_lambda_powertools import Metrics
from aws_lambda_powertools.metrics import MetricUnit, single_metric

if TYPE_CHECKING:
    from aws_lambda_powertools import Tracer

NAMESPACE = "SessionScoring"
"""CloudWatch namespace of every metric (the template's alarms and dashboard read it)."""

TRACED_MODULES = ("botocore", "httpx")
"""Libraries whose calls become X-Ray subsegments (the judge's call is the explicit ``judge`` subsegment)."""

SERVICE = "session-scoring"
"""The ``service`` dimension of every metric (the logger's service name)."""

metrics = Metrics(namespace=NAMESPACE, service=SERVICE)

H = TypeVar("H", bound=Callable[..., Any])


class FailureCategory(StrEnum):
    """Why an attempt failed for good: the dimension ``ReasonCategory`` of ``ScoresFailed``."""

    PERMANENT = "permanent"
    """Retrying cannot help (session not found or not scorable, the judge refused the request, invalid output)."""
    TRANSIENT = "transient"
    """Each delivery hit a passing fault until the allowed deliveries ran out; the job is dead-lettered."""


class Metric(StrEnum):
    """Metric names (namespace ``SessionScoring``, dimension ``service``)."""

    SCORES_REQUESTED = "ScoresRequested"
    JOBS_RECEIVED = "JobsReceived"
    SCORES_COMPLETED = "ScoresCompleted"
    SCORES_FAILED = "ScoresFailed"
    SCORES_CANCELLED = "ScoresCancelled"
    JOBS_DEFERRED = "JobsDeferred"
    JOBS_DEAD_LETTERED = "JobsDeadLettered"
    JOBS_REDRIVEN = "JobsRedriven"
    JUDGE_LATENCY = "JudgeLatency"
    JUDGE_ATTEMPT_TIME = "JudgeAttemptTime"
    JUDGE_RETRIES = "JudgeRetries"
    JUDGE_INPUT_TOKENS = "JudgeInputTokens"
    JUDGE_OUTPUT_TOKENS = "JudgeOutputTokens"
    JUDGE_CACHE_READ_TOKENS = "JudgeCacheReadTokens"
    JUDGE_CACHE_WRITE_TOKENS = "JudgeCacheWriteTokens"
    JUDGE_ESTIMATED_COST = "JudgeEstimatedCostUSD"
    PROMPT_COMPACTIONS = "PromptCompactions"
    BREAKER_TRANSITIONS = "JudgeBreakerTransitions"
    BREAKER_OPEN = "JudgeBreakerOpen"
    BREAKER_STATE_UNAVAILABLE = "BreakerStateUnavailable"
    API_REQUESTS = "ApiRequests"
    RUNS_STUCK_PLANNING = "RunsStuckPlanning"
    RUN_PLANNING_MESSAGES = "RunPlanningMessages"
    RUN_ATTEMPTS_QUEUED = "RunAttemptsQueued"
    BATCH_REQUESTS_SUBMITTED = "BatchRequestsSubmitted"
    ATTEMPTS_REQUEUED = "StrandedAttemptsRequeued"
    ATTEMPTS_REAPED_FAILED = "StrandedAttemptsFailed"
    EXPORTS_COMPLETED = "ExportsCompleted"
    EXPORTS_FAILED = "ExportsFailed"


def emit_now(name: Metric, value: float = 1, **dimensions: str) -> None:
    """One EMF line of the count ``name`` right away, with the service dimension plus ``dimensions``."""
    with single_metric(
        name=name.value,
        unit=MetricUnit.Count,
        value=value,
        namespace=NAMESPACE,
        default_dimensions={"service": SERVICE},
    ) as metric:
        for key, dimension in dimensions.items():
            metric.add_dimension(name=key, value=dimension)


# ---------------------------------------------------------------- the API side (printed at once)


def record_api_request(route: str, method: str, status_code: int) -> None:
    """One API request by route template (never the raw path: a dimension per session), method and status class."""
    emit_now(Metric.API_REQUESTS, Route=route, Method=method.upper(), StatusClass=f"{status_code // 100}xx")


# ---------------------------------------------------------------- the scorer side (flushed by the handler)


def count(metric: Metric, value: float = 1) -> None:
    """Add ``value`` to the count ``metric`` in the shared set (docs/operations-monitoring.md says what each counts)."""
    metrics.add_metric(name=metric.value, unit=MetricUnit.Count, value=value)


def record_score_failed(category: FailureCategory) -> None:
    """An attempt failed for good (stored as ``failed`` with its reason)."""
    emit_now(Metric.SCORES_FAILED, ReasonCategory=category.value)


def record_scores_cancelled(count: int) -> None:
    """Unclaimed attempts of a cancelled run were cancelled (printed at once: the API cancels them too)."""
    if count > 0:
        emit_now(Metric.SCORES_CANCELLED, count)


def record_estimated_cost(cost_usd: float) -> None:
    """A completed score's tokens priced with the configuration's ``pricing:`` table, in USD (the name says so)."""
    metrics.add_metric(name=Metric.JUDGE_ESTIMATED_COST.value, unit=MetricUnit.NoUnit, value=cost_usd)


def record_judging(
    *,
    latency_ms: int,
    attempt_ms: int,
    retries: int,
    input_tokens: int,
    output_tokens: int,
    cache_read_tokens: int,
    cache_write_tokens: int,
) -> None:
    """A verdict: the successful call's latency, the whole judging time (retries and waits included), the retries
    and the tokens (all zero for the heuristic judge)."""
    for name, value, unit in (
        (Metric.JUDGE_LATENCY, latency_ms, MetricUnit.Milliseconds),
        (Metric.JUDGE_ATTEMPT_TIME, attempt_ms, MetricUnit.Milliseconds),
        (Metric.JUDGE_RETRIES, retries, MetricUnit.Count),
        (Metric.JUDGE_INPUT_TOKENS, input_tokens, MetricUnit.Count),
        (Metric.JUDGE_OUTPUT_TOKENS, output_tokens, MetricUnit.Count),
        (Metric.JUDGE_CACHE_READ_TOKENS, cache_read_tokens, MetricUnit.Count),
        (Metric.JUDGE_CACHE_WRITE_TOKENS, cache_write_tokens, MetricUnit.Count),
    ):
        metrics.add_metric(name=name.value, unit=unit, value=value)


def record_breaker_transition(to_state: str) -> None:
    """The judge's circuit changed state (``open``, ``half_open``, ``closed``); ``JudgeBreakerOpen`` is a gauge: 1
    when it opens, 0 when it closes."""
    state = to_state.lower().removeprefix("circuitstate.")
    emit_now(Metric.BREAKER_TRANSITIONS, ToState=state)
    if state in ("open", "closed"):
        emit_now(Metric.BREAKER_OPEN, 1 if state == "open" else 0)


# ---------------------------------------------------------------- traces


@cache
def get_tracer() -> Tracer:
    """The X-Ray tracer, built once on first use."""
    from aws_lambda_powertools import Tracer

    return Tracer(patch_modules=TRACED_MODULES)


def traced_handler(handler: H) -> H:
    """Powertools' ``capture_lambda_handler`` around a Lambda handler when tracing is on; the handler as it is when
    off."""
    tracer = get_tracer()
    return handler if tracer.disabled else cast(H, tracer.capture_lambda_handler(handler))


_UNTRACED = SimpleNamespace(put_annotation=lambda key, value: None, put_metadata=lambda key, value: None)
"""What a block gets in place of a subsegment when tracing is off."""


@contextmanager
def subsegment(name: str, **annotations: str) -> Iterator[Any]:
    """An X-Ray subsegment ``## name`` around a block; with tracing off (outside Lambda, or
    ``POWERTOOLS_TRACE_DISABLED``) the block runs as it is, without the SDK's placeholder segments."""
    tracer = get_tracer()
    if tracer.disabled:
        yield _UNTRACED
        return
    with tracer.provider.in_subsegment(f"## {name}") as segment:
        for key, value in annotations.items():
            segment.put_annotation(key=key, value=value)
        yield segment
