"""Write-back to MLflow: feedback assessments on the trace, through the tracking server's REST API (the same
records ``mlflow.log_feedback`` writes, MLflow 3).

- the trace's assessments so far: ``GET /api/3.0/mlflow/traces/{trace_id}``;
- each missing one: ``POST /api/3.0/mlflow/traces/{trace_id}/assessments``: feedback named ``{name}`` (value = the
  total, rationale = the judge's reasoning) and one per dimension named ``{name}.{dimension}`` (value = its
  points), source ``LLM_JUDGE`` with the judge model as its id, and metadata with the attempt's id, the criteria hash
  and the band. An assessment already there with the same name and attempt id is not written again, so a job
  delivered again writes nothing twice.
"""

from __future__ import annotations

from typing import Any

from session_scoring.errors import WriteBackRejectedError
from session_scoring.infrastructure.json_http import JsonHttpClient
from session_scoring.sinks.base import WRITER, VerdictToWrite


def mlflow_assessments(verdict: VerdictToWrite) -> list[dict[str, Any]]:
    """The assessments of one verdict: the total first, then one per dimension."""
    source = {"source_type": "LLM_JUDGE", "source_id": verdict.judge_model or WRITER}
    total = {
        "assessment_name": verdict.name,
        "trace_id": verdict.trace_id,
        "source": source,
        "feedback": {"value": verdict.total_score},
        "rationale": verdict.reasoning,
        "metadata": verdict.metadata(),
    }
    dimensions = [
        {
            "assessment_name": f"{verdict.name}.{dimension}",
            "trace_id": verdict.trace_id,
            "source": source,
            "feedback": {"value": points},
            "metadata": {**verdict.metadata(), "dimension": dimension},
        }
        for dimension, points in verdict.breakdown.items()
    ]
    return [total, *dimensions]


class MlflowVerdictSink:
    name = "mlflow"

    def __init__(self, client: JsonHttpClient) -> None:
        self._client = client

    def _written(self, verdict: VerdictToWrite) -> set[str]:
        """Names of the assessments this attempt already wrote on the trace."""
        path = f"/api/3.0/mlflow/traces/{verdict.trace_id}"
        answer = self._client.get(path, missing_ok=True)
        info = (answer.get("trace") or {}).get("trace_info") if isinstance(answer, dict) else None
        if not isinstance(info, dict):
            raise WriteBackRejectedError(
                f"MLflow at {self._client.base_url} has no trace {verdict.trace_id} (deleted since it was scored?); "
                "nothing to assess"
            )
        return {
            str(a.get("assessment_name"))
            for a in info.get("assessments") or []
            if isinstance(a, dict) and (a.get("metadata") or {}).get("score_id") == str(verdict.score_id)
        }

    def write(self, verdict: VerdictToWrite) -> str:
        written = self._written(verdict)
        assessments = mlflow_assessments(verdict)
        new = [a for a in assessments if a["assessment_name"] not in written]
        for assessment in new:
            path = f"/api/3.0/mlflow/traces/{verdict.trace_id}/assessments"
            self._client.post(path, {"assessment": assessment})
        return f"{len(assessments)} assessments on trace {verdict.trace_id} ({len(new)} new)"
