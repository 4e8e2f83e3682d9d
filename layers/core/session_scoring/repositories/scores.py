"""Score attempts and criteria definitions in PostgreSQL.

Every attempt is kept. A partial unique index allows one active (pending/in_progress) attempt per session, so two
racing requests cannot both queue one: a new attempt is one ``INSERT ... ON CONFLICT DO NOTHING RETURNING`` and the
index decides. A worker *claims* an attempt with a conditional update that sets a fresh ``claim_token`` and a lease;
only the holder of the token can complete or fail it, and an expired lease lets another worker take over (a worker
that died mid-job does not strand the attempt).

Each operation is **one statement** on an autocommit connection: atomic on its own, one round trip, no
BEGIN/COMMIT. Reads return an attempt with its children as JSON aggregates of the same statement; storing a
verdict updates the attempt and inserts all its child rows in one statement of data-modifying CTEs.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import (
    ColumnElement,
    Engine,
    Integer,
    Row,
    Select,
    String,
    Table,
    Text,
    and_,
    bindparam,
    column,
    exists,
    func,
    literal_column,
    null,
    or_,
    select,
    text,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB, UUID, aggregate_order_by, distinct_on, insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.sql.elements import ColumnClause

from session_scoring.db.calls import db_call
from session_scoring.db.schema import (
    AlternativeApproachRow,
    AlternativeApproachStepRow,
    MissingToolRow,
    ScoringCriteriaDefinitionRow,
    SessionScoreRow,
)
from session_scoring.models.judge import JudgeVerdict
from session_scoring.models.records import (
    ApproachRecord,
    ClaimResult,
    LatestScoreRecord,
    MissingToolRecord,
    NewAttempt,
    PromptStats,
    ScoreRecord,
    StoredCriteria,
    StrandedAttempt,
)
from session_scoring.models.scores import ACTIVE_STATUSES, ScoreStatus
from session_scoring.repositories.base import as_json_list

__all__ = ["ClaimResult", "PromptStats", "ScoreRepository", "StoredCriteria", "StrandedAttempt"]

_ACTIVE = tuple(sorted(status.value for status in ACTIVE_STATUSES))

_SCORES = cast(Table, SessionScoreRow.__table__)
_TOOLS = cast(Table, MissingToolRow.__table__)
_APPROACHES = cast(Table, AlternativeApproachRow.__table__)
_STEPS = cast(Table, AlternativeApproachStepRow.__table__)
_CRITERIA = cast(Table, ScoringCriteriaDefinitionRow.__table__)
_EMPTY: ColumnClause[Any] = literal_column("'[]'::json")

# Every column a record carries (the claim token, lease and delivery count stay inside the repository).
_RECORD_COLUMNS = [
    _SCORES.c[name]
    for name in (
        "score_id",
        "session_id",
        "criteria_hash",
        "status",
        "total_score",
        "score_breakdown",
        "score_reasoning",
        "scored_triggered_by",
        "requested_at",
        "started_at",
        "scored_at",
        "error_message",
        "judge_provider",
        "judge_model",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "judge_latency_ms",
        "prompt_compacted",
        "prompt_tokens_before",
        "prompt_tokens_after",
        "judging_ms",
        "estimated_cost_usd",
    )
]


def _children() -> list[Any]:
    """Correlated JSON aggregates of an attempt's missing tools and approaches (with steps), in stored order."""
    steps = (
        select(func.coalesce(func.json_agg(aggregate_order_by(_STEPS.c.step_description, _STEPS.c.step_order)), _EMPTY))
        .where(_STEPS.c.approach_id == _APPROACHES.c.id)
        .scalar_subquery()
    )
    approach = func.json_build_object(
        "name", _APPROACHES.c.name, "description", _APPROACHES.c.description, "steps", steps
    )
    tool = func.json_build_object("tool_name", _TOOLS.c.tool_name, "rationale", _TOOLS.c.rationale)
    return [
        select(func.coalesce(func.json_agg(aggregate_order_by(tool, _TOOLS.c.position)), _EMPTY))
        .where(_TOOLS.c.score_id == _SCORES.c.score_id)
        .scalar_subquery()
        .label("missing_tools_json"),
        select(func.coalesce(func.json_agg(aggregate_order_by(approach, _APPROACHES.c.position)), _EMPTY))
        .where(_APPROACHES.c.score_id == _SCORES.c.score_id)
        .scalar_subquery()
        .label("approaches_json"),
    ]


def _attempts() -> Select[Any]:
    return select(*_RECORD_COLUMNS, *_children())


