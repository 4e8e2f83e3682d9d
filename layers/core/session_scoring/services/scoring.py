"""Scoring use cases behind the REST API: request a score, read scores, list sessions, criteria, health."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime

from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.errors import (
    QueueUnavailableError,
    ScoreNotFoundError,
    ScoringDisabledError,
    SessionNotScorableError,
)
from session_scoring.infrastructure.queue import JobQueue
from session_scoring.log import logger
from session_scoring.models.api import (
    CriteriaDefinition,
    SessionListItem,
    SessionListPage,
    SessionScore,
    SkippedSessionInfo,
)
from session_scoring.models.jobs import ScoringJob
from session_scoring.models.session import Session, SessionStatus
from session_scoring.repositories.scores import ScoreRepository
from session_scoring.sources.base import SessionSource


class ScoringService:
    def __init__(
        self, config: ScoringConfig, repository: ScoreRepository, source: SessionSource, queue: JobQueue
    ) -> None:
        self._config = config
        self._repository = repository
        self._source = source
        self._queue = queue

    @property
    def criteria_hash(self) -> str:
        return self._config.criteria_hash

    def request_score(self, session_id: str, force_rescore: bool, triggered_by: str) -> SessionScore:
        """Return the latest completed score, or the active attempt, or queue a new attempt.

        The caller answers 200 when the returned attempt is completed, 202 otherwise. There is never more than one
        active attempt per session, with or without ``force_rescore``.
        """
        if not self._config.enabled:
            raise ScoringDisabledError(
                "scoring is disabled (scoring.enabled is false); set SCORING_ENABLED=true to request scores"
            )
        current = self._config.criteria_hash
        active = self._repository.active_for_session(session_id, current)
        if active is not None:
            return active
        if not force_rescore:
            completed = self._repository.latest_completed(session_id, current)
            if completed is not None:
                return completed
        self._check_scorable(self._source.get_session(session_id))
        self._repository.ensure_criteria(current, self._config.criteria_content)
        score_id = uuid.uuid4()
        attempt, created = self._repository.create_attempt(score_id, session_id, current, triggered_by, current)
        if not created:
            return attempt
        job = ScoringJob(
            score_id=score_id, session_id=session_id, requested_by=triggered_by, requested_at=datetime.now(UTC)
        )
        try:
            self._queue.send(job)
        except QueueUnavailableError as exc:
            self._repository.fail(score_id, None, f"could not queue the scoring job: {exc.message}")
            raise
        logger.info("scoring queued", extra={"score_id": str(score_id), "session_id": session_id})
        return attempt

    def _check_scorable(self, session: Session) -> None:
        allowed = set(self._config.session_source.scorable_statuses)
        try:
            terminal = SessionStatus(session.status).is_terminal
        except ValueError:
            terminal = False
        if not terminal or session.status not in allowed:
            raise SessionNotScorableError(
                f"session '{session.session_id}' is {session.status}; only sessions that are "
                f"{' or '.join(sorted(allowed))} can be scored" + ("" if terminal else " (wait until it finishes)"),
                status=session.status,
            )

    def latest_score(self, session_id: str) -> SessionScore:
        score = self._repository.latest_for_session(session_id, self._config.criteria_hash)
        if score is None:
            raise ScoreNotFoundError(
                f"session '{session_id}' has never been scored; POST to this URL to request a score"
            )
        return score

    def score_history(self, session_id: str) -> list[SessionScore]:
        scores = self._repository.list_for_session(session_id, self._config.criteria_hash)
        if not scores:
            raise ScoreNotFoundError(f"session '{session_id}' has never been scored")
        return scores

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionListPage:
        source_page = self._source.list_sessions(page, page_size, statuses)
        latest = self._repository.latest_for_sessions(
            [s.session_id for s in source_page.items], self._config.criteria_hash
        )
        return SessionListPage(
            items=[
                SessionListItem(**summary.model_dump(), score=latest.get(summary.session_id))
                for summary in source_page.items
            ],
            page=source_page.page,
            page_size=source_page.page_size,
            total_items=source_page.total_items,
            total_pages=source_page.total_pages,
            skipped=[SkippedSessionInfo(origin=s.origin, error=s.error) for s in source_page.skipped],
        )

    def current_criteria(self) -> CriteriaDefinition:
        self._repository.ensure_criteria(self._config.criteria_hash, self._config.criteria_content)
        stored = self._repository.get_criteria(self._config.criteria_hash)
        return CriteriaDefinition(
            criteria_hash=self._config.criteria_hash,
            llm_provider=self._config.llm_provider,
            llm_model=self._config.llm_model,
            criteria_content=self._config.criteria_content,
            created_at=stored.created_at if stored else None,
        )
