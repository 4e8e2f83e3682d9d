"""Scoring runs in PostgreSQL: the run rows, their attempts (``session_scores.run_id``) and their counts.

The planner's writes are built so a planner killed at any point resumes without duplicates: attempts are inserted
with ``ON CONFLICT DO NOTHING`` (the partial unique index on active attempts skips a session someone else is
scoring; the one on ``(run_id, session_id)`` makes a replayed page a no-op), and the page cursor only moves forward
from the page the caller read, under the run row's lock.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Select, and_, bindparam, case, exists, func, or_, select, true, update
from sqlalchemy.dialects.postgresql import aggregate_order_by, insert

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.models.records import PromptStats, SessionFacts
from session_scoring.repositories.base import TransactionRepository, columns_of, from_row, insert_criteria, seconds
from session_scoring.repositories.facts import fact_values

_ACTIVE = ("pending", "in_progress")
TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
"""The token counts of a run's usage."""
_SCORES = schema.session_scores
_RUNS = schema.scoring_runs
_REFERENCES = schema.session_references
_UPLOADS = schema.uploaded_sessions
_PROMPT_COLUMNS = {
    "compacted": "prompt_compacted",
    "tokens_before": "prompt_tokens_before",
    "tokens_after": "prompt_tokens_after",
    "reference_source": "reference_source",
    "masked_values": "masked_values",
}
"""The columns of a score's ``PromptStats``, by field (kept from submission to result in batch mode)."""


@dataclass(frozen=True)
class ModelUsage:
    """Judge usage of a run's completed attempts with one model."""

    model: str | None
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


@dataclass(frozen=True)
class RunRecord:
    """A run row with its live counts (attempts by status) and usage, read in one transaction."""

    run_id: uuid.UUID
    name: str
    status: str
    mode: str
    selection: dict[str, Any]
    max_sessions: int
    max_cost_usd: Decimal | None
    criteria_hash: str
    judge_model: str
    started_by: str
    created_at: datetime
    started_at: datetime | None
    planned_at: datetime | None
    finished_at: datetime | None
    next_page: int
    sessions_seen: int
    skipped: dict[str, int]
    estimated_input_tokens: int | None
    estimated_output_tokens: int | None
    estimated_cost_per_session_usd: Decimal | None
    stop_reason: str | None
    error_message: str | None
    counts: dict[str, int] = field(default_factory=dict)
    usage: list[ModelUsage] = field(default_factory=list)
    now: datetime | None = None

    @property
    def attempts(self) -> int:
        return sum(self.counts.values())

    @property
    def active(self) -> int:
        return sum(self.counts.get(status, 0) for status in _ACTIVE)


@dataclass(frozen=True)
class SessionScoreState:
    """What the scores table says about one session, for a run's selection."""

    any_completed: bool
    current_completed: bool
    active: bool
    latest_status: str | None
    latest_current_score: int | None
    in_run: str | None
    """The status of this run's own attempt for the session, when it has one."""
    in_run_score_id: uuid.UUID | None = None


@dataclass(frozen=True)
class InsertedAttempts:
    created: list[tuple[uuid.UUID, str]]
    """(score_id, session_id) of the attempts this call created."""
    already_active: list[str]
    """Sessions skipped because another attempt of theirs is active (the one-active-attempt rule)."""
    run_open: bool
    """False when the run was no longer planning (cancelled meanwhile): nothing was inserted."""


@dataclass(frozen=True)
class BatchAttempt:
    """An attempt of a batch-mode run as the batch poller handles it (claimed: it holds ``claim_token``)."""

    score_id: uuid.UUID
    session_id: str
    run_id: uuid.UUID
    claim_token: uuid.UUID
    delivery_count: int
    prompt: PromptStats


@dataclass(frozen=True)
class RunAttempt:
    """One attempt of a run, as a run's session list shows it."""

    score_id: uuid.UUID
    session_id: str
    status: str
    total_score: int | None
    error_message: str | None
    requested_at: datetime
    scored_at: datetime | None


@dataclass(frozen=True)
class RunAttemptPage:
    """A page of a run's attempts with the run's counts, read in one snapshot."""

    attempts: list[RunAttempt]
    total: int
    """The attempts the page's filter selects."""
    counts: dict[str, int]
    """All the run's attempts by status."""
    skipped: dict[str, int]
    """The sessions the run's selection skipped, by reason."""