_NEWEST_FIRST = (_SCORES.c.requested_at.desc(), _SCORES.c.score_id.desc())
_OF_SESSION = _SCORES.c.session_id == bindparam("p_session_id")

# The hot reads are built once: a request only binds its values (no statement construction or cache-key walk).
_BY_ID = _attempts().where(_SCORES.c.score_id == bindparam("p_score_id", type_=UUID(as_uuid=True)))
_LATEST = _attempts().where(_OF_SESSION).order_by(*_NEWEST_FIRST).limit(1)
_ACTIVE_ATTEMPT = _attempts().where(_OF_SESSION, _SCORES.c.status.in_(_ACTIVE)).order_by(*_NEWEST_FIRST).limit(1)
_ACTIVE_OR_LATEST_COMPLETED = (
    _attempts()
    .where(_OF_SESSION, _SCORES.c.status.in_((*_ACTIVE, "completed")))
    .order_by(_SCORES.c.status == "completed", *_NEWEST_FIRST)
    .limit(1)
)


def to_record(row: Row[Any]) -> ScoreRecord:
    """Explicit mapping from a result row (with or without the children's JSON) to the domain record."""
    values = row._mapping
    return ScoreRecord(
        score_id=values["score_id"],
        session_id=values["session_id"],
        criteria_hash=values["criteria_hash"],
        status=ScoreStatus(values["status"]),
        scored_triggered_by=values["scored_triggered_by"],
        requested_at=values["requested_at"],
        total_score=values["total_score"],
        score_breakdown=values["score_breakdown"],
        score_reasoning=values["score_reasoning"],
        missing_tools=tuple(
            MissingToolRecord(t["tool_name"], t["rationale"]) for t in as_json_list(values.get("missing_tools_json"))
        ),
        alternative_approaches=tuple(
            ApproachRecord(a["name"], a["description"], tuple(a["steps"] or ()))
            for a in as_json_list(values.get("approaches_json"))
        ),
        started_at=values["started_at"],
        scored_at=values["scored_at"],
        error_message=values["error_message"],
        judge_provider=values["judge_provider"],
        judge_model=values["judge_model"],
        input_tokens=values["input_tokens"],
        output_tokens=values["output_tokens"],
        cache_read_tokens=values["cache_read_tokens"],
        cache_write_tokens=values["cache_write_tokens"],
        judge_latency_ms=values["judge_latency_ms"],
        prompt_compacted=bool(values["prompt_compacted"]),
        prompt_tokens_before=values["prompt_tokens_before"],
        prompt_tokens_after=values["prompt_tokens_after"],
        judging_ms=values["judging_ms"],
        estimated_cost_usd=None if values["estimated_cost_usd"] is None else float(values["estimated_cost_usd"]),
    )


def _recordset(name: str, *columns: Any) -> Any:
    """Rows passed as one JSONB parameter and read back with ``jsonb_to_recordset`` (one statement shape for any
    number of rows, so it is compiled once)."""
    return func.jsonb_to_recordset(bindparam(name, type_=JSONB)).table_valued(*columns).render_derived(with_types=True)


