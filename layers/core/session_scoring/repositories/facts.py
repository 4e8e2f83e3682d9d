"""The session facts an attempt keeps (migration 0007_session_facts): its snapshot columns and the mapping to and
from ``SessionFacts``, shared by the repositories that write attempts (scores, runs) and read them (insights)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func

from session_scoring.db import schema
from session_scoring.models.records import SessionFacts

_SCORES = schema.session_scores

_FACT_COLUMNS = {
    "agent": "session_agent",
    "alert_type": "session_alert_type",
    "started_at": "session_started_at",
    "ended_at": "session_ended_at",
    "stages": "session_stages",
    "tool_calls": "session_tool_calls",
    "source": "session_source",
}


def fact_values(facts: SessionFacts | None) -> dict[str, Any]:
    """The snapshot columns of an attempt for ``facts`` (nothing when there are none); taken now."""
    if facts is None:
        return {}
    return {**{column: getattr(facts, name) for name, column in _FACT_COLUMNS.items()}, "facts_captured_at": func.now()}


def facts_from(values: Any) -> SessionFacts | None:
    """Explicit mapping from a row's snapshot columns to the record (None when no snapshot was taken)."""
    if values["facts_captured_at"] is None:
        return None
    return SessionFacts(
        **{name: values[column] for name, column in _FACT_COLUMNS.items()}, captured_at=values["facts_captured_at"]
    )


FACT_COLUMNS = [_SCORES.c[column] for column in (*_FACT_COLUMNS.values(), "facts_captured_at")]
