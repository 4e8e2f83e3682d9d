"""Score attempts and criteria definitions in PostgreSQL, each operation **one statement**.

Every attempt is kept. A partial unique index allows one active (pending/in_progress) attempt per session: a new
attempt is one ``INSERT ... ON CONFLICT DO NOTHING RETURNING`` and the index decides between racing requests. A
worker *claims* an attempt with a fresh ``claim_token`` and a short lease, which it renews while it works; only the
token's holder can renew, complete, fail or release it, and an expired lease lets another worker take over. Reads
return an attempt with its children as JSON aggregates; storing a verdict is one statement of data-modifying CTEs.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import fields
from datetime import datetime
from functools import cache, cached_property
from typing import Any

from sqlalchemy import (
    JSON,
    ColumnElement,
    Connection,
    DateTime,
    Engine,
    Integer,
    Row,
    Select,
    String,
    Text,
    and_,
    bindparam,
    column,
    exists,
    func,
    literal,
    literal_column,
    null,
    or_,
    select,
    text,
    true,
    type_coerce,
    update,
)
from sqlalchemy.dialects.postgresql import JSONB, UUID, aggregate_order_by, insert
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.sql.elements import ColumnClause

from session_scoring.configuration.criteria import default_rubric
from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.errors import AttemptConflictError
from session_scoring.log import logger
from session_scoring.models.judge import JudgeVerdict
from session_scoring.models.records import (
    ApproachRecord,
    ClaimResult,
    MissingToolRecord,
    NewAttempt,
    PromptStats,
    ScoreRecord,
    SessionFacts,
    StoredCriteria,
    StrandedAttempt,
)
from session_scoring.models.scores import ACTIVE_STATUSES, ScoreStatus
from session_scoring.models.tools import ToolNamer
from session_scoring.repositories.base import (
    StatementRepository,
    as_json_list,
    columns_of,
    from_row,
    insert_criteria,
    seconds,
)
from session_scoring.repositories.facts import FACT_COLUMNS, fact_values, facts_from
from session_scoring.repositories.read_models import (
    comparison,
    latest_scores,
    latest_tools,
    outcomes,
    score_counts,
    tool_counts,
    trends,
)
from session_scoring.repositories.routines import Routine, as_routine, install, is_missing
from session_scoring.repositories.writebacks import writeback_document, writeback_from

_ACTIVE = tuple(sorted(status.value for status in ACTIVE_STATUSES))
_ACTIVE_PREDICATE = text("status IN ({})".format(", ".join(f"'{status}'" for status in _ACTIVE)))
"""The predicate of the partial unique index of active attempts, as literal SQL."""

_SCORES = schema.session_scores
_TOOLS = schema.score_missing_tools
_APPROACHES = schema.score_alternative_approaches
_STEPS = schema.score_alternative_approach_steps
_CRITERIA = schema.scoring_criteria_definitions
_RUNS = schema.scoring_runs
_EMPTY: ColumnClause[Any] = literal_column("'[]'::json")

# What a verdict sets on its attempt (and a judge-quality sample is stored with).
_VERDICT_COLUMNS = (
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
    "score_spread",
    "judging_ms",
    "estimated_cost_usd",
    "outcome",
    "outcome_reason",
    "reference_source",
    "ceiling_value",
    "failure_tags",
    "claims",
    "masked_values",
)

# Every column a record carries (the claim token, lease and delivery count stay inside the repository).
CREATE_ATTEMPT_TRIES = 3
"""Inserts a score request tries when each finds an active attempt that has ended by the time it is read."""

_RECORD_COLUMNS = [
    _SCORES.c[name]
    for name in (
        "score_id",
        "session_id",
        "status",
        "scored_triggered_by",
        "requested_at",
        "started_at",
        "scored_at",
        "error_message",
        "run_id",
        *_VERDICT_COLUMNS,
    )
] + FACT_COLUMNS


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
    tool = func.json_build_object(
        "tool_name", _TOOLS.c.tool_name, "rationale", _TOOLS.c.rationale, "canonical_name", _TOOLS.c.canonical_name
    )
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
    # The children's JSON typed as such (no conversion: the driver decodes it), so that a read can be a routine.
    return select(
        *_RECORD_COLUMNS,
        *[type_coerce(child, JSON).label(child.name) for child in _children()],
        type_coerce(writeback_document(), JSON).label("writeback_json"),
    )


_NEWEST_FIRST = (_SCORES.c.requested_at.desc(), _SCORES.c.score_id.desc())
_OF_SESSION = _SCORES.c.session_id == bindparam("p_session_id", type_=String)
_NOT_SAMPLE = _SCORES.c.sample_kind.is_(None)
"""A session's own score, not a judge-quality sample (migration 0010): samples are never a session's score."""

# The hot reads are built once: a request only binds its values.
_BY_ID = _attempts().where(_SCORES.c.score_id == bindparam("p_score_id", type_=UUID(as_uuid=True)))


def _status_in(*statuses: str) -> ColumnElement[bool]:
    """``status IN (...)`` with one constant each, not a list expanded at execution: a routine can carry it."""
    return _SCORES.c.status.in_([literal(status, _SCORES.c.status.type) for status in statuses])


_ACTIVE_ATTEMPT = _attempts().where(_OF_SESSION, _status_in(*_ACTIVE)).order_by(*_NEWEST_FIRST).limit(1)
_ACTIVE_OR_LATEST_COMPLETED = (
    _attempts()
    .where(_OF_SESSION, _NOT_SAMPLE, _status_in(*_ACTIVE, "completed"))
    .order_by(_SCORES.c.status == "completed", *_NEWEST_FIRST)
    .limit(1)
)
_LATEST_ATTEMPT = _attempts().where(_OF_SESSION, _NOT_SAMPLE).order_by(*_NEWEST_FIRST).limit(1)

_FACT_NAMES = [c.name for c in FACT_COLUMNS if c.name != "facts_captured_at"]


def _new_attempt_statement(with_facts: bool) -> Any:
    """A pending attempt unless the session has an active one (the partial unique index decides), returning the
    record; with the session's facts (taken now) or without."""
    values: dict[str, Any] = {
        "score_id": bindparam("p_score_id", type_=UUID(as_uuid=True)),
        "session_id": bindparam("p_session_id", type_=String),
        "criteria_hash": bindparam("p_criteria_hash", type_=String),
        "status": "pending",
        "scored_triggered_by": bindparam("p_triggered_by", type_=String),
    }
    if with_facts:
        values.update({name: bindparam(f"p_{name}", type_=_SCORES.c[name].type) for name in _FACT_NAMES})
        values["facts_captured_at"] = func.now()
    return (
        insert(_SCORES)
        .values(**values)
        # The arbiter's predicate written into the statement: PostgreSQL infers the partial unique index from it,
        # which it cannot do from parameters once a prepared statement is planned generically (an error).
        .on_conflict_do_nothing(index_elements=["session_id"], index_where=_ACTIVE_PREDICATE)
        .returning(*_RECORD_COLUMNS)
    )