def _store_verdict_statement() -> Any:
    """Complete a claimed attempt and insert its children, all in one statement; returns the score id when the
    claim still held (nothing is written otherwise)."""
    done = (
        update(_SCORES)
        .where(
            _SCORES.c.score_id == bindparam("p_score_id", type_=UUID(as_uuid=True)),
            _SCORES.c.status == "in_progress",
            _SCORES.c.claim_token == bindparam("p_claim_token", type_=UUID(as_uuid=True)),
        )
        .values(
            status="completed",
            scored_at=func.now(),
            error_message=null(),
            lease_expires_at=null(),
            # Parameter names differ from the column names: an UPDATE would read same-named keys as SET values.
            **{
                name: bindparam(f"p_{name}", type_=_SCORES.c[name].type)
                for name in (
                    "criteria_hash",
                    "total_score",
                    "score_breakdown",
                    "score_reasoning",
                    "judge_provider",
                    "judge_model",
                    "input_tokens",
                    "output_tokens",
                    "cache_read_tokens",
                    "cache_write_tokens",
                    "judge_latency_ms",
                    "prompt_compacted",
                    "prompt_tokens_before",
                    "prompt_tokens_after",
                    "judging_ms",
                    "estimated_cost_usd",
                )
            },
        )
        .returning(_SCORES.c.score_id)
        .cte("done")
    )
    tools = _recordset("p_tools", column("position", Integer), column("tool_name", String), column("rationale", Text))
    approaches = _recordset(
        "p_approaches",
        column("id", UUID),
        column("position", Integer),
        column("name", String),
        column("description", Text),
    )
    steps = _recordset(
        "p_steps", column("approach_id", UUID), column("step_order", Integer), column("step_description", Text)
    )
    insert_tools = (
        insert(_TOOLS)
        .from_select(
            ["id", "score_id", "position", "tool_name", "rationale"],
            select(func.gen_random_uuid(), done.c.score_id, tools.c.position, tools.c.tool_name, tools.c.rationale)
            .select_from(done)
            .join(tools, true()),
        )
        .cte("tools_stored")
    )
    insert_approaches = (
        insert(_APPROACHES)
        .from_select(
            ["id", "score_id", "position", "name", "description"],
            select(approaches.c.id, done.c.score_id, approaches.c.position, approaches.c.name, approaches.c.description)
            .select_from(done)
            .join(approaches, true()),
        )
        .cte("approaches_stored")
    )
    insert_steps = (
        insert(_STEPS)
        .from_select(
            ["id", "approach_id", "step_order", "step_description"],
            select(func.gen_random_uuid(), steps.c.approach_id, steps.c.step_order, steps.c.step_description)
            .select_from(done)
            .join(steps, true()),
        )
        .cte("steps_stored")
    )
    return select(done.c.score_id).add_cte(insert_tools, insert_approaches, insert_steps)


