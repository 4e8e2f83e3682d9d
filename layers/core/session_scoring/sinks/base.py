"""What a write-back sink writes onto the trace the session came from (a Phoenix span annotation, an MLflow
assessment). Every value carries the attempt's id, so a job delivered again writes nothing twice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol
from uuid import UUID

WRITER = "session-scoring"
"""Who the values are from, as each store records it."""


@dataclass(frozen=True)
class VerdictToWrite:
    """One completed score, as written back."""

    score_id: UUID
    trace_id: str
    name: str
    """The total's annotation/assessment name; each dimension is written as ``{name}.{dimension}``."""
    total_score: int
    band: str
    breakdown: Mapping[str, int]
    reasoning: str
    criteria_hash: str
    judge_model: str | None

    def values(self) -> list[tuple[str, int, dict[str, str]]]:
        """(name, score, metadata) of each value written: the total first, then one per dimension. The metadata are
        strings (MLflow's is a map of strings)."""
        metadata = {
            "score_id": str(self.score_id),
            "criteria_hash": self.criteria_hash,
            "band": self.band,
            "judge_model": self.judge_model or "",
            "written_by": WRITER,
        }
        dimensions = [
            (f"{self.name}.{dimension}", points, {**metadata, "dimension": dimension})
            for dimension, points in self.breakdown.items()
        ]
        return [(self.name, self.total_score, metadata), *dimensions]


class VerdictSink(Protocol):
    """Writes a verdict to a trace store. Raises WriteBackUnavailableError (the store is down or answered 5xx: retry
    later), WriteBackRejectedError (the trace is gone, or the store refused the request) or ConfigurationError."""

    def write(self, verdict: VerdictToWrite) -> str:
        """Write the verdict; returns what was written, for the attempt's record (e.g. the span and how many)."""
        ...