@dataclass(frozen=True)
class RunScoreChange:
    """A completed attempt of a run with the session's completed score before it (any criteria), if any."""

    session_id: str
    total_score: int
    criteria_hash: str
    previous_score: int | None
    previous_criteria_hash: str | None


class RunRepository(TransactionRepository):
    """Scoring runs. Every method is one short transaction (on the transactional engine: a run's writes lock its
    row); none holds one across I/O."""

    @db_call
    def create(self, run_id: uuid.UUID, criteria_content: dict[str, Any], **columns: Any) -> None:
        """Store a new run (planning) with ``columns`` of its row, and its criteria definition when it is new (its
        attempts reference it)."""
        with self._engine.begin() as db:
            db.execute(insert_criteria(columns["criteria_hash"], criteria_content))
            db.execute(insert(_RUNS).values(run_id=run_id, status="planning", **columns))

    @staticmethod
    def _counts(db: Connection, ids: Sequence[uuid.UUID]) -> dict[uuid.UUID, dict[str, int]]:
        """The attempts of each run in ``ids`` by status."""
        counts: dict[uuid.UUID, dict[str, int]] = {run_id: {} for run_id in ids}
        if ids:
            for run_id, status, count in db.execute(
                select(_SCORES.c.run_id, _SCORES.c.status, func.count())
                .where(_SCORES.c.run_id.in_(ids))
                .group_by(_SCORES.c.run_id, _SCORES.c.status)
            ).all():
                counts[run_id][str(status)] = int(count)
        return counts

    def _load(self, db: Connection, rows: Sequence[Any]) -> list[RunRecord]:
        ids = [row.run_id for row in rows]
        counts = self._counts(db, ids)
        usage: dict[uuid.UUID, list[ModelUsage]] = {run_id: [] for run_id in ids}
        if ids:
            for r in db.execute(
                select(
                    _SCORES.c.run_id,
                    _SCORES.c.judge_model.label("model"),
                    *[func.coalesce(func.sum(_SCORES.c[name]), 0).label(name) for name in TOKENS],
                )
                .where(_SCORES.c.run_id.in_(ids), _SCORES.c.status == "completed")
                .group_by(_SCORES.c.run_id, _SCORES.c.judge_model)
            ).all():
                usage[r.run_id].append(from_row(ModelUsage, r))
        now = db.scalar(select(func.now()))
        assert now is not None
        return [
            from_row(
                RunRecord,
                row,
                selection=dict(row.selection),
                skipped={str(k): int(v) for k, v in (row.skipped or {}).items()},
                counts=counts[row.run_id],
                usage=usage[row.run_id],
                now=now,
            )
            for row in rows
        ]

    @db_call
    def get(self, run_id: uuid.UUID) -> RunRecord | None:
        with self._engine.connect() as db:
            row = db.execute(select(_RUNS).where(_RUNS.c.run_id == run_id)).first()
            return None if row is None else self._load(db, [row])[0]

    def _newest(self, db: Connection, query: Select[Any], limit: int, offset: int | None = None) -> list[RunRecord]:
        """The runs ``query`` selects, newest first."""
        newest = query.order_by(_RUNS.c.created_at.desc(), _RUNS.c.run_id.desc()).offset(offset).limit(limit)
        return self._load(db, db.execute(newest).all())

    @db_call
    def list_page(self, page: int, page_size: int) -> tuple[list[RunRecord], int]:
        """One page of runs, newest first, and the total number of runs."""
        with self._engine.connect() as db:
            total = int(db.scalar(select(func.count()).select_from(_RUNS)) or 0)
            return self._newest(db, select(_RUNS), page_size, (page - 1) * page_size), total

    @db_call
    def list_attempts(
        self, run_id: uuid.UUID, page: int, page_size: int, status: str | None = None
    ) -> RunAttemptPage | None:
        """One page of the run's attempts by session id (``status`` filters them), their total and the run's counts
        (all its attempts by status, and what its selection skipped); None when there is no such run. Read in one
        REPEATABLE READ snapshot, so the counts are those of the rows listed. Session id order is stable while the
        run is under way (an attempt never changes its session)."""
        s = _SCORES
        where = [s.c.run_id == run_id] if status is None else [s.c.run_id == run_id, s.c.status == status]
        with self._engine.connect() as conn:
            db = conn.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
            with db.begin():
                run = db.execute(
                    select(
                        _RUNS.c.skipped,
                        select(func.count()).select_from(s).where(*where).scalar_subquery().label("total"),
                    ).where(_RUNS.c.run_id == run_id)
                ).one_or_none()
                if run is None:
                    return None
                rows = db.execute(
                    select(*columns_of(RunAttempt, s))
                    .where(*where)
                    .order_by(s.c.session_id)
                    .offset((page - 1) * page_size)
                    .limit(page_size)
                ).all()
                counts = self._counts(db, [run_id])[run_id]
            return RunAttemptPage(
                attempts=[from_row(RunAttempt, r) for r in rows],
                total=int(run.total),
                counts=counts,
                skipped={str(k): int(v) for k, v in (run.skipped or {}).items()},
            )

    @db_call
    def score_changes(self, run_id: uuid.UUID) -> list[RunScoreChange] | None:
        """Each completed attempt of the run beside the session's latest completed score requested before it (under
        any criteria; ensemble samples aside), by session id; None when there is no such run. One statement: a
        lateral probe per attempt on the session's attempts (``ix_session_scores_session_requested``)."""
        s = _SCORES
        before = s.alias("before")
        previous = (
            select(before.c.total_score.label("previous_score"), before.c.criteria_hash.label("previous_criteria_hash"))
            .where(
                before.c.session_id == s.c.session_id,
                before.c.status == "completed",
                before.c.sample_kind.is_(None),
                before.c.requested_at < s.c.requested_at,
            )
            .order_by(before.c.requested_at.desc(), before.c.score_id.desc())
            .limit(1)
            .lateral("previous")
        )
        with self._engine.connect() as db:
            if not db.scalar(select(exists().where(_RUNS.c.run_id == run_id))):
                return None
            rows = db.execute(
                select(
                    s.c.session_id,
                    s.c.total_score,
                    s.c.criteria_hash,
                    previous.c.previous_score,
                    previous.c.previous_criteria_hash,
                )
                .select_from(s.outerjoin(previous, true()))
                .where(s.c.run_id == run_id, s.c.status == "completed", s.c.total_score.is_not(None))
                .order_by(s.c.session_id)
            ).all()
            return [from_row(RunScoreChange, r) for r in rows]

    @db_call
    def session_states(
        self, run_id: uuid.UUID, session_ids: Sequence[str], current_hash: str
    ) -> dict[str, SessionScoreState]:
        """For each session with any attempt: what the selection needs to know, in one query."""
        ids = list(session_ids)
        if not ids:
            return {}
        s = _SCORES
        newest = (s.c.requested_at.desc(), s.c.score_id.desc())
        completed_current = and_(s.c.status == "completed", s.c.criteria_hash == current_hash)
        with self._engine.connect() as db:
            rows = db.execute(
                select(
                    s.c.session_id,
                    func.bool_or(s.c.status == "completed").label("any_completed"),
                    func.bool_or(completed_current).label("current_completed"),
                    func.bool_or(s.c.status.in_(_ACTIVE)).label("active"),
                    func.max(case((s.c.run_id == run_id, s.c.status))).label("in_run"),
                    func.array_agg(s.c.score_id).filter(s.c.run_id == run_id)[1].label("in_run_score_id"),
                    func.array_agg(aggregate_order_by(s.c.status, *newest))[1].label("latest_status"),
                    func.array_agg(aggregate_order_by(s.c.total_score, *newest))
                    .filter(completed_current)[1]
                    .label("latest_current_score"),
                )
                # Judge-quality samples are never a session's score: they neither score nor block a session here.
                .where(s.c.session_id.in_(ids), s.c.sample_kind.is_(None))
                .group_by(s.c.session_id)
            ).all()
            return {r.session_id: from_row(SessionScoreState, r) for r in rows}

    @db_call
    def sessions_with_reference(self, session_ids: Sequence[str]) -> set[str]:
        """Those of ``session_ids`` with a reference root cause: set through the labels API, in the imported document,
        or from the session source when an earlier score was judged against it; one query of index probes."""
        ids = list(session_ids)
        if not ids:
            return set()
        r, newer = _REFERENCES, _REFERENCES.alias("newer_reference")
        labelled = select(r.c.session_id).where(
            r.c.session_id.in_(ids),
            r.c.root_cause.is_not(None),
            ~exists().where(newer.c.session_id == r.c.session_id, newer.c.revision > r.c.revision),
        )
        imported = select(_UPLOADS.c.session_id).where(
            _UPLOADS.c.session_id.in_(ids), _UPLOADS.c.session["reference_root_cause"].astext.is_not(None)
        )
        from_source = select(_SCORES.c.session_id).where(
            _SCORES.c.session_id.in_(ids), _SCORES.c.reference_source == "source"
        )
        return {row[0] for row in self._all(labelled.union(imported, from_source))}

    @db_call
    def insert_attempts(
        self, run_id: uuid.UUID, criteria_hash: str, triggered_by: str, facts: Mapping[str, SessionFacts]
    ) -> InsertedAttempts:
        """Create a pending attempt of the run for each session of ``facts`` (with its facts) while the run is
        planning, in one ``INSERT ... ON CONFLICT DO NOTHING``: a session with an active attempt (or already in this
        run) is reported. The run row is locked so a cancel cannot interleave."""
        with self._engine.begin() as db:
            status = db.scalar(select(_RUNS.c.status).where(_RUNS.c.run_id == run_id).with_for_update())
            if status != "planning":
                return InsertedAttempts([], [], False)
            if not facts:
                return InsertedAttempts([], [], True)
            inserted = db.execute(
                insert(_SCORES)
                .values(
                    [
                        {
                            "score_id": uuid.uuid4(),
                            "session_id": session_id,
                            "criteria_hash": criteria_hash,
                            "status": "pending",
                            "scored_triggered_by": triggered_by,
                            "run_id": run_id,
                            **fact_values(session_facts),
                        }
                        for session_id, session_facts in facts.items()
                    ]
                )
                .on_conflict_do_nothing()
                .returning(_SCORES.c.score_id, _SCORES.c.session_id)
            ).all()
            created = [(r.score_id, r.session_id) for r in inserted]
            done = {session_id for _, session_id in created}
            return InsertedAttempts(created, [sid for sid in facts if sid not in done], True)

    @db_call
    def advance(
        self,
        run_id: uuid.UUID,
        page: int,
        *,
        sessions_seen: int,
        skipped: Mapping[str, int],
        finished: bool,
        stop_reason: str | None = None,
        estimate: tuple[int, int, Decimal | None] | None = None,
    ) -> bool:
        """Record that ``page`` was planned: move the cursor past it, add its counts, and end planning when
        ``finished``. False (nothing changed) when the run is no longer planning or the cursor already moved."""
        with self._engine.begin() as db:
            row = db.execute(select(_RUNS).where(_RUNS.c.run_id == run_id).with_for_update()).first()
            if row is None or row.status != "planning" or row.next_page != page:
                return False
            merged = dict(row.skipped or {})
            for reason, count in skipped.items():
                merged[reason] = int(merged.get(reason, 0)) + count
            values: dict[str, Any] = {
                "next_page": page + 1,
                "sessions_seen": row.sessions_seen + sessions_seen,
                "skipped": merged,
            }
            if row.started_at is None:
                values["started_at"] = func.now()
            if estimate is not None and row.estimated_input_tokens is None:
                names = ("estimated_input_tokens", "estimated_output_tokens", "estimated_cost_per_session_usd")
                values.update(zip(names, estimate, strict=True))
            if finished:
                values.update(status="running", planned_at=func.now(), stop_reason=stop_reason)
            db.execute(update(_RUNS).where(_RUNS.c.run_id == run_id).values(**values))
            return True

    @db_call
    def fail(self, run_id: uuid.UUID, message: str) -> None:
        """End a run whose planning failed for good; its queued attempts still run (they are ordinary attempts)."""
        with self._engine.begin() as db:
            db.execute(
                update(_RUNS)
                .where(_RUNS.c.run_id == run_id, _RUNS.c.status == "planning")
                .values(status="failed", error_message=message, finished_at=func.now())
            )

    @db_call
    def cancel(self, run_id: uuid.UUID, note: str) -> int | None:
        """Cancel a planning or running run and every attempt of it no scorer has claimed: how many attempts were
        cancelled, or None if the run had ended."""
        with self._engine.begin() as db:
            changed = db.execute(
                update(_RUNS)
                .where(_RUNS.c.run_id == run_id, _RUNS.c.status.in_(("planning", "running")))
                .values(status="cancelled", finished_at=func.now(), stop_reason=note)
                .returning(_RUNS.c.run_id)
            ).first()
            if changed is None:
                return None
            return self._cancel_pending(db, run_id, note)

    @staticmethod
    def _cancel_pending(db: Connection, run_id: uuid.UUID, note: str) -> int:
        """Cancel the run's attempts no scorer holds: pending ones, and those waiting in a Message Batch (the service
        cancels their batch and ignores a late result)."""
        s = _SCORES
        result = db.execute(
            update(s)
            .where(
                s.c.run_id == run_id,
                or_(s.c.status == "pending", and_(s.c.status == "in_progress", s.c.batch_id.is_not(None))),
            )
            .values(status="cancelled", error_message=note, claim_token=None, lease_expires_at=None)
        )
        return int(result.rowcount)

    @db_call
    def settle(self, run_id: uuid.UUID) -> int:
        """Bring a run's status up to date after one of its attempts moved; how many attempts it cancelled: a running
        run with no active attempt left is completed, a cancelled run's attempts back to pending are cancelled."""
        with self._engine.begin() as db:
            status, note = db.execute(
                select(_RUNS.c.status, _RUNS.c.stop_reason).where(_RUNS.c.run_id == run_id)
            ).one_or_none() or (None, None)
            if status == "cancelled":
                return self._cancel_pending(db, run_id, note or "the run was cancelled")
            active = exists().where(_SCORES.c.run_id == run_id, _SCORES.c.status.in_(_ACTIVE))
            db.execute(
                update(_RUNS)
                .where(_RUNS.c.run_id == run_id, _RUNS.c.status == "running", ~active)
                .values(status="completed", finished_at=func.now())
            )
            return 0

    @db_call
    def average_usage(self, model: str) -> tuple[float | None, float | None]:
        """Average (output tokens, judge latency in ms) of the last 200 completed attempts with ``model``."""
        recent = (
            select(_SCORES.c.output_tokens, _SCORES.c.judge_latency_ms)
            .where(_SCORES.c.status == "completed", _SCORES.c.judge_model == model)
            .order_by(_SCORES.c.scored_at.desc())
            .limit(200)
            .subquery()
        )
        row = self._one(select(func.avg(recent.c.output_tokens), func.avg(recent.c.judge_latency_ms)))
        assert row is not None
        tokens, latency = (None if value is None else float(value) for value in row)
        return tokens, latency

    # --- batch mode: the batch poller's reads and writes -------------------------------------------------------

    @db_call
    def claim_for_batch(self, limit: int, lease_seconds: int) -> list[BatchAttempt]:
        """Claim up to ``limit`` attempts of batch-mode runs that wait for submission (pending with no batch, or
        claimed by a poller that died before recording its batch, once the lease ran out), with one claim token;
        ``SKIP LOCKED``: two pollers never claim the same."""
        s = _SCORES
        r = _RUNS
        token = uuid.uuid4()
        picked = (
            select(s.c.score_id)
            .join(r, r.c.run_id == s.c.run_id)
            .where(
                r.c.mode == "batch",
                # A run whose planning failed: its attempts still run.
                r.c.status.in_(("planning", "running", "failed")),
                s.c.batch_id.is_(None),
                or_(s.c.status == "pending", and_(s.c.status == "in_progress", s.c.lease_expires_at < func.now())),
            )
            .order_by(s.c.requested_at, s.c.score_id)
            .limit(limit)
            .with_for_update(of=s, skip_locked=True)
            .cte("picked")
        )
        with self._engine.begin() as db:
            rows = db.execute(
                update(s)
                .where(s.c.score_id == picked.c.score_id)
                .values(
                    status="in_progress",
                    started_at=func.now(),
                    claim_token=token,
                    lease_expires_at=func.now() + seconds(lease_seconds),
                    delivery_count=s.c.delivery_count + 1,
                )
                .returning(s.c.score_id, s.c.session_id, s.c.run_id, s.c.delivery_count)
            ).all()
        return [from_row(BatchAttempt, row, claim_token=token, prompt=PromptStats(False, None, None)) for row in rows]

    @db_call
    def mark_submitted(self, batch_id: str, claim_token: uuid.UUID, prompts: Mapping[uuid.UUID, PromptStats]) -> None:
        """Record the batch the claimed attempts (at least one) went into, with their prompt stats; they wait in it,
        without a lease, until the poller collects its results."""
        s = _SCORES
        statement = (
            update(s)
            .where(s.c.score_id == bindparam("b_score_id"), s.c.claim_token == claim_token, s.c.status == "in_progress")
            .values(
                batch_id=batch_id,
                lease_expires_at=None,
                **{column: bindparam(f"b_{name}") for name, column in _PROMPT_COLUMNS.items()},
            )
        )
        rows = [
            {"b_score_id": score_id, **{f"b_{k}": v for k, v in asdict(p).items()}} for score_id, p in prompts.items()
        ]
        with self._engine.begin() as db:
            db.execute(statement, rows)

    @db_call
    def open_batches(self) -> list[str]:
        """Batches that still hold attempts waiting for their result, oldest first."""
        s = _SCORES
        rows = self._all(
            select(s.c.batch_id, func.min(s.c.started_at).label("since"))
            .where(s.c.batch_id.is_not(None), s.c.status == "in_progress")
            .group_by(s.c.batch_id)
            .order_by("since")
        )
        return [str(row.batch_id) for row in rows]

    @db_call
    def batch_attempts(self, batch_id: str) -> dict[str, BatchAttempt]:
        """The attempts still waiting in ``batch_id``, by score id (the batch requests' ``custom_id``)."""
        s = _SCORES
        rows = self._all(
            select(*columns_of(BatchAttempt, s), *[s.c[column] for column in _PROMPT_COLUMNS.values()]).where(
                s.c.batch_id == batch_id, s.c.status == "in_progress"
            )
        )
        return {
            str(row.score_id): from_row(
                BatchAttempt, row, prompt=PromptStats(**{name: getattr(row, c) for name, c in _PROMPT_COLUMNS.items()})
            )
            for row in rows
        }

    @db_call
    def return_to_batch(self, score_id: uuid.UUID, claim_token: uuid.UUID, note: str) -> bool:
        """Give a claimed batch attempt back (pending, no batch, with a note) for the next submission."""
        s = _SCORES
        with self._engine.begin() as db:
            changed = db.execute(
                update(s)
                .where(s.c.score_id == score_id, s.c.claim_token == claim_token, s.c.status == "in_progress")
                .values(status="pending", batch_id=None, claim_token=None, lease_expires_at=None, error_message=note)
                .returning(s.c.score_id)
            ).first()
            return changed is not None

    @db_call
    def run_batches(self, run_id: uuid.UUID) -> list[str]:
        """The batches in which the run has attempts waiting (to cancel them with the run)."""
        s = _SCORES
        rows = self._all(
            select(s.c.batch_id)
            .where(s.c.run_id == run_id, s.c.batch_id.is_not(None), s.c.status == "in_progress")
            .distinct()
        )
        return [str(row.batch_id) for row in rows]

    @db_call
    def stuck_planning(self, older_than_seconds: int) -> int:
        """Runs still planning ``older_than_seconds`` after they were created (a planner that stopped moving)."""
        r = _RUNS
        stale = r.c.created_at < func.now() - seconds(older_than_seconds)
        row = self._one(select(func.count()).select_from(r).where(r.c.status == "planning", stale))
        return int(row[0]) if row is not None else 0

    @db_call
    def stalled_planning(self, older_than_seconds: int, limit: int) -> list[tuple[uuid.UUID, int]]:
        """Runs still planning ``older_than_seconds`` after they were created (0: every planning run), oldest first,
        each with the page its planning stands at: what the reaper re-sends a planning message for."""
        r = _RUNS
        query = select(r.c.run_id, r.c.next_page).where(r.c.status == "planning")
        if older_than_seconds > 0:
            query = query.where(r.c.created_at < func.now() - seconds(older_than_seconds))
        return [(row.run_id, int(row.next_page)) for row in self._all(query.order_by(r.c.created_at).limit(limit))]

    @db_call
    def runs_started_by(self, started_by: str, since: datetime | None = None, limit: int = 1000) -> list[RunRecord]:
        """Runs started by ``started_by`` (created at or after ``since``), newest first, with their counts."""
        query = select(_RUNS).where(_RUNS.c.started_by == started_by)
        if since is not None:
            query = query.where(_RUNS.c.created_at >= since)
        with self._engine.connect() as db:
            return self._newest(db, query, limit)
