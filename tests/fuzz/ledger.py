"""Rows that only API requests create, counted behind the API: a write answered 4xx/5xx must leave these unchanged.

Attempts a scoring run plans (``run_id`` set) are left out: the worker inserts them while the campaign goes on, for
runs that were accepted earlier. Judge-quality samples (``sample_kind``) are the scorer's, also left out.
"""

from __future__ import annotations

from sqlalchemy import Engine, text

COUNTS = text(
    "SELECT"
    " (SELECT count(*) FROM session_scores WHERE run_id IS NULL AND sample_kind IS NULL) AS attempts,"
    " (SELECT count(*) FROM scoring_runs) AS runs,"
    " (SELECT count(*) FROM judge_labels) AS labels,"
    " (SELECT count(*) FROM uploaded_sessions) AS uploads,"
    " (SELECT count(*) FROM export_jobs) AS exports"
)

ACTIVE_ATTEMPTS = text(
    "SELECT count(*) FROM session_scores WHERE session_id = :session_id AND status IN ('pending', 'in_progress')"
)


class Ledger:
    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def counts(self) -> dict[str, int]:
        with self._engine.connect() as conn:
            row = conn.execute(COUNTS).mappings().one()
        return {name: int(value) for name, value in row.items()}

    def active_attempts(self, session_id: str) -> int:
        with self._engine.connect() as conn:
            return int(conn.execute(ACTIVE_ATTEMPTS, {"session_id": session_id}).scalar_one())


def grown(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    """The tables that have more rows ``after`` than ``before``, and by how many."""
    return {name: after[name] - before[name] for name in after if after[name] > before.get(name, 0)}
