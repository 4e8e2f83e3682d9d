"""Human labels in PostgreSQL (table ``judge_labels``): the only SQL of the labels and of the agreement sample.

A label is never updated: a labeller's revision is a new row numbered one above their previous one, so every
label is kept with its time and author. Storing takes the next number in the same statement; two racing revisions
by the same labeller collide on the unique (session, labeller, revision) and the loser retries.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Engine, and_, exists, func, literal, select
from sqlalchemy.dialects.postgresql import distinct_on, insert
from sqlalchemy.exc import IntegrityError

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.models.quality import LabelledScore, LabelQueueRecord, LabelRecord, NewLabel, QueuedSession

_LABELS = schema.judge_labels
_SCORES = schema.session_scores
_LATEST = schema.latest_scores

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
    def labelled_scores(self, criteria_hash: str) -> list[LabelledScore]:
        """Each labeller's current label beside the session's latest completed real score under ``criteria_hash``
        (sessions without both are left out; judge-quality samples are never a score)."""
        current = (
            select(_LABELS)
            .ext(distinct_on(_LABELS.c.session_id, _LABELS.c.labeller))
            .order_by(_LABELS.c.session_id, _LABELS.c.labeller, _LABELS.c.revision.desc())
            .subquery("current_labels")
        )
        latest = (
            select(_SCORES.c.session_id, _SCORES.c.total_score, _SCORES.c.score_breakdown)
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
