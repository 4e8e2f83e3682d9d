"""The sessions list's reads in PostgreSQL: each listed session's latest attempt, which of a source page's sessions
are scored, and the scored sessions themselves, filtered by band and sorted by score, without the session source.
"Scored" is a row in ``latest_scores``; a scored page's total is the band counters' sum, not a count of rows.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.dialects.postgresql import distinct_on

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.db.schema import criteria_scope
from session_scoring.models.records import LatestScoreRecord, SessionFacts
from session_scoring.models.scores import SCORE_BANDS, ScoreStatus
from session_scoring.models.session_list import SessionSort
from session_scoring.repositories.base import StatementRepository, from_row
from session_scoring.repositories.facts import FACT_COLUMNS, facts_from

_SCORES = schema.session_scores
_LATEST = schema.latest_scores
_COUNTS = schema.latest_score_counts


@dataclass(frozen=True)
class ScoredSessionRecord:
    """A scored session as the list shows it: its score and the session facts stored with that attempt."""

    session_id: str
    score_id: uuid.UUID
    total_score: int
    criteria_hash: str
    facts: SessionFacts | None


_ORDERS: dict[SessionSort, tuple[tuple[str, str], bool]] = {
    SessionSort.SOURCE: (("scored_at", "session_id"), True),
    SessionSort.SCORE_DESC: (("total_score", "session_id"), True),
    SessionSort.SCORE_ASC: (("total_score", "session_id"), False),
}
"""Each sort's columns and direction (``source``: the newest score first): the keys of ``ix_latest_scores_newest`` and
``ix_latest_scores_by_total``."""


StartedRange = tuple[datetime | None, datetime | None]
"""Sessions that started at or after the first instant and before the second (None: unbounded on that side)."""


def _started_in(started: StartedRange) -> list[Any]:
    """The conditions of a start range on the attempt's stored session start."""
    after, before = started
    column = _SCORES.c.session_started_at
    conditions = [] if after is None else [column >= after]
    return conditions if before is None else [*conditions, column < before]


def _ordered(columns: Any, order: SessionSort) -> list[Any]:
    names, descending = _ORDERS[order]
    return [columns[name].desc() if descending else columns[name].asc() for name in names]


class SessionListRepository(StatementRepository):
    @db_call
    def latest_attempts(self, session_ids: Sequence[str], criteria_hash: str | None) -> dict[str, LatestScoreRecord]:
        """Each session's score as the list shows it (under ``criteria_hash`` when given), in two queries: its latest
        completed score, with the status of a later attempt that did not complete beside it (a cancelled run or a
        failed re-score never hides a score); a session never scored to completion shows its latest attempt."""
        ids = list(session_ids)
        if not ids:
            return {}
        s, latest = _SCORES.c, _LATEST.c
        attempts = (
            select(s.session_id, s.score_id, s.status, s.total_score, s.criteria_hash)
            .where(s.session_id.in_(ids), s.sample_kind.is_(None))
            .ext(distinct_on(s.session_id))
            .order_by(s.session_id, s.requested_at.desc(), s.score_id.desc())
        )
        if criteria_hash is not None:
            attempts = attempts.where(s.criteria_hash == criteria_hash)
        completed = (
            select(latest.session_id, latest.score_id, latest.total_score, s.criteria_hash)
            .select_from(_LATEST.join(_SCORES, s.score_id == latest.score_id))
            .where(latest.criteria_hash == criteria_scope(criteria_hash), latest.session_id.in_(ids))
        )
        scored = {r.session_id: r for r in self._all(completed)}
        found: dict[str, LatestScoreRecord] = {}
        for row in self._all(attempts):
            status = ScoreStatus(row.status)
            score = scored.get(row.session_id)
            if score is None:
                found[row.session_id] = from_row(LatestScoreRecord, row, status=status, later_attempt_status=None)
            else:
                later = None if score.score_id == row.score_id else status
                found[row.session_id] = from_row(
                    LatestScoreRecord, score, status=ScoreStatus.COMPLETED, later_attempt_status=later
                )
        return found

    @db_call
    def scored_among(self, session_ids: Sequence[str], criteria_hash: str | None) -> set[str]:
        """Which of these sessions have a completed score (under ``criteria_hash`` when given): primary-key probes."""
        ids = list(session_ids)
        if not ids:
            return set()
        rows = self._all(
            select(_LATEST.c.session_id).where(
                _LATEST.c.criteria_hash == criteria_scope(criteria_hash), _LATEST.c.session_id.in_(ids)
            )
        )
        return {r.session_id for r in rows}

    @db_call
    def scored_page(
        self,
        criteria_hash: str | None,
        bands: Sequence[str],
        order: SessionSort,
        offset: int,
        limit: int,
        started: StartedRange = (None, None),
    ) -> list[ScoredSessionRecord]:
        """One page of scored sessions (in ``bands`` when given; in the ``started`` range when given, by the start
        stored with the attempt scored), each with the facts of the attempt scored."""
        latest = _LATEST.c
        conditions = [latest.criteria_hash == criteria_scope(criteria_hash), *_started_in(started)]
        if bands:
            # Bands are score ranges: bounding the total too lets an ordered scan of ix_latest_scores_by_total start
            # at the first selected band instead of reading (and dropping) every lower score first.
            chosen = [band for band in SCORE_BANDS if band.band in bands]
            conditions += [
                latest.band.in_(list(bands)),
                latest.total_score.between(min(b.min_score for b in chosen), max(b.max_score for b in chosen)),
            ]
        # The page's keys first (an index scan of latest_scores alone, skipping ``offset`` entries), then the facts of
        # those few attempts: a deep page does not join every row it skips.
        keys = select(latest.session_id, latest.score_id, latest.total_score, latest.scored_at)
        if started != (None, None):
            keys = keys.select_from(_LATEST.join(_SCORES, _SCORES.c.score_id == latest.score_id))
        page = keys.where(*conditions).order_by(*_ordered(latest, order)).offset(offset).limit(limit).subquery("page")
        statement = (
            select(page.c.session_id, page.c.score_id, page.c.total_score, _SCORES.c.criteria_hash, *FACT_COLUMNS)
            .select_from(page.join(_SCORES, _SCORES.c.score_id == page.c.score_id))
            .order_by(*_ordered(page.c, order))
        )
        return [from_row(ScoredSessionRecord, row, facts=facts_from(row._mapping)) for row in self._all(statement)]

    @db_call
    def scored_count(
        self, criteria_hash: str | None, bands: Sequence[str], started: StartedRange = (None, None)
    ) -> int:
        """Scored sessions (in ``bands`` when given): the sum of the maintained band counters, not a row count; in a
        ``started`` range, a count of the rows in it (the counters are not kept by time)."""
        if started != (None, None):
            counted = (
                select(func.count())
                .select_from(_LATEST.join(_SCORES, _SCORES.c.score_id == _LATEST.c.score_id))
                .where(_LATEST.c.criteria_hash == criteria_scope(criteria_hash), *_started_in(started))
            )
            if bands:
                counted = counted.where(_LATEST.c.band.in_(list(bands)))
            found = self._one(counted)
            return 0 if found is None else int(found[0])
        statement = select(func.coalesce(func.sum(_COUNTS.c.sessions), 0)).where(
            _COUNTS.c.criteria_hash == criteria_scope(criteria_hash), _COUNTS.c.kind == "band"
        )
        if bands:
            statement = statement.where(_COUNTS.c.name.in_(list(bands)))
        row = self._one(statement)
        return 0 if row is None else int(row[0])
