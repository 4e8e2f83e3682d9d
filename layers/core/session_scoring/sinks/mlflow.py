"""Write-back to MLflow: feedback assessments on the trace (as ``mlflow.log_feedback`` writes them, MLflow 3) through
the REST API; only the attempt's assessments not on the trace yet are written (``docs/sessions.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from session_scoring.errors import WriteBackRejectedError
from session_scoring.infrastructure.json_http import JsonHttpClient
from session_scoring.sinks.base import WRITER, VerdictToWrite


def mlflow_assessments(verdict: VerdictToWrite) -> list[dict[str, Any]]:
    """The assessments of one verdict: the total (with the judge's reasoning) first, then one per dimension."""
    source = {"source_type": "LLM_JUDGE", "source_id": verdict.judge_model or WRITER}
    assessments = [
        {
            "assessment_name": name,
            "trace_id": verdict.trace_id,
            "source": source,
            "feedback": {"value": score},
            "metadata": metadata,
        }
        for name, score, metadata in verdict.values()
    ]
    assessments[0]["rationale"] = verdict.reasoning
    return assessments


@dataclass(frozen=True)
class MlflowVerdictSink:
    client: JsonHttpClient

    def _written(self, verdict: VerdictToWrite) -> set[str]:
        """Names of the assessments this attempt already wrote on the trace."""
        path = f"/api/3.0/mlflow/traces/{verdict.trace_id}"
        answer = self.client.get(path, missing_ok=True)
        info = (answer.get("trace") or {}).get("trace_info") if isinstance(answer, dict) else None
        if not isinstance(info, dict):
            raise WriteBackRejectedError(
                f"MLflow at {self.client.base_url} has no trace {verdict.trace_id} (deleted since it was scored?); "
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
            self.client.post(path, {"assessment": assessment})
        return f"{len(assessments)} assessments on trace {verdict.trace_id} ({len(new)} new)"
