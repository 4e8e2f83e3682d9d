"""Human labels in PostgreSQL (tables ``judge_labels`` and ``session_references``): the labels, the references set
through the labels API, and the agreement sample.

Nothing is updated: a revision is a new row numbered one above the previous (per labeller of a session, or per
session for a reference), taken in the same statement; two racing revisions collide on the unique revision and the
loser retries.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy import Row, Table, and_, bindparam, exists, func, literal, select
from sqlalchemy.dialects.postgresql import distinct_on, insert
from sqlalchemy.exc import IntegrityError
from tenacity import retry, retry_if_exception_type, stop_after_attempt

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.models.quality import (
    LabelledScore,
    LabelQueue,
    LabelQueueSession,
    NewLabel,
    SessionLabel,
    SessionReference,
)
from session_scoring.models.scores import REFERENCED_OUTCOMES
from session_scoring.repositories.base import StatementRepository, TransactionRepository, from_row

_LABELS = schema.judge_labels
_SCORES = schema.session_scores
_LATEST = schema.latest_scores
_REFERENCES = schema.session_references

REVISION_RETRIES = 3


def _next_revision(table: Table, scope: dict[str, Any], values: dict[str, Any]) -> Any:
    """Insert a row of ``table`` numbered one above the highest revision of its ``scope`` (column values), in one
    statement returning it."""
    revision = (
        select(func.coalesce(func.max(table.c.revision), 0) + 1)
        .where(*[table.c[name] == value for name, value in scope.items()])
        .scalar_subquery()
    )
    row = {**scope, **values}
    return (
        insert(table)
        .from_select(
            [*row, "revision"],
            select(*[literal(value, type_=table.c[name].type) for name, value in row.items()], revision),
        )
        .returning(*table.c)
    )


def _insert(label: NewLabel) -> Any:
    """Insert ``label`` as the labeller's next revision of the session."""
    return _next_revision(
        _LABELS,
        {"session_id": label.session_id, "labeller": label.labeller},
        {
            "label_id": uuid.uuid4(),
            **label.request.model_dump(include={"total_score", "score_breakdown", "notes"}),
            "band": label.request.effective_band,
            "source": label.source,
        },
    )


_CURRENT_REFERENCE = (
    select(_REFERENCES)
    .where(_REFERENCES.c.session_id == bindparam("p_session_id"))
    .order_by(_REFERENCES.c.revision.desc())
    .limit(1)
)


class ReferenceReads(StatementRepository):
    """The reference a job is judged against, read on the autocommit engine: the scorer and the batch poller build
    no transactional one."""

    @db_call
    def current_reference(self, session_id: str) -> SessionReference | None:
        """The session's highest reference revision (a withdrawal included), None when none was ever set: one index
        probe of the unique (session, revision)."""
        row = self._one(_CURRENT_REFERENCE, {"p_session_id": session_id})
        return None if row is None else SessionReference.model_validate(row, from_attributes=True)


class LabelRepository(TransactionRepository):
    """Labels on the transactional engine: an import stores every row in one transaction, or none."""

    @retry(retry=retry_if_exception_type(IntegrityError), stop=stop_after_attempt(REVISION_RETRIES), reraise=True)
    def _add_revision(self, statement: Callable[[], Any]) -> Row[Any]:
        """Run ``statement()``, a next revision's insert, again when a racing revision took its number."""
        with self._engine.begin() as conn:
            return conn.execute(statement()).one()

    @db_call
    def add(self, label: NewLabel) -> SessionLabel:
        """Store one label as the labeller's next revision."""
        return SessionLabel.model_validate(self._add_revision(lambda: _insert(label)), from_attributes=True)

    @db_call
    def add_all(self, labels: Sequence[NewLabel], progress: Callable[[int], None]) -> int:
        """Store every label in one transaction (all or none); ``progress`` gets the count stored so far."""
        with self._engine.begin() as conn:
            for done, label in enumerate(labels, start=1):
                conn.execute(_insert(label))
                progress(done)
        return len(labels)

    @db_call
    def for_session(self, session_id: str) -> list[SessionLabel]:
        """Every revision of every labeller of the session, newest first."""
        rows = self._all(
            select(_LABELS)
            .where(_LABELS.c.session_id == session_id)
            .order_by(_LABELS.c.created_at.desc(), _LABELS.c.revision.desc(), _LABELS.c.labeller)
        )
        return [SessionLabel.model_validate(row, from_attributes=True) for row in rows]

    @db_call
    def add_reference(
        self, session_id: str, set_by: str, root_cause: str | None, remediation: str | None
    ) -> SessionReference:
        """Store the session's next reference revision (``root_cause`` None: a withdrawal)."""
        values = {"reference_id": uuid.uuid4(), "root_cause": root_cause, "remediation": remediation, "set_by": set_by}
        row = self._add_revision(lambda: _next_revision(_REFERENCES, {"session_id": session_id}, values))
        return SessionReference.model_validate(row, from_attributes=True)

    @db_call
    def reference_history(self, session_id: str) -> list[SessionReference]:
        """Every revision of the session's reference, newest first."""
        rows = self._all(
            select(_REFERENCES).where(_REFERENCES.c.session_id == session_id).order_by(_REFERENCES.c.revision.desc())
        )
        return [SessionReference.model_validate(row, from_attributes=True) for row in rows]

    @db_call
    def labelled_scores(self, criteria_hash: str, with_reference: bool) -> list[LabelledScore]:
        """Each labeller's current label beside the session's latest completed real score under ``criteria_hash``
        (sessions without both are left out); ``with_reference``: only the sessions whose latest score was judged
        against a reference."""
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
        rows = self._all(
            select(
                current.c.session_id,
                current.c.labeller,
                current.c.total_score.label("human_total"),
                current.c.score_breakdown.label("human_breakdown"),
                latest.c.total_score.label("judge_total"),
                latest.c.score_breakdown.label("judge_breakdown"),
            )
            .join(latest, latest.c.session_id == current.c.session_id)
            .where(*([latest.c.outcome.in_([o.value for o in REFERENCED_OUTCOMES])] if with_reference else []))
            .order_by(current.c.session_id, current.c.labeller)
        )
        return [from_row(LabelledScore, r) for r in rows]

    @db_call
    def next_unlabelled(self, criteria_hash: str, labeller: str, after: str | None) -> LabelQueue:
        """``labeller``'s queue: the first session, in session-id order after ``after``, whose latest completed real
        score is under ``criteria_hash`` and that they never labelled, and how many such sessions there are:
        session-id order is stable while someone labels, and unrelated to the score (a sample is not biased)."""
        unlabelled = and_(
            _LATEST.c.criteria_hash == criteria_hash,
            ~exists().where(_LABELS.c.session_id == _LATEST.c.session_id, _LABELS.c.labeller == labeller),
        )
        following = unlabelled if after is None else and_(unlabelled, _LATEST.c.session_id > after)
        queued = select(*[_LATEST.c[name] for name in LabelQueueSession.model_fields])
        with self._engine.connect() as conn:
            row = conn.execute(queued.where(following).order_by(_LATEST.c.session_id).limit(1)).first()
            remaining = conn.execute(select(func.count()).select_from(_LATEST).where(unlabelled)).scalar_one()
        return LabelQueue(
            labeller=labeller,
            criteria_hash=criteria_hash,
            remaining=remaining,
            next=None if row is None else LabelQueueSession.model_validate(row, from_attributes=True),
        )
