"""Human labels in PostgreSQL (tables ``judge_labels`` and ``session_references``): the only SQL of the labels, the
references set through the labels API, and the agreement sample.

A label is never updated: a labeller's revision is a new row numbered one above their previous one, so every
label is kept with its time and author. Storing takes the next number in the same statement; two racing revisions
by the same labeller collide on the unique (session, labeller, revision) and the loser retries. A session's
reference is revised the same way, its revisions numbered per session (whoever sets it).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Engine, and_, bindparam, exists, func, literal, select
from sqlalchemy.dialects.postgresql import distinct_on, insert
from sqlalchemy.exc import IntegrityError

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.models.quality import (
    LabelledScore,
    LabelQueueRecord,
    LabelRecord,
    NewLabel,
    QueuedSession,
    ReferenceRecord,
)
from session_scoring.models.scores import REFERENCED_OUTCOMES
from session_scoring.repositories.base import StatementRepository

_LABELS = schema.judge_labels
_SCORES = schema.session_scores
_LATEST = schema.latest_scores
_REFERENCES = schema.session_references

REVISION_RETRIES = 3


def _record(row: Any) -> LabelRecord:
    return LabelRecord(
        label_id=row.label_id,
        session_id=row.session_id,
        labeller=row.labeller,
        revision=row.revision,
        total_score=row.total_score,
        score_breakdown=row.score_breakdown,
        band=row.band,
        notes=row.notes,
        source=row.source,
        created_at=row.created_at,
    )


def _insert(label: NewLabel) -> Any:
    """Insert ``label`` as the labeller's next revision of the session, in one statement."""
    previous = (
        select(func.coalesce(func.max(_LABELS.c.revision), 0) + 1)
        .where(_LABELS.c.session_id == label.session_id, _LABELS.c.labeller == label.labeller)
        .scalar_subquery()
    )
    request = label.request
    breakdown = request.score_breakdown.model_dump() if request.score_breakdown is not None else None
    return (
        insert(_LABELS)
        .from_select(
            [
                "label_id",
                "session_id",
                "labeller",
                "revision",
                "total_score",
                "score_breakdown",
                "band",
                "notes",
                "source",
            ],
            select(
                literal(uuid.uuid4()),
                literal(label.session_id),
                literal(label.labeller),
                previous,
                literal(request.total_score),
                literal(breakdown, type_=_LABELS.c.score_breakdown.type),
                literal(request.effective_band),
                literal(request.notes, type_=_LABELS.c.notes.type),
                literal(label.source),
            ),
        )
        .returning(*_LABELS.c)
    )


def _reference(row: Any) -> ReferenceRecord:
    return ReferenceRecord(
        session_id=row.session_id,
        revision=row.revision,
        root_cause=row.root_cause,
        remediation=row.remediation,
        set_by=row.set_by,
        created_at=row.created_at,
    )


def _insert_reference(session_id: str, set_by: str, root_cause: str | None, remediation: str | None) -> Any:
    """Insert the session's next reference revision, in one statement."""
    previous = (
        select(func.coalesce(func.max(_REFERENCES.c.revision), 0) + 1)
        .where(_REFERENCES.c.session_id == session_id)
        .scalar_subquery()
    )
    text_type = _REFERENCES.c.root_cause.type
    return (
        insert(_REFERENCES)
        .from_select(
            ["reference_id", "session_id", "revision", "root_cause", "remediation", "set_by"],
            select(
                literal(uuid.uuid4()),
                literal(session_id),
                previous,
                literal(root_cause, type_=text_type),
                literal(remediation, type_=text_type),
                literal(set_by),
            ),
        )
        .returning(*_REFERENCES.c)
    )


_CURRENT_REFERENCE = (
    select(_REFERENCES)
    .where(_REFERENCES.c.session_id == bindparam("p_session_id"))
    .order_by(_REFERENCES.c.revision.desc())
    .limit(1)
)


class ReferenceReads(StatementRepository):
    """The reference a job is judged against, read on the autocommit engine (one statement, as the scorer's other
    reads): the scorer and the batch poller build no transactional engine for it."""

    @db_call
    def current_reference(self, session_id: str) -> ReferenceRecord | None:
        """The session's highest reference revision (a withdrawal included), None when none was ever set: one index
        probe of the unique (session, revision)."""
        row = self._one(_CURRENT_REFERENCE, {"p_session_id": session_id})
        return None if row is None else _reference(row)