class ScoreRepository:
    """Score attempts and criteria. Every method is one statement; none holds a transaction across I/O."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._ensured: set[str] = set()
        self._store_verdict = _store_verdict_statement()

    def _one(self, statement: Any, params: dict[str, Any] | None = None) -> Row[Any] | None:
        with self._engine.connect() as conn:
            return conn.execute(statement, params or {}).first()

    def _run(self, statement: Any) -> None:
        with self._engine.connect() as conn:
            conn.execute(statement)

    def _all(self, statement: Any) -> Sequence[Row[Any]]:
        with self._engine.connect() as conn:
            return conn.execute(statement).all()

    @db_call
    def ensure_criteria(self, criteria_hash: str, criteria_content: dict[str, Any]) -> None:
        """Store a criteria definition (idempotent); once per process per hash, as definitions are never deleted."""
        if criteria_hash in self._ensured:
            return
        self._run(
            insert(_CRITERIA)
            .values(criteria_hash=criteria_hash, criteria_content=criteria_content)
            .on_conflict_do_nothing(index_elements=["criteria_hash"])
        )
        self._ensured.add(criteria_hash)

    @db_call
    def get_criteria(self, criteria_hash: str) -> StoredCriteria | None:
        row = self._one(select(_CRITERIA).where(_CRITERIA.c.criteria_hash == criteria_hash))
        return None if row is None else StoredCriteria(row.criteria_hash, row.criteria_content, row.created_at)

    @db_call
    def create_attempt(self, score_id: uuid.UUID, session_id: str, criteria_hash: str, triggered_by: str) -> NewAttempt:
        """Insert a pending attempt unless the session has an active one (the partial unique index decides); then
        return the active attempt instead, with ``created`` False."""
        inserted = self._one(
            insert(_SCORES)
            .values(
                score_id=score_id,
                session_id=session_id,
                criteria_hash=criteria_hash,
                status="pending",
                scored_triggered_by=triggered_by,
            )
            .on_conflict_do_nothing(index_elements=["session_id"], index_where=_SCORES.c.status.in_(_ACTIVE))
            .returning(*_RECORD_COLUMNS)
        )
        if inserted is not None:
            return NewAttempt(to_record(inserted), created=True)
        active = self.active_for_session(session_id)
        if active is None:  # the active attempt finished between the two statements: try once more
            return self.create_attempt(score_id, session_id, criteria_hash, triggered_by)
        # A retried insert whose first try committed finds its own row: it was created by this call.
        return NewAttempt(active, created=active.score_id == score_id)

    @db_call
    def get(self, score_id: uuid.UUID) -> ScoreRecord | None:
        row = self._one(_BY_ID, {"p_score_id": score_id})
        return None if row is None else to_record(row)

    def _latest(self, statement: Any, session_id: str) -> ScoreRecord | None:
        row = self._one(statement, {"p_session_id": session_id})
        return None if row is None else to_record(row)

    @db_call
    def latest_for_session(self, session_id: str) -> ScoreRecord | None:
        return self._latest(_LATEST, session_id)

    @db_call
    def active_for_session(self, session_id: str) -> ScoreRecord | None:
        return self._latest(_ACTIVE_ATTEMPT, session_id)

    @db_call
    def active_or_latest_completed(self, session_id: str) -> ScoreRecord | None:
        """The session's active attempt if it has one, else its latest completed attempt, in one statement."""
        return self._latest(_ACTIVE_OR_LATEST_COMPLETED, session_id)

    @db_call
    def list_for_session(self, session_id: str) -> list[ScoreRecord]:
        rows = self._all(_attempts().where(_SCORES.c.session_id == session_id).order_by(*_NEWEST_FIRST))
        return [to_record(row) for row in rows]

    @db_call
    def latest_for_sessions(self, session_ids: Sequence[str]) -> dict[str, LatestScoreRecord]:
        """The latest attempt of each session, in one query. A sequence, not an iterator: a retry reads it again."""
        ids = list(session_ids)
        if not ids:
            return {}
        rows = self._all(
            select(
                _SCORES.c.session_id,
                _SCORES.c.score_id,
                _SCORES.c.status,
                _SCORES.c.total_score,
                _SCORES.c.criteria_hash,
            )
            .where(_SCORES.c.session_id.in_(ids))
            .ext(distinct_on(_SCORES.c.session_id))
            .order_by(_SCORES.c.session_id, *_NEWEST_FIRST)
        )
        return {
            r.session_id: LatestScoreRecord(
                r.session_id, r.score_id, ScoreStatus(r.status), r.total_score, r.criteria_hash
            )
            for r in rows
        }

    @db_call
    def claim(self, score_id: uuid.UUID, lease_seconds: int) -> ClaimResult:
        """Move a pending attempt (one whose lease expired, or a dead-lettered one redriven) to in_progress for this
        worker only."""
        token = uuid.uuid4()
        newer = _SCORES.alias("newer")
        redriven = and_(
            # A dead-lettered attempt whose message came back (a redrive) is claimable again, unless the session has
            # been asked for since: its newer attempt wins.
            _SCORES.c.status == "failed",
            _SCORES.c.dead_lettered_at.is_not(None),
            ~exists().where(newer.c.session_id == _SCORES.c.session_id, newer.c.requested_at > _SCORES.c.requested_at),
        )
        try:
            claimed = self._one(
                update(_SCORES)
                .where(
                    _SCORES.c.score_id == score_id,
                    or_(
                        _SCORES.c.status == "pending",
                        and_(_SCORES.c.status == "in_progress", _SCORES.c.lease_expires_at < func.now()),
                        redriven,
                    ),
                )
                .values(
                    status="in_progress",
                    started_at=func.now(),
                    claim_token=token,
                    lease_expires_at=func.now() + func.make_interval(0, 0, 0, 0, 0, 0, lease_seconds),
                    delivery_count=_SCORES.c.delivery_count + 1,
                    dead_lettered_at=None,
                )
                .returning(_SCORES.c.delivery_count, _SCORES.c.lease_expires_at)
            )
        except IntegrityError:
            claimed = None  # a redriven attempt while the session has another active one: that one wins
        if claimed is not None:
            return ClaimResult(True, token, ScoreStatus.IN_PROGRESS, claimed.lease_expires_at, claimed.delivery_count)
        current = self._one(
            select(_SCORES.c.status, _SCORES.c.lease_expires_at, _SCORES.c.delivery_count).where(
                _SCORES.c.score_id == score_id
            )
        )
        if current is None:
            return ClaimResult(False)
        return ClaimResult(False, None, ScoreStatus(current.status), current.lease_expires_at, current.delivery_count)

    @db_call
    def complete(
        self,
        score_id: uuid.UUID,
        claim_token: uuid.UUID,
        criteria_hash: str,
        verdict: JudgeVerdict,
        prompt: PromptStats,
        judging_ms: int | None = None,
        estimated_cost_usd: float | None = None,
    ) -> bool:
        """Store the verdict with its missing tools, approaches and steps in one statement.

        ``judging_ms``: the whole judging (retries and waits included), beside the verdict's ``latency_ms``;
        ``estimated_cost_usd``: the verdict's tokens priced (None when the model has no price).
        Returns False (and stores nothing) when this worker no longer holds the claim.
        """
        output = verdict.output
        approach_ids = [uuid.uuid4() for _ in output.alternative_approaches]
        params: dict[str, Any] = {
            "p_score_id": score_id,
            "p_claim_token": claim_token,
            "p_criteria_hash": criteria_hash,
            "p_total_score": output.total_score,
            "p_score_breakdown": output.score_breakdown.model_dump(),
            "p_score_reasoning": output.score_reasoning,
            "p_judge_provider": verdict.provider,
            "p_judge_model": verdict.model,
            "p_input_tokens": verdict.usage.input_tokens,
            "p_output_tokens": verdict.usage.output_tokens,
            "p_cache_read_tokens": verdict.usage.cache_read_tokens,
            "p_cache_write_tokens": verdict.usage.cache_write_tokens,
            "p_judge_latency_ms": verdict.latency_ms,
            "p_prompt_compacted": prompt.compacted,
            "p_prompt_tokens_before": prompt.tokens_before,
            "p_prompt_tokens_after": prompt.tokens_after,
            "p_judging_ms": judging_ms,
            "p_estimated_cost_usd": estimated_cost_usd,
            "p_tools": [
                {"position": i, "tool_name": t.tool_name, "rationale": t.rationale}
                for i, t in enumerate(output.missing_tools)
            ],
            "p_approaches": [
                {"id": str(aid), "position": i, "name": a.name, "description": a.description}
                for i, (aid, a) in enumerate(zip(approach_ids, output.alternative_approaches, strict=True))
            ],
            "p_steps": [
                {"approach_id": str(aid), "step_order": n, "step_description": step}
                for aid, a in zip(approach_ids, output.alternative_approaches, strict=True)
                for n, step in enumerate(a.steps, start=1)
            ],
        }
        return self._one(self._store_verdict, params) is not None

    def _transition(
        self, score_id: uuid.UUID, conditions: Sequence[ColumnElement[bool]], values: dict[str, Any]
    ) -> bool:
        """One conditional update of an attempt; True when the attempt was in the expected state and changed."""
        changed = self._one(
            update(_SCORES)
            .where(_SCORES.c.score_id == score_id, *conditions)
            .values(**values)
            .returning(_SCORES.c.score_id)
        )
        return changed is not None

    @db_call
    def fail(
        self, score_id: uuid.UUID, claim_token: uuid.UUID | None, message: str, *, dead_lettered: bool = False
    ) -> bool:
        """Mark an attempt failed with a readable reason. Without a token, any not-yet-final attempt is failed.

        ``dead_lettered``: its message is left to go to the dead-letter queue, from where a redrive may bring it back.
        """
        conditions: list[ColumnElement[bool]] = [_SCORES.c.status.in_(_ACTIVE)]
        if claim_token is not None:
            conditions.append(_SCORES.c.claim_token == claim_token)
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
            [_SCORES.c.status == "in_progress", _SCORES.c.claim_token == claim_token],
            {"status": "pending", "error_message": message, "claim_token": None, "lease_expires_at": None},
        )

    @db_call
    def reopen_failed(self, score_id: uuid.UUID, note: str) -> bool:
        """Return a failed attempt to pending (dead-letter redrive). Refused when the session has another active one."""
        try:
            return self._transition(
                score_id,
                [_SCORES.c.status == "failed"],
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
        idle_since = func.greatest(_SCORES.c.requested_at, func.coalesce(_SCORES.c.started_at, _SCORES.c.requested_at))
        rows = self._all(
            select(
                _SCORES.c.score_id,
                _SCORES.c.session_id,
                _SCORES.c.status,
                _SCORES.c.delivery_count,
                _SCORES.c.scored_triggered_by,
                _SCORES.c.requested_at,
            )
            .where(
                _SCORES.c.status.in_(_ACTIVE),  # lets the planner use the partial index on active attempts
                or_(
                    and_(_SCORES.c.status == "in_progress", _SCORES.c.lease_expires_at < func.now()),
                    and_(
                        _SCORES.c.status == "pending",
                        idle_since < func.now() - func.make_interval(0, 0, 0, 0, 0, 0, pending_after_seconds),
                    ),
                ),
            )
            .order_by(_SCORES.c.requested_at)
            .limit(limit)
        )
        return [
            StrandedAttempt(
                r.score_id, r.session_id, ScoreStatus(r.status), r.delivery_count, r.scored_triggered_by, r.requested_at
            )
            for r in rows
        ]

    @db_call
    def count_by_status(self) -> dict[str, int]:
        rows = self._all(select(_SCORES.c.status, func.count().label("attempts")).group_by(_SCORES.c.status))
        return {str(row.status): int(row.attempts) for row in rows}

    @db_call
    def ping(self) -> None:
        self._one(text("SELECT 1"))
