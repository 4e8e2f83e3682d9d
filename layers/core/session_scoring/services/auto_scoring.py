"""Auto-scoring: a schedule that starts a run of the ``unscored`` completed sessions since the last auto run.

Off by default (``auto_scoring.enabled``). Each tick starts at most one run, started by ``schedule``, when no auto run
is active and the last one is ``interval_minutes`` old: over the sessions started from the watermark (``OVERLAP``
before it, so a session still running at the last tick is read again) to now, within what is left of the day's
session and cost caps. See docs/runs.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol
from uuid import UUID

from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.log import logger
from session_scoring.models.runs import RunRequest, RunSelection, RunStatus, Which
from session_scoring.repositories.runs import RunRecord
from session_scoring.services.runs import RunService

SCHEDULE = "schedule"
"""``started_by`` of the runs auto-scoring starts."""
FIRST_LOOKBACK = timedelta(days=1)
OVERLAP = timedelta(hours=6)


@dataclass(frozen=True)
class AutoScoringOutcome:
    run_id: UUID | None
    reason: str


class RunHistory(Protocol):
    """The runs the auto-scorer started (``repositories.runs``)."""

    def runs_started_by(self, started_by: str, since: datetime | None = None, limit: int = 1000) -> list[RunRecord]: ...


@dataclass(eq=False)
class AutoScorer:
    config: ScoringConfig
    runs: RunService
    repository: RunHistory
    max_run_sessions: int
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)

    def tick(self) -> AutoScoringOutcome:
        """Start the auto run that is due, if any; the outcome says which or why none."""
        auto = self.config.auto_scoring
        if not auto.enabled:
            return AutoScoringOutcome(None, "auto-scoring is disabled (auto_scoring.enabled)")
        now = self.clock()
        recent = self.repository.runs_started_by(SCHEDULE, limit=1)
        last = recent[0] if recent else None
        if last is not None and last.status in (RunStatus.PLANNING, RunStatus.RUNNING):
            return AutoScoringOutcome(None, f"the last auto run {last.run_id} is still {last.status}")
        if last is not None and now - last.created_at < timedelta(minutes=auto.interval_minutes):
            return AutoScoringOutcome(None, f"not due: the last auto run was created at {last.created_at.isoformat()}")
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        today = self.repository.runs_started_by(SCHEDULE, since=midnight)
        sessions_left = auto.max_sessions_per_day - sum(r.attempts for r in today)
        if sessions_left <= 0:
            return AutoScoringOutcome(None, f"the day's cap of {auto.max_sessions_per_day} sessions is reached")
        spent = sum(self.runs.cost_of(r) or 0.0 for r in today)
        cost_left = round(auto.max_cost_usd_per_day - spent, 6)
        if cost_left <= 0:
            return AutoScoringOutcome(None, f"the day's cost cap of {auto.max_cost_usd_per_day} USD is reached")
        since = self._watermark(last, now) - OVERLAP
        request = RunRequest(
            selection=RunSelection(
                which=Which.UNSCORED, statuses=["completed"], submitted_after=since, submitted_before=now
            ),
            max_sessions=min(sessions_left, self.max_run_sessions),
            # Without a price for the model the cost cap cannot apply (the run would be refused): the session cap does.
            max_cost_usd=cost_left if self.config.price_of(self.config.llm_model) is not None else None,
            mode=auto.mode,
            name=f"auto-scoring of sessions started {since:%Y-%m-%d %H:%M} to {now:%Y-%m-%d %H:%M} UTC",
        )
        run = self.runs.create(request, started_by=SCHEDULE)
        logger.info("auto-scoring run started", extra={"run_id": str(run.run_id), "since": since.isoformat()})
        return AutoScoringOutcome(run.run_id, "started")

    @staticmethod
    def _watermark(last: RunRecord | None, now: datetime) -> datetime:
        if last is None:
            return now - FIRST_LOOKBACK
        selection = RunSelection.model_validate(last.selection)
        after = selection.submitted_after or now - FIRST_LOOKBACK
        whole = last.status == RunStatus.COMPLETED and last.stop_reason is None
        return (selection.submitted_before or now) if whole else after + OVERLAP