class LabelRepository:
    """Labels on the transactional engine: an import stores every row in one transaction, or none."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    @db_call
    def add(self, label: NewLabel) -> LabelRecord:
        """Store one label as the labeller's next revision."""
        for attempt in range(REVISION_RETRIES):
            try:
                with self._engine.begin() as conn:
                    return _record(conn.execute(_insert(label)).one())
            except IntegrityError:
                if attempt == REVISION_RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    @db_call
    def add_all(self, labels: Sequence[NewLabel], progress: Callable[[int], None] | None = None) -> int:
        """Store every label in one transaction (all or none); ``progress`` gets the count stored so far."""
        with self._engine.begin() as conn:
            for done, label in enumerate(labels, start=1):
                conn.execute(_insert(label))
                if progress is not None:
                    progress(done)
        return len(labels)

    @db_call
    def for_session(self, session_id: str) -> list[LabelRecord]:
        """Every revision of every labeller of the session, newest first."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                select(_LABELS)
                .where(_LABELS.c.session_id == session_id)
                .order_by(_LABELS.c.created_at.desc(), _LABELS.c.revision.desc(), _LABELS.c.labeller)
            ).all()
        return [_record(row) for row in rows]

    @db_call
    def add_reference(
        self, session_id: str, set_by: str, root_cause: str | None, remediation: str | None
    ) -> ReferenceRecord:
        """Store the session's next reference revision (``root_cause`` None: a withdrawal)."""
        for attempt in range(REVISION_RETRIES):
            try:
                with self._engine.begin() as conn:
                    return _reference(
                        conn.execute(_insert_reference(session_id, set_by, root_cause, remediation)).one()
                    )
            except IntegrityError:
                if attempt == REVISION_RETRIES - 1:
                    raise
        raise AssertionError("unreachable")

    @db_call
    def reference_history(self, session_id: str) -> list[ReferenceRecord]:
        """Every revision of the session's reference, newest first."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                select(_REFERENCES)
                .where(_REFERENCES.c.session_id == session_id)
                .order_by(_REFERENCES.c.revision.desc())
            ).all()
        return [_reference(row) for row in rows]

    @db_call
    def labelled_scores(self, criteria_hash: str, with_reference: bool = False) -> list[LabelledScore]:
        """Each labeller's current label beside the session's latest completed real score under ``criteria_hash``
        (sessions without both are left out; judge-quality samples are never a score); ``with_reference``: only the
        sessions whose latest score was judged against a reference (its outcome found, partly found or missed)."""
        current = (
            select(_LABELS)
            .ext(distinct_on(_LABELS.c.session_id, _LABELS.c.labeller))
            .order_by(_LABELS.c.session_id, _LABELS.c.labeller, _LABELS.c.revision.desc())
            .subquery("current_labels")
        )
        latest = (
            select(_SCORES.c.session_id, _SCORES.c.total_score, _SCORES.c.score_breakdown, _SCORES.c.outcome)
            .where(
                _SCORES.c.status == "completed",
                _SCORES.c.criteria_hash == criteria_hash,
                _SCORES.c.sample_kind.is_(None),
                _SCORES.c.session_id.in_(select(_LABELS.c.session_id)),
            )
            .ext(distinct_on(_SCORES.c.session_id))
            .order_by(_SCORES.c.session_id, _SCORES.c.scored_at.desc(), _SCORES.c.score_id.desc())
            .subquery("latest_scores")
        )
        with self._engine.connect() as conn:
            rows = conn.execute(
                select(
                    current.c.session_id,
                    current.c.labeller,
                    current.c.total_score.label("human_total"),
                    current.c.score_breakdown.label("human_breakdown"),
                    latest.c.total_score.label("judge_total"),
                    latest.c.score_breakdown.label("judge_breakdown"),
                )
                .join(latest, and_(latest.c.session_id == current.c.session_id))
                .where(*([latest.c.outcome.in_([o.value for o in REFERENCED_OUTCOMES])] if with_reference else []))
                .order_by(current.c.session_id, current.c.labeller)
            ).all()
        return [
            LabelledScore(r.session_id, r.labeller, r.human_total, r.human_breakdown, r.judge_total, r.judge_breakdown)
            for r in rows
        ]

    @db_call
    def next_unlabelled(self, criteria_hash: str, labeller: str, after: str | None) -> LabelQueueRecord:
        """The first session, in session-id order after ``after``, whose latest completed real score is under
        ``criteria_hash`` and that ``labeller`` never labelled; and how many such sessions there are in all.

        Session-id order is stable while someone labels (a new score does not reorder the queue) and, for uploads
        (random ids), unrelated to the score, so a labeller's sample is not biased towards high or low scores."""
        unlabelled = and_(
            _LATEST.c.criteria_hash == criteria_hash,
            ~exists().where(_LABELS.c.session_id == _LATEST.c.session_id, _LABELS.c.labeller == labeller),
        )
        following = unlabelled if after is None else and_(unlabelled, _LATEST.c.session_id > after)
        with self._engine.connect() as conn:
            row = conn.execute(
                select(
                    _LATEST.c.session_id,
                    _LATEST.c.score_id,
                    _LATEST.c.total_score,
                    _LATEST.c.band,
                    _LATEST.c.scored_at,
                )
                .where(following)
                .order_by(_LATEST.c.session_id)
                .limit(1)
            ).first()
            remaining = conn.execute(select(func.count()).select_from(_LATEST).where(unlabelled)).scalar_one()
        queued = (
            None
            if row is None
            else QueuedSession(row.session_id, row.score_id, row.total_score, row.band, row.scored_at)
        )
        return LabelQueueRecord(next=queued, remaining=int(remaining))
