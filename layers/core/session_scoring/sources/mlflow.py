"""Sessions from MLflow experiments: one trace per session, read through the tracking server's REST API (httpx, no
MLflow package) and mapped by :mod:`sources.trace_spans`. A trace of another experiment than the configured ones is
not found. MLflow pages with tokens and does not count, so page N of the list walks the pages before it and its total
is not exact (:mod:`sources.cursor_pages`). The endpoints are in ``docs/sessions.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from pydantic import Field

from session_scoring.errors import ConfigurationError, SessionDataError, SessionNotFoundError
from session_scoring.infrastructure.json_http import JsonHttpClient
from session_scoring.models.session import Session, SessionPage, SessionSummary
from session_scoring.sources.boundary import BoundaryModel, validate_document
from session_scoring.sources.cursor_pages import session_page
from session_scoring.sources.trace_spans import otlp_span, session_from_spans

MAX_RESULTS = 500
"""The largest page MLflow's trace search serves."""
DEFAULT_EXPERIMENT = "0"
SEARCH_PATH = "/api/3.0/mlflow/traces/search"
GET_PATH = "/api/3.0/mlflow/traces/get"
PROJECT_SETTING = "session_source.project (SCORING_TRACE_STORE_PROJECT)"

STATUS_OF_STATE = {"OK": "completed", "ERROR": "failed", "IN_PROGRESS": "in_progress"}
_STATE_OF_STATUS = {status: state for state, status in STATUS_OF_STATE.items()}


class MlflowExperimentLocation(BoundaryModel):
    experiment_id: str


class MlflowTraceLocation(BoundaryModel):
    mlflow_experiment: MlflowExperimentLocation | None = None


class MlflowTraceInfo(BoundaryModel):
    trace_id: str
    trace_location: MlflowTraceLocation | None = None
    request_time: datetime | None = None
    execution_duration: str | None = None
    state: str = "STATE_UNSPECIFIED"
    tags: dict[str, str] = Field(default_factory=dict)

    @property
    def experiment_id(self) -> str | None:
        location = self.trace_location.mlflow_experiment if self.trace_location else None
        return location.experiment_id if location else None

    @property
    def status(self) -> str:
        return STATUS_OF_STATE.get(self.state, self.state.lower())

    @property
    def ended_at(self) -> datetime | None:
        """The request time plus the execution duration (protobuf JSON writes it as ``"0.047s"``)."""
        if self.request_time is None or not self.execution_duration:
            return None
        try:
            return self.request_time + timedelta(seconds=float(self.execution_duration.removesuffix("s")))
        except ValueError:
            return None


class MlflowSearchPage(BoundaryModel):
    traces: list[MlflowTraceInfo] = Field(default_factory=list)
    next_page_token: str | None = None


class MlflowTrace(BoundaryModel):
    trace_info: MlflowTraceInfo
    spans: list[dict[str, Any]] = Field(default_factory=list)


class MlflowTraceAnswer(BoundaryModel):
    trace: MlflowTrace


def experiment_ids(project: str) -> list[str]:
    ids = [part.strip() for part in project.split(",") if part.strip()]
    if not all(part.isdigit() for part in ids):
        raise ConfigurationError(
            f"{PROJECT_SETTING} '{project}' is not a list of MLflow experiment ids (numbers, separated by commas); "
            "set it to the id(s) shown in MLflow's experiment page"
        )
    return ids or [DEFAULT_EXPERIMENT]


class MlflowSessionSource:
    name = "mlflow"

    def __init__(self, client: JsonHttpClient, project: str = "") -> None:
        self._client = client
        self.experiments = experiment_ids(project)

    def get_session(self, session_id: str) -> Session:
        origin = f"MLflow trace {session_id}"
        document = self._client.get(GET_PATH, {"trace_id": session_id}, missing_ok=True)
        not_found = SessionNotFoundError(
            f"session '{session_id}' was not found: MLflow has no trace with that id in "
            f"experiment(s) {', '.join(self.experiments)}"
        )
        if document is None:
            raise not_found
        trace = validate_document(MlflowTraceAnswer, document, f"MLflow GET {GET_PATH}: not a trace").trace
        if trace.trace_info.experiment_id not in self.experiments:
            raise not_found
        try:
            spans = [otlp_span(raw) for raw in trace.spans]
        except ValueError as exc:
            raise SessionDataError(f"{origin}: {exc}") from exc
        return session_from_spans(spans, trace.trace_info.trace_id, origin, trace.trace_info.status)

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        states = sorted({_STATE_OF_STATUS[s] for s in statuses if s in _STATE_OF_STATUS})
        if statuses and not states:
            return SessionPage(items=[], page=page, page_size=page_size, total_items=0, total_pages=1)
        body: dict[str, Any] = {
            "locations": [
                {"type": "MLFLOW_EXPERIMENT", "mlflow_experiment": {"experiment_id": e}} for e in self.experiments
            ],
            "order_by": ["timestamp_ms DESC"],
        }
        if states:
            body["filter"] = "trace.status IN ({})".format(", ".join(f"'{s}'" for s in states))

        def fetch(token: str | None, limit: int) -> tuple[list[SessionSummary], str | None]:
            request = {**body, "max_results": limit, **({"page_token": token} if token else {})}
            document = self._client.post(SEARCH_PATH, request, missing_ok=True)
            if document is None:
                raise ConfigurationError(
                    f"MLflow at {self._client.base_url} has no experiment {', '.join(self.experiments)} (404); set "
                    f"{PROJECT_SETTING} to the id(s) of the experiment(s) the agent's traces go to"
                )
            found = validate_document(MlflowSearchPage, document, f"MLflow POST {SEARCH_PATH}: not a trace search")
            return [_summary(info) for info in found.traces], found.next_page_token or None

        return session_page(fetch, page, page_size, MAX_RESULTS)


def _summary(info: MlflowTraceInfo) -> SessionSummary:
    return SessionSummary(
        session_id=info.trace_id,
        status=info.status,
        agent_type=info.tags.get("mlflow.traceName") or None,
        started_at=info.request_time,
        completed_at=info.ended_at,
    )