_NEW_ATTEMPT = _new_attempt_statement(with_facts=False)
_NEW_ATTEMPT_WITH_FACTS = _new_attempt_statement(with_facts=True)


def _claim_statement() -> Any:
    """Move a claimable attempt to in_progress under a fresh claim token and lease, returning its lease, delivery
    count and the session's label reference."""
    newer = _SCORES.alias("newer")
    redriven = and_(
        # A dead-lettered attempt whose message came back (a redrive) is claimable again, unless the session has
        # been asked for since: its newer attempt wins.
        _SCORES.c.status == "failed",
        _SCORES.c.dead_lettered_at.is_not(None),
        ~exists().where(newer.c.session_id == _SCORES.c.session_id, newer.c.requested_at > _SCORES.c.requested_at),
    )
    return (
        update(_SCORES)
        .where(
            _SCORES.c.score_id == bindparam("p_score_id", type_=UUID(as_uuid=True)),
            or_(
                _SCORES.c.status == "pending",
                and_(_SCORES.c.status == "in_progress", _SCORES.c.lease_expires_at < func.now()),
                redriven,
            ),
        )
        .values(
            status="in_progress",
            started_at=func.now(),
            claim_token=bindparam("p_claim_token", type_=UUID(as_uuid=True)),
            lease_expires_at=func.now() + seconds(bindparam("p_lease_seconds", type_=Integer)),
            delivery_count=_SCORES.c.delivery_count + 1,
            dead_lettered_at=None,
        )
        .returning(
            _SCORES.c.delivery_count,
            _SCORES.c.lease_expires_at,
            *[_label_reference(part).label(f"reference_{part}") for part in ("root_cause", "remediation")],
        )
    )


