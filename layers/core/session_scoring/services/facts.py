"""Session facts: the snapshot of a session each attempt keeps, and the backfill of attempts that have none.

An attempt stores what the session looked like when it was created (agent, alert type, start and end, stages, tool
calls, source), so the fleet query filters and sorts scores without the session source; a run's planner stores all
but the stage and tool-call counts (it reads summaries). ``session-scoring facts backfill`` fills the attempts that
have none, or only a planner's, from the source.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from session_scoring.errors import SessionNotFoundError
from session_scoring.models.records import SessionFacts, facts_of
from session_scoring.models.session import SessionSummary
from session_scoring.sources.base import SessionSource


def facts_of_summary(summary: SessionSummary) -> SessionFacts:
    """The facts a session summary carries (no stage or tool-call counts: a summary has no stages)."""
    return SessionFacts(
        agent=summary.agent_type,
        alert_type=summary.alert_type,
        started_at=summary.started_at,
        ended_at=summary.completed_at,
        stages=None,
        tool_calls=None,
        source=summary.source,
    )


@dataclass
class BackfillResult:
    sessions: int = 0
    attempts_filled: int = 0
    gone: list[str] = field(default_factory=list)
    """Sessions the source no longer has: their attempts keep no facts (a later backfill tries them again)."""


class MissingFacts(Protocol):
    """The attempts without facts, and their filling (``repositories.insights``)."""

    def fill_facts(self, session_id: str, facts: SessionFacts) -> int: ...
    def sessions_missing_facts(self) -> list[str]: ...


class TrendFacts(Protocol):
    """The trends' read model following filled facts (``repositories.trends``)."""

    def refresh_facts(self, session_id: str) -> int: ...


@dataclass(eq=False)
class FactsBackfill:
    """Fills the facts of attempts that have none (or only a summary's), session by session: idempotent and
    resumable, as the work list is read from the database and each session is stored as soon as it is read."""

    repository: MissingFacts
    source: SessionSource
    trends: TrendFacts

    def pending_sessions(self) -> list[str]:
        """Sessions with at least one attempt still to fill, in a stable order."""
        return self.repository.sessions_missing_facts()

    def run(self, on_session: Callable[[str | None], None] = lambda _note: None) -> BackfillResult:
        """Fill every pending session; ``on_session`` is told of each one done, with a line when the source no
        longer has it."""
        sessions = self.pending_sessions()
        result = BackfillResult()
        for session_id in sessions:
            note = None
            try:
                session = self.source.get_session(session_id)
            except SessionNotFoundError:
                note = f"session {session_id}: the source no longer has it; its attempts keep no facts"
                result.gone.append(session_id)
            else:
                result.attempts_filled += self.repository.fill_facts(session_id, facts_of(session))
                self.trends.refresh_facts(session_id)  # its scores' trend groups follow the filled facts
            result.sessions += 1
            on_session(note)
        return result
