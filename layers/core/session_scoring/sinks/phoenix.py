"""Write-back to Arize Phoenix: span annotations on the trace's root span through the REST API; Phoenix upserts on
the attempt's identifier, so a job delivered again overwrites its own annotations (``docs/sessions.md``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from session_scoring.errors import WriteBackRejectedError
from session_scoring.infrastructure.json_http import JsonHttpClient
from session_scoring.sinks.base import WRITER, VerdictToWrite

ANNOTATIONS_PATH = "/v1/span_annotations"
DEFAULT_PROJECT = "default"
"""Phoenix's own default project, as the source reads it when session_source.project is empty."""


def phoenix_annotations(verdict: VerdictToWrite, span_id: str) -> list[dict[str, Any]]:
    """The annotations of one verdict on ``span_id``: the total (labelled with the band, explained by the judge's
    reasoning) first, then one per dimension."""
    common = {"span_id": span_id, "annotator_kind": "LLM", "identifier": f"{WRITER}:{verdict.score_id}"}
    annotations = [
        {**common, "name": name, "result": {"score": score}, "metadata": metadata}
        for name, score, metadata in verdict.values()
    ]
    annotations[0]["result"] = {"label": verdict.band, "score": verdict.total_score, "explanation": verdict.reasoning}
    return annotations


@dataclass(frozen=True)
class PhoenixVerdictSink:
    client: JsonHttpClient
    project: str

    def _root_span(self, trace_id: str) -> str:
        path = f"/v1/projects/{quote(self.project, safe='')}/spans"
        page = self.client.get(path, {"trace_id": trace_id, "parent_id": "null", "limit": 1}, missing_ok=True)
        spans = page.get("data") if isinstance(page, dict) else None
        if not spans or not isinstance(spans[0], dict) or not (spans[0].get("context") or {}).get("span_id"):
            raise WriteBackRejectedError(
                f"Phoenix project '{self.project}' at {self.client.base_url} has no root span of trace {trace_id} "
                "(the trace was deleted, or the project changed since it was scored); nothing to annotate"
            )
        return str(spans[0]["context"]["span_id"])

    def write(self, verdict: VerdictToWrite) -> str:
        span_id = self._root_span(verdict.trace_id)
        annotations = phoenix_annotations(verdict, span_id)
        answer = self.client.post(ANNOTATIONS_PATH, {"data": annotations}, {"sync": "true"})
        written = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(written, list) or len(written) != len(annotations):
            raise WriteBackRejectedError(
                f"Phoenix answered POST {ANNOTATIONS_PATH} without the {len(annotations)} annotation ids it was asked "
                f"to write: {str(answer)[:200]}"
            )
        return f"{len(annotations)} span annotations on span {span_id}"