def _label_reference(part: str) -> Any:
    """The session's current label reference's ``part`` (its highest revision), for the claim to return: the job
    reads it without a statement of its own."""
    references = schema.session_references
    return (
        select(references.c[part])
        .where(references.c.session_id == _SCORES.c.session_id)
        .order_by(references.c.revision.desc())
        .limit(1)
        .scalar_subquery()
    )


# Built once, like the reads: a job binds its values (the alias's 40 column proxies cost milliseconds per build).
_CLAIM = _claim_statement()
_CLAIM_STATE = select(_SCORES.c.status, _SCORES.c.lease_expires_at, _SCORES.c.delivery_count).where(
    _SCORES.c.score_id == bindparam("p_score_id", type_=UUID(as_uuid=True))
)


_CONVERTED = (
    "status",
    "missing_tools",
    "alternative_approaches",
    "prompt_compacted",
    "facts",
    "estimated_cost_usd",
    "failure_tags",
)
_PLAIN_FIELDS = [f.name for f in fields(ScoreRecord) if f.name not in (*_CONVERTED, "writeback")]
"""The record's fields read from the row's same-named columns as they are."""


def to_record(row: Row[Any]) -> ScoreRecord:
    """Explicit mapping from a result row (with or without the children's JSON) to the domain record."""
    values = row._mapping
    return ScoreRecord(
        **{name: values[name] for name in _PLAIN_FIELDS},
        status=ScoreStatus(values["status"]),
        missing_tools=tuple(
            MissingToolRecord(t["tool_name"], t["rationale"], t.get("canonical_name"))
            for t in as_json_list(values.get("missing_tools_json"))
        ),
        alternative_approaches=tuple(
            ApproachRecord(a["name"], a["description"], tuple(a["steps"] or ()))
            for a in as_json_list(values.get("approaches_json"))
        ),
        prompt_compacted=bool(values["prompt_compacted"]),
        facts=facts_from(values),
        estimated_cost_usd=None if values["estimated_cost_usd"] is None else float(values["estimated_cost_usd"]),
        writeback=writeback_from(values.get("writeback_json")),
        failure_tags=tuple(values["failure_tags"] or ()),
    )


def _recordset(name: str, *columns: Any) -> Any:
    """Rows passed as one JSONB parameter, read with ``jsonb_to_recordset``: one statement for any number of rows."""
    return func.jsonb_to_recordset(bindparam(name, type_=JSONB)).table_valued(*columns).render_derived(with_types=True)


