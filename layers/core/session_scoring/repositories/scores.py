"""Score attempts, criteria definitions and score analytics in PostgreSQL.

Every attempt is kept. A partial unique index allows one active (pending/in_progress) attempt per session, so two
racing requests cannot both queue one. A worker *claims* an attempt with a conditional update that sets a fresh
``claim_token`` and a lease; only the holder of the token can complete or fail it, and an expired lease lets
another worker take over (a worker that died mid-job does not strand the attempt).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, and_, exists, func, or_, select, text, update
from sqlalchemy.dialects.postgresql import distinct_on, insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session as DbSession
from sqlalchemy.orm import aliased, selectinload, sessionmaker

from session_scoring.db.calls import db_call
from session_scoring.db.schema import (
    AlternativeApproachRow,
    AlternativeApproachStepRow,
    MissingToolRow,
    ScoringCriteriaDefinitionRow,
    SessionScoreRow,
)
from session_scoring.models.api import (
    AlternativeApproach,
    JudgeInfo,
    LatestScore,
    MissingTool,
    SessionScore,
)
from session_scoring.models.judge import JudgeVerdict
from session_scoring.models.scores import ACTIVE_STATUSES, ScoreStatus

T = TypeVar("T")


@dataclass(frozen=True)
class StoredCriteria:
    criteria_hash: str
    criteria_content: dict[str, Any]
    created_at: datetime


@dataclass(frozen=True)
class ClaimResult:
    """Outcome of trying to claim an attempt for scoring."""

    claimed: bool
    claim_token: uuid.UUID | None = None
    status: ScoreStatus | None = None
    lease_expires_at: datetime | None = None
    delivery_count: int = 0


@dataclass(frozen=True)
class StrandedAttempt:
    """An active attempt that no scorer holds and whose queue message may be gone (see ``stranded``)."""

    score_id: uuid.UUID
    session_id: str
    status: ScoreStatus
    delivery_count: int
    requested_by: str
    requested_at: datetime


@dataclass(frozen=True)
class PromptStats:
    compacted: bool
    tokens_before: int | None
    tokens_after: int | None


def to_api_score(row: SessionScoreRow, current_criteria_hash: str) -> SessionScore:
    """Explicit mapping from an ORM row (children loaded) to the API model."""
    return SessionScore(
        score_id=row.score_id,
        session_id=row.session_id,
        criteria_hash=row.criteria_hash,
        status=ScoreStatus(row.status),
        total_score=row.total_score,
        score_breakdown=row.score_breakdown,
        score_reasoning=row.score_reasoning,
        missing_tools=[MissingTool(tool_name=t.tool_name, rationale=t.rationale) for t in row.missing_tools],
        alternative_approaches=[
            AlternativeApproach(name=a.name, description=a.description, steps=[s.step_description for s in a.steps])
            for a in row.alternative_approaches
        ],
        scored_triggered_by=row.scored_triggered_by,
        requested_at=row.requested_at,
        started_at=row.started_at,
        scored_at=row.scored_at,
        error_message=row.error_message,
        is_current_criteria=row.criteria_hash == current_criteria_hash,
        judge=JudgeInfo(
            provider=row.judge_provider,
            model=row.judge_model,
            input_tokens=row.input_tokens,
            output_tokens=row.output_tokens,
            cache_read_tokens=row.cache_read_tokens,
            cache_write_tokens=row.cache_write_tokens,
            latency_ms=row.judge_latency_ms,
            prompt_compacted=row.prompt_compacted,
            prompt_tokens_before=row.prompt_tokens_before,
            prompt_tokens_after=row.prompt_tokens_after,
        ),
    )


def _with_children() -> Any:
    return (
        selectinload(SessionScoreRow.missing_tools),
        selectinload(SessionScoreRow.alternative_approaches).selectinload(AlternativeApproachRow.steps),
    )


class ScoreRepository:
    """Score attempts and criteria. Methods are short transactions; none holds a transaction across I/O."""

    def __init__(self, session_factory: sessionmaker[DbSession]) -> None:
        self._sessions = session_factory

    @db_call
    def ensure_criteria(self, criteria_hash: str, criteria_content: dict[str, Any]) -> None:
        """Store a criteria definition once (idempotent)."""
        with self._sessions.begin() as db:
            db.execute(
                insert(ScoringCriteriaDefinitionRow)
                .values(criteria_hash=criteria_hash, criteria_content=criteria_content)
                .on_conflict_do_nothing(index_elements=["criteria_hash"])
            )

    @db_call
    def get_criteria(self, criteria_hash: str) -> StoredCriteria | None:
        with self._sessions() as db:
            row = db.get(ScoringCriteriaDefinitionRow, criteria_hash)
            if row is None:
                return None
            return StoredCriteria(row.criteria_hash, row.criteria_content, row.created_at)

    @db_call
    def create_attempt(
        self, score_id: uuid.UUID, session_id: str, criteria_hash: str, triggered_by: str, current_hash: str
    ) -> tuple[SessionScore, bool]:
        """Insert a pending attempt. Returns (attempt, created); when another active attempt exists, returns it."""
        try:
            with self._sessions.begin() as db:
                db.add(
                    SessionScoreRow(
                        score_id=score_id,
                        session_id=session_id,
                        criteria_hash=criteria_hash,
                        status="pending",
                        scored_triggered_by=triggered_by,
                    )
                )
        except IntegrityError:
            active = self.active_for_session(session_id, current_hash)
            if active is None:
                raise
            return active, False
        created = self.get(score_id, current_hash)
        assert created is not None
        return created, True

    @db_call
    def get(self, score_id: uuid.UUID, current_hash: str) -> SessionScore | None:
        with self._sessions() as db:
            row = db.scalars(
                select(SessionScoreRow).where(SessionScoreRow.score_id == score_id).options(*_with_children())
            ).one_or_none()
            return None if row is None else to_api_score(row, current_hash)

    def _latest(self, session_id: str, current_hash: str, statuses: Sequence[str] | None) -> SessionScore | None:
        with self._sessions() as db:
            query = select(SessionScoreRow).where(SessionScoreRow.session_id == session_id)
            if statuses is not None:
                query = query.where(SessionScoreRow.status.in_(statuses))
            row = db.scalars(
                query.order_by(SessionScoreRow.requested_at.desc(), SessionScoreRow.score_id.desc())
                .limit(1)
                .options(*_with_children())
            ).one_or_none()
            return None if row is None else to_api_score(row, current_hash)

    @db_call
    def latest_for_session(self, session_id: str, current_hash: str) -> SessionScore | None:
        return self._latest(session_id, current_hash, None)

    @db_call
    def latest_completed(self, session_id: str, current_hash: str) -> SessionScore | None:
        return self._latest(session_id, current_hash, ["completed"])

    @db_call
    def active_for_session(self, session_id: str, current_hash: str) -> SessionScore | None:
        return self._latest(session_id, current_hash, ACTIVE_STATUSES)

    @db_call
    def list_for_session(self, session_id: str, current_hash: str) -> list[SessionScore]:
        with self._sessions() as db:
            rows = db.scalars(
                select(SessionScoreRow)
                .where(SessionScoreRow.session_id == session_id)
                .order_by(SessionScoreRow.requested_at.desc(), SessionScoreRow.score_id.desc())
                .options(*_with_children())
            ).all()
            return [to_api_score(row, current_hash) for row in rows]

    @db_call
    def latest_for_sessions(self, session_ids: Sequence[str], current_hash: str) -> dict[str, LatestScore]:
        """The latest attempt of each session, in one query. A sequence, not an iterator: a retry reads it again."""
        ids = list(session_ids)
        if not ids:
            return {}
        with self._sessions() as db:
            rows = db.execute(
                select(
                    SessionScoreRow.session_id,
                    SessionScoreRow.score_id,
                    SessionScoreRow.status,
                    SessionScoreRow.total_score,
                    SessionScoreRow.criteria_hash,
                )
                .where(SessionScoreRow.session_id.in_(ids))
                .ext(distinct_on(SessionScoreRow.session_id))
                .order_by(
                    SessionScoreRow.session_id, SessionScoreRow.requested_at.desc(), SessionScoreRow.score_id.desc()
                )
            ).all()
            return {
                r.session_id: LatestScore(
                    score_id=r.score_id,
                    status=ScoreStatus(r.status),
                    total_score=r.total_score,
                    criteria_hash=r.criteria_hash,
                    is_current_criteria=r.criteria_hash == current_hash,
                )
                for r in rows
            }

    @db_call
    def claim(self, score_id: uuid.UUID, lease_seconds: int) -> ClaimResult:
        """Move a pending attempt (one whose lease expired, or a dead-lettered one redriven) to in_progress for this
        worker only."""
        token = uuid.uuid4()
        newer = aliased(SessionScoreRow)
        redriven = and_(
            # A dead-lettered attempt whose message came back (a redrive) is claimable again, unless the session has
            # been asked for since: its newer attempt wins.
            SessionScoreRow.status == "failed",
            SessionScoreRow.dead_lettered_at.is_not(None),
            ~exists().where(
                newer.session_id == SessionScoreRow.session_id, newer.requested_at > SessionScoreRow.requested_at
            ),
        )
        with self._sessions.begin() as db:
            try:
                with db.begin_nested():
                    claimed = db.execute(
                        update(SessionScoreRow)
                        .where(
                            SessionScoreRow.score_id == score_id,
                            or_(
                                SessionScoreRow.status == "pending",
                                and_(
                                    SessionScoreRow.status == "in_progress",
                                    SessionScoreRow.lease_expires_at < func.now(),
                                ),
                                redriven,
                            ),
                        )
                        .values(
                            status="in_progress",
                            started_at=func.now(),
                            claim_token=token,
                            lease_expires_at=func.now() + func.make_interval(0, 0, 0, 0, 0, 0, lease_seconds),
                            delivery_count=SessionScoreRow.delivery_count + 1,
                            dead_lettered_at=None,
                        )
                        .returning(SessionScoreRow.delivery_count, SessionScoreRow.lease_expires_at)
                    ).one_or_none()
            except IntegrityError:
                claimed = None  # a redriven attempt while the session has another active one: that one wins
            if claimed is not None:
                return ClaimResult(
                    True, token, ScoreStatus.IN_PROGRESS, claimed.lease_expires_at, claimed.delivery_count
                )
            current = db.execute(
                select(SessionScoreRow.status, SessionScoreRow.lease_expires_at, SessionScoreRow.delivery_count).where(
                    SessionScoreRow.score_id == score_id
                )
            ).one_or_none()
            if current is None:
                return ClaimResult(False)
            return ClaimResult(
                False, None, ScoreStatus(current.status), current.lease_expires_at, current.delivery_count
            )

    @db_call
    def complete(
        self,
        score_id: uuid.UUID,
        claim_token: uuid.UUID,
        criteria_hash: str,
        verdict: JudgeVerdict,
        prompt: PromptStats,
    ) -> bool:
        """Store the verdict with its missing tools, approaches and steps in one transaction.

        Returns False (and stores nothing) when this worker no longer holds the claim.
        """
        output = verdict.output
        with self._sessions.begin() as db:
            row = db.scalars(
                select(SessionScoreRow)
                .where(
                    SessionScoreRow.score_id == score_id,
                    SessionScoreRow.status == "in_progress",
                    SessionScoreRow.claim_token == claim_token,
                )
                .with_for_update()
            ).one_or_none()
            if row is None:
                return False
            row.status = "completed"
            row.criteria_hash = criteria_hash
            row.total_score = output.total_score
            row.score_breakdown = output.score_breakdown.model_dump()
            row.score_reasoning = output.score_reasoning
            row.scored_at = db.scalar(select(func.now()))
            row.error_message = None
            row.lease_expires_at = None
            row.judge_provider = verdict.provider
            row.judge_model = verdict.model
            row.input_tokens = verdict.usage.input_tokens
            row.output_tokens = verdict.usage.output_tokens
            row.cache_read_tokens = verdict.usage.cache_read_tokens
            row.cache_write_tokens = verdict.usage.cache_write_tokens
            row.judge_latency_ms = verdict.latency_ms
            row.prompt_compacted = prompt.compacted
            row.prompt_tokens_before = prompt.tokens_before
            row.prompt_tokens_after = prompt.tokens_after
            row.missing_tools = [
                MissingToolRow(position=i, tool_name=t.tool_name, rationale=t.rationale)
                for i, t in enumerate(output.missing_tools)
            ]
            row.alternative_approaches = [
                AlternativeApproachRow(
                    position=i,
                    name=a.name,
                    description=a.description,
                    steps=[
                        AlternativeApproachStepRow(step_order=n, step_description=step)
                        for n, step in enumerate(a.steps, start=1)
                    ],
                )
                for i, a in enumerate(output.alternative_approaches)
            ]
            return True

    def _transition(
        self, score_id: uuid.UUID, conditions: Sequence[ColumnElement[bool]], values: dict[str, Any]
    ) -> bool:
        """One conditional update of an attempt; True when the attempt was in the expected state and changed."""
        with self._sessions.begin() as db:
            changed = db.execute(
                update(SessionScoreRow)
                .where(SessionScoreRow.score_id == score_id, *conditions)
                .values(**values)
                .returning(SessionScoreRow.score_id)
            ).first()
            return changed is not None

    @db_call
    def fail(
        self, score_id: uuid.UUID, claim_token: uuid.UUID | None, message: str, *, dead_lettered: bool = False
    ) -> bool:
        """Mark an attempt failed with a readable reason. Without a token, any not-yet-final attempt is failed.

        ``dead_lettered``: its message is left to go to the dead-letter queue, from where a redrive may bring it back.
        """
        conditions: list[ColumnElement[bool]] = [SessionScoreRow.status.in_(ACTIVE_STATUSES)]
        if claim_token is not None:
            conditions.append(SessionScoreRow.claim_token == claim_token)
        return self._transition(
            score_id,
            conditions,
            {
                "status": "failed",
                "error_message": message,
                "lease_expires_at": None,
                "scored_at": None,
                "dead_lettered_at": func.now() if dead_lettered else None,
            },
        )

    @db_call
    def release(self, score_id: uuid.UUID, claim_token: uuid.UUID, message: str) -> bool:
        """Give a claimed attempt back (status pending, with a note why) so a later delivery can take it."""
        return self._transition(
            score_id,
            [SessionScoreRow.status == "in_progress", SessionScoreRow.claim_token == claim_token],
            {"status": "pending", "error_message": message, "claim_token": None, "lease_expires_at": None},
        )

    @db_call
    def reopen_failed(self, score_id: uuid.UUID, note: str) -> bool:
        """Return a failed attempt to pending (dead-letter redrive). Refused when the session has another active one."""
        try:
            return self._transition(
                score_id,
                [SessionScoreRow.status == "failed"],
                {
                    "status": "pending",
                    "error_message": note,
                    "claim_token": None,
                    "lease_expires_at": None,
                    "dead_lettered_at": None,
                },
            )
        except IntegrityError:
            return False

    @db_call
    def stranded(self, pending_after_seconds: int, limit: int) -> list[StrandedAttempt]:
        """Active attempts nobody is working on: ``in_progress`` with an expired lease, or ``pending`` with no
        activity (request or claim) for ``pending_after_seconds`` — longer than any delay a live message waits."""
        idle_since = func.greatest(
            SessionScoreRow.requested_at, func.coalesce(SessionScoreRow.started_at, SessionScoreRow.requested_at)
        )
        with self._sessions() as db:
            rows = db.execute(
                select(
                    SessionScoreRow.score_id,
                    SessionScoreRow.session_id,
                    SessionScoreRow.status,
                    SessionScoreRow.delivery_count,
                    SessionScoreRow.scored_triggered_by,
                    SessionScoreRow.requested_at,
                )
                .where(
                    # lets the planner use the partial index on active attempts
                    SessionScoreRow.status.in_(ACTIVE_STATUSES),
                    or_(
                        and_(SessionScoreRow.status == "in_progress", SessionScoreRow.lease_expires_at < func.now()),
                        and_(
                            SessionScoreRow.status == "pending",
                            idle_since < func.now() - func.make_interval(0, 0, 0, 0, 0, 0, pending_after_seconds),
                        ),
                    ),
                )
                .order_by(SessionScoreRow.requested_at)
                .limit(limit)
            ).all()
            return [
                StrandedAttempt(
                    r.score_id,
                    r.session_id,
                    ScoreStatus(r.status),
                    r.delivery_count,
                    r.scored_triggered_by,
                    r.requested_at,
                )
                for r in rows
            ]

    @db_call
    def count_by_status(self) -> dict[str, int]:
        with self._sessions() as db:
            rows = db.execute(select(SessionScoreRow.status, func.count()).group_by(SessionScoreRow.status)).all()
            return {str(status): int(count) for status, count in rows}

    @db_call
    def ping(self) -> None:
        with self._sessions() as db:
            db.execute(text("SELECT 1"))