def _verdict_values() -> dict[str, Any]:
    # Parameter names differ from the column names: an UPDATE would read same-named keys as SET values.
    return {name: bindparam(f"p_{name}", type_=_SCORES.c[name].type) for name in _VERDICT_COLUMNS}


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
            # now(), unless the caller backdates the verdict (seeded demo data: see devstack/seed.py)
            scored_at=func.coalesce(bindparam("p_scored_at", type_=DateTime(timezone=True)), func.now()),
            error_message=null(),
            lease_expires_at=null(),
            **_verdict_values(),
        )
        .returning(
            _SCORES.c.score_id,
            _SCORES.c.session_id,
            _SCORES.c.total_score,
            _SCORES.c.score_breakdown,  # the read models' dimensions, whatever the rubric's keys
            _SCORES.c.scored_at,
            _SCORES.c.session_agent,  # the missing tools' agent counters
        )
        .cte("done")
    )
    # Every read model moves in the verdict's statement (read_models/: one module each, in this order).
    dimensions = _recordset(
        "p_dimensions", column("dimension_key", String), column("points", Integer), column("max_points", Integer)
    )
    tags = _recordset("p_tags", column("tag", String))
    stored_dimensions = (
        insert(schema.score_dimensions)
        .from_select(
            ["score_id", "dimension_key", "points", "max_points"],
            select(done.c.score_id, dimensions.c.dimension_key, dimensions.c.points, dimensions.c.max_points)
            .select_from(done)
            .join(dimensions, true()),
        )
        .cte("dimensions_stored")
    )
    stored_tags = (
        insert(schema.score_failure_tags)
        .from_select(["score_id", "tag"], select(done.c.score_id, tags.c.tag).select_from(done).join(tags, true()))
        .cte("tags_stored")
    )
    latest = latest_scores.upkeep(done)
    members, histograms, dimension_sums = trends.upkeep(done)
    return _with_children(
        done,
        latest,
        score_counts.upkeep(latest),
        *latest_tools.upkeep(latest),
        tool_counts.upkeep(latest),
        members,
        histograms,
        dimension_sums,
        outcomes.upkeep(members),
        *comparison.upkeep(done, latest),
        stored_dimensions,
        stored_tags,
    )


def _store_sample_statement() -> Any:
    """Insert a judge-quality sample as a completed attempt with its children, in one statement. It is never
    pending or in progress, so it never takes the session's one active attempt."""
    done = (
        insert(_SCORES)
        .values(
            score_id=bindparam("p_score_id", type_=UUID(as_uuid=True)),
            session_id=bindparam("p_session_id", type_=String),
            status="completed",
            scored_triggered_by=bindparam("p_triggered_by", type_=String),
            started_at=func.now(),
            scored_at=func.now(),
            sample_kind=bindparam("p_sample_kind", type_=String),
            **_verdict_values(),
        )
        .returning(_SCORES.c.score_id)
        .cte("done")
    )
    return _with_children(done)  # a sample is never the session's latest score: no read model moves


def _with_children(done: Any, *upkeep: Any) -> Any:
    """``done`` (a CTE returning the attempt's score id) followed by inserts of its tools, approaches and steps, and
    the read models' ``upkeep`` CTEs."""

    def stored(table: Any, recordset: Any, columns: list[str], parent: Any, name: str) -> Any:
        """Insert ``recordset``'s rows into ``table`` (``columns`` from it, ``parent`` first), one per attempt."""
        values = select(*parent, *[recordset.c[column] for column in columns]).select_from(done).join(recordset, true())
        return insert(table).from_select([*[p.name for p in parent], *columns], values).cte(name)

    tools = _recordset(
        "p_tools",
        column("position", Integer),
        column("tool_name", String),
        column("canonical_name", String),
        column("rationale", Text),
    )
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
    new_id = func.gen_random_uuid().label("id")
    insert_tools = stored(
        _TOOLS,
        tools,
        ["position", "tool_name", "canonical_name", "rationale"],
        [new_id, done.c.score_id],
        "tools_stored",
    )
    insert_approaches = stored(
        _APPROACHES, approaches, ["id", "position", "name", "description"], [done.c.score_id], "approaches_stored"
    )
    insert_steps = stored(_STEPS, steps, ["approach_id", "step_order", "step_description"], [new_id], "steps_stored")
    # A read model left out (None) is not composed: the benchmarks time the statement without one.
    return select(done.c.score_id).add_cte(
        insert_tools, insert_approaches, insert_steps, *(cte for cte in upkeep if cte is not None)
    )


def _verdict_params(
    criteria_hash: str,
    verdict: JudgeVerdict,
    prompt: PromptStats,
    spread: dict[str, Any] | None,
    available_tools: Sequence[str],
    maxima: Mapping[str, int] | None,
) -> dict[str, Any]:
    """The statement parameters of a verdict and its children, each missing tool with its canonical name
    (``models.tools``); the latest-score upkeep counts the distinct names (``p_tool_names``) and their spellings and
    availability (``p_tool_facets``); each dimension with its maximum (``maxima``, the rubric's; None: the default
    rubric's, which must then have every key)."""
    output = verdict.output
    if maxima is None:
        maxima = default_rubric().maxima
        unknown = sorted(set(output.score_breakdown) - set(maxima))
        if unknown:
            raise ValueError(f"dimensions {', '.join(unknown)} are not the default rubric's: pass the rubric's maxima")
    namer = ToolNamer(available_tools)
    named = [(t, namer.canonical(t.tool_name)) for t in output.missing_tools]
    facets = {(c.name, "spelling", t.tool_name) for t, c in named} | {
        (c.name, "available", "") for _, c in named if c.available
    }
    approach_ids = [uuid.uuid4() for _ in output.alternative_approaches]
    params: dict[str, Any] = {
        "p_criteria_hash": criteria_hash,
        "p_total_score": output.total_score,
        "p_score_breakdown": dict(output.score_breakdown),
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
        "p_score_spread": spread,
        "p_judging_ms": None,
        "p_estimated_cost_usd": None,
        "p_outcome": output.outcome.value,
        "p_outcome_reason": output.outcome_reason,
        "p_reference_source": prompt.reference_source,
        "p_ceiling_value": output.ceiling,
        "p_failure_tags": list(output.failure_tags),
        "p_claims": [claim.model_dump() for claim in output.claims] or None,
        "p_dimensions": [
            {"dimension_key": key, "points": points, "max_points": maxima[key]}
            for key, points in output.score_breakdown.items()
        ],
        "p_tags": [{"tag": tag} for tag in output.failure_tags],
        "p_masked_values": dict(prompt.masked_values) if prompt.masked_values is not None else None,
        "p_tools": [
            {"position": i, "tool_name": t.tool_name, "canonical_name": c.name, "rationale": t.rationale}
            for i, (t, c) in enumerate(named)
        ],
        "p_tool_names": sorted({c.name for _, c in named}),
        "p_tool_facets": [list(key) for key in sorted(facets)],
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
    return params


VERDICT_ROUTINE_PREFIX = "scoring_store_verdict"
LATEST_ROUTINE_PREFIX = "scoring_latest_attempt"
ACTIVE_OR_COMPLETED_ROUTINE_PREFIX = "scoring_active_or_completed"


def verdict_routine(statement: Any = None) -> Routine:
    """The verdict's statement (``statement``, when already built) as a database function
    (``repositories/routines.py``): the same work, parsed and planned once per server connection, not on every job."""
    built = statement if statement is not None else _store_verdict_statement()
    return as_routine(VERDICT_ROUTINE_PREFIX, built, writes=True)


@cache
def latest_routine() -> Routine:
    """A session's latest attempt (what GET .../score reads) as a database function."""
    return as_routine(LATEST_ROUTINE_PREFIX, _LATEST_ATTEMPT, writes=False)


@cache
def active_or_completed_routine() -> Routine:
    """A session's active attempt, else its latest completed one (what a POST reads first), as a database function."""
    return as_routine(ACTIVE_OR_COMPLETED_ROUTINE_PREFIX, _ACTIVE_OR_LATEST_COMPLETED, writes=False)


def install_routines(conn: Connection) -> None:
    """Create this release's routines and drop other releases' (run with the migrations, under their lock)."""
    dropped = install(conn, [verdict_routine(), latest_routine(), active_or_completed_routine()])
    if dropped:
        logger.info("database routines of another release dropped", extra={"routines": dropped})


class ScoreRepository(StatementRepository):
    """Score attempts and criteria. Every method is one statement; none holds a transaction across I/O."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self._ensured: set[str] = set()
        self._warned_missing: set[str] = set()  # routine prefixes whose absence was logged

    @cached_property
    def _store_verdict(self) -> Any:
        """Built on the first verdict stored (25 ms of SQLAlchemy construction), not by a process that only reads."""
        return _store_verdict_statement()

    @cached_property
    def _verdict_routine(self) -> Routine:
        return verdict_routine(self._store_verdict)

    def _one_via(self, routine: Routine, statement: Any, params: dict[str, Any]) -> Row[Any] | None:
        """Run ``routine``; ``statement`` itself (the same result, slower) when the routine is missing from the
        database: one refused round trip more, so a routine installed later is used at once."""
        try:
            return self._one(routine.call, params)
        except DBAPIError as exc:
            if not is_missing(exc, routine):
                raise
        if routine.prefix not in self._warned_missing:
            self._warned_missing.add(routine.prefix)
            logger.warning(
                "a database routine is missing: running its full statement (slower) until it is installed; run the "
                "migrations (make migrate, or the deploy's migrate function)",
                extra={"routine": routine.name},
            )
        return self._one(statement, params)

    @cached_property
    def _store_sample(self) -> Any:
        return _store_sample_statement()

    @db_call
    def ensure_criteria(self, criteria_hash: str, criteria_content: dict[str, Any]) -> None:
        """Store a criteria definition (idempotent); once per process per hash, as definitions are never deleted."""
        if criteria_hash in self._ensured:
            return
        self._run(insert_criteria(criteria_hash, criteria_content))
        self._ensured.add(criteria_hash)

    @db_call
    def get_criteria(self, criteria_hash: str) -> StoredCriteria | None:
        row = self._one(select(_CRITERIA).where(_CRITERIA.c.criteria_hash == criteria_hash))
        return None if row is None else StoredCriteria(row.criteria_hash, row.criteria_content, row.created_at)

    @db_call
    def create_attempt(
        self,
        score_id: uuid.UUID,
        session_id: str,
        criteria_hash: str,
        triggered_by: str,
        facts: SessionFacts | None = None,
    ) -> NewAttempt:
        """Insert a pending attempt, with the session's ``facts`` as of now, unless the session has an active one
        (the partial unique index decides); then return the active attempt instead, with ``created`` False."""
        params: dict[str, Any] = {
            "p_score_id": score_id,
            "p_session_id": session_id,
            "p_criteria_hash": criteria_hash,
            "p_triggered_by": triggered_by,
        }
        if facts is not None:
            given = fact_values(facts)
            params.update({f"p_{name}": given[name] for name in _FACT_NAMES})
        statement = _NEW_ATTEMPT_WITH_FACTS if facts is not None else _NEW_ATTEMPT
        for _ in range(CREATE_ATTEMPT_TRIES):
            inserted = self._one(statement, params)
            if inserted is not None:
                return NewAttempt(to_record(inserted), created=True)
            active = self.active_for_session(session_id)
            if active is not None:
                # A retried insert whose first try committed finds its own row: it was created by this call.
                return NewAttempt(active, created=active.score_id == score_id)
            # The active attempt ended between the two statements: try again, a bounded number of times.
        raise AttemptConflictError(
            f"session '{session_id}': its active attempt kept changing while this request ran (concurrent requests "
            "and scorers); GET its score, or send the request again"
        )

    @db_call
    def get(self, score_id: uuid.UUID) -> ScoreRecord | None:
        row = self._one(_BY_ID, {"p_score_id": score_id})
        return None if row is None else to_record(row)

    def _latest(self, statement: Any, session_id: str, routine: Routine | None = None) -> ScoreRecord | None:
        params = {"p_session_id": session_id}
        row = self._one(statement, params) if routine is None else self._one_via(routine, statement, params)
        return None if row is None else to_record(row)

    @db_call
    def last_scored_session(self) -> str | None:
        """The id of the session scored last (a warm-up reads it: the score clients most likely ask for next), None
        before the first score; an index scan of ``scored_at`` from its end."""
        row = self._one(
            select(_SCORES.c.session_id)
            .where(_SCORES.c.scored_at.is_not(None), _NOT_SAMPLE)
            .order_by(_SCORES.c.scored_at.desc())
            .limit(1)
        )
        return None if row is None else str(row.session_id)

    @db_call
    def latest(self, session_id: str) -> ScoreRecord | None:
        """The session's latest attempt (whatever its status; never a judge-quality sample), None when the session
        was never scored."""
        return self._latest(_LATEST_ATTEMPT, session_id, latest_routine())

    @db_call
    def active_for_session(self, session_id: str) -> ScoreRecord | None:
        return self._latest(_ACTIVE_ATTEMPT, session_id)

    @db_call
    def active_or_latest_completed(self, session_id: str) -> ScoreRecord | None:
        """The session's active attempt if it has one, else its latest completed attempt, in one statement."""
        return self._latest(_ACTIVE_OR_LATEST_COMPLETED, session_id, active_or_completed_routine())

    @db_call
    def list_for_session(self, session_id: str) -> list[ScoreRecord]:
        rows = self._all(_attempts().where(_SCORES.c.session_id == session_id, _NOT_SAMPLE).order_by(*_NEWEST_FIRST))
        return [to_record(row) for row in rows]

    @db_call
    def claim(self, score_id: uuid.UUID, lease_seconds: int) -> ClaimResult:
        """Move a pending attempt (one whose lease expired, or a dead-lettered one redriven) to in_progress for this
        worker only; a claim returns the session's reference set through the labels API too."""
        token = uuid.uuid4()
        try:
            claimed = self._one(
                _CLAIM, {"p_score_id": score_id, "p_claim_token": token, "p_lease_seconds": lease_seconds}
            )
        except IntegrityError:
            claimed = None  # a redriven attempt while the session has another active one: that one wins
        if claimed is not None:
            return from_row(ClaimResult, claimed, claimed=True, claim_token=token, status=ScoreStatus.IN_PROGRESS)
        current = self._one(_CLAIM_STATE, {"p_score_id": score_id})
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
        spread: dict[str, Any] | None = None,
        judging_ms: int | None = None,
        estimated_cost_usd: float | None = None,
        available_tools: Sequence[str] = (),
        scored_at: datetime | None = None,
        maxima: Mapping[str, int] | None = None,
    ) -> bool:
        """Store the verdict with its missing tools, approaches and steps in one statement; False (nothing stored)
        when this worker no longer holds the claim.

        ``spread``, ``judging_ms`` and ``estimated_cost_usd`` are stored as given (``db/schema.py``);
        ``available_tools``: the session's qualified names the missing tools' canonical names are matched against;
        ``scored_at``: when the verdict counts as stored (None: now; a past time only for seeded demo data);
        ``maxima``: the rubric's maximum per dimension (None: the default rubric's).
        """
        params = _verdict_params(criteria_hash, verdict, prompt, spread, available_tools, maxima)
        params.update(
            p_score_id=score_id,
            p_claim_token=claim_token,
            p_judging_ms=judging_ms,
            p_estimated_cost_usd=estimated_cost_usd,
            p_scored_at=scored_at,
        )
        return self._one_via(self._verdict_routine, self._store_verdict, params) is not None

    @db_call
    def store_sample(
        self,
        session_id: str,
        criteria_hash: str,
        triggered_by: str,
        sample_kind: str,
        verdict: JudgeVerdict,
        prompt: PromptStats,
        available_tools: Sequence[str] = (),
        maxima: Mapping[str, int] | None = None,
    ) -> uuid.UUID:
        """Store a judge-quality sample (``repeatability``/``robustness``): a completed attempt that is never the
        session's score, never active, never counted by analytics."""
        score_id = uuid.uuid4()
        params = _verdict_params(criteria_hash, verdict, prompt, None, available_tools, maxima)
        params.update(
            p_score_id=score_id, p_session_id=session_id, p_triggered_by=triggered_by, p_sample_kind=sample_kind
        )
        self._one(self._store_sample, params)
        return score_id

    @db_call
    def samples(self, sample_kind: str, triggered_by: str) -> list[ScoreRecord]:
        """The samples one study stored (its ``triggered_by``), oldest first."""
        rows = self._all(
            _attempts()
            .where(_SCORES.c.sample_kind == sample_kind, _SCORES.c.scored_triggered_by == triggered_by)
            .order_by(_SCORES.c.requested_at, _SCORES.c.score_id)
        )
        return [to_record(row) for row in rows]

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
        """Mark an attempt failed with a readable reason. Without a token, any not-yet-final attempt is failed;
        ``dead_lettered``: its message goes to the dead-letter queue, from where a redrive may bring it back."""
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
    def renew_leases(self, claims: Sequence[tuple[uuid.UUID, uuid.UUID]], lease_seconds: int) -> set[uuid.UUID]:
        """Push the lease of each held claim (``(score_id, claim_token)``) ``lease_seconds`` from now, in one
        statement; returns the tokens still held. A token missing from the answer lost its claim: the attempt was
        taken over after its lease expired, released, completed or failed."""
        if not claims:
            return set()
        rows = self._all(
            update(_SCORES)
            .where(
                _SCORES.c.score_id.in_([score_id for score_id, _ in claims]),
                _SCORES.c.claim_token.in_([token for _, token in claims]),
                _SCORES.c.status == "in_progress",
            )
            .values(lease_expires_at=func.now() + seconds(lease_seconds))
            .returning(_SCORES.c.claim_token)
        )
        return {row.claim_token for row in rows}

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
    def stranded(self, pending_after_seconds: int, limit: int, *, held: bool = False) -> list[StrandedAttempt]:
        """Active attempts nobody is working on: ``in_progress`` with an expired lease, or ``pending`` with no
        activity for ``pending_after_seconds`` (longer than any delay a live message waits). ``held``: instead, the
        ``in_progress`` attempts whose lease is still live (after a restart of the local stack)."""
        idle_since = func.greatest(_SCORES.c.requested_at, func.coalesce(_SCORES.c.started_at, _SCORES.c.requested_at))
        expired = and_(_SCORES.c.status == "in_progress", _SCORES.c.lease_expires_at < func.now())
        idle = and_(
            _SCORES.c.status == "pending",
            idle_since < func.now() - seconds(pending_after_seconds),
        )
        live = and_(_SCORES.c.status == "in_progress", _SCORES.c.lease_expires_at >= func.now())
        rows = self._all(
            select(*columns_of(StrandedAttempt, _SCORES), _SCORES.c.scored_triggered_by.label("requested_by"))
            .where(
                _SCORES.c.status.in_(_ACTIVE),  # lets the planner use the partial index on active attempts
                # A batch-mode run's attempts have no queue message: the batch poller submits and collects them.
                or_(
                    _SCORES.c.run_id.is_(None),
                    ~exists().where(_RUNS.c.run_id == _SCORES.c.run_id, _RUNS.c.mode == "batch"),
                ),
                live if held else or_(expired, idle),
            )
            .order_by(_SCORES.c.requested_at)
            .limit(limit)
        )
        return [from_row(StrandedAttempt, r, status=ScoreStatus(r.status)) for r in rows]

    @db_call
    def count_by_status(self) -> dict[str, int]:
        rows = self._all(select(_SCORES.c.status, func.count().label("attempts")).group_by(_SCORES.c.status))
        return {str(row.status): int(row.attempts) for row in rows}

    @db_call
    def ping(self) -> None:
        self._one(text("SELECT 1"))
