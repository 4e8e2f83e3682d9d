"""Score analytics in PostgreSQL over the latest completed attempt of each session (within the criteria hash, when
one is given): the score bands, the most frequent missing tools and the outcomes. They read ``latest_scores`` and the
counters the verdict's statement keeps (``read_models/``): a few rows per bar, whatever the number of scores.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from sqlalchemy import String, Table, Text, func, literal_column, select
from sqlalchemy import cast as sql_cast
from sqlalchemy.dialects.postgresql import ARRAY

from session_scoring.db import schema
from session_scoring.db.calls import db_call
from session_scoring.db.schema import criteria_scope
from session_scoring.models.scores import SCORE_BANDS
from session_scoring.repositories.base import StatementRepository, as_json_list, from_row

_LATEST = schema.latest_scores
_COUNTS = schema.latest_score_counts
_LATEST_TOOLS = schema.latest_score_tools
_CRITERIA = schema.scoring_criteria_definitions
_TOOL_COUNTS = schema.latest_tool_counts
_OUTCOMES = schema.outcome_counts
_TAGS = schema.score_failure_tags


@dataclass
class TagCount:
    """A failure tag's sessions (latest scores), and per bucket from the trend's first on."""

    tag: str
    sessions: int = 0
    buckets: dict[date, int] = field(default_factory=dict)


@dataclass(frozen=True)
class TaggedScore:
    session_id: str
    score_id: Any
    total_score: int
    scored_at: datetime


#: Session ids returned per bar at most (the count is always exact).
MAX_SESSION_IDS = 50


@dataclass(frozen=True)
class BandCount:
    band: str
    count: int
    session_ids: list[str]


@dataclass(frozen=True)
class ToolCount:
    """A missing tool (canonical name) with its sessions, and its ``latest_tool_counts``: ``days`` (UTC day, or
    Monday, -> sessions; only those asked for), ``agents`` ('' for none), ``spellings`` and ``available``."""

    tool_name: str
    count: int
    session_ids: list[str]
    days: dict[date, int] = field(default_factory=dict)
    agents: dict[str, int] = field(default_factory=dict)
    spellings: dict[str, int] = field(default_factory=dict)
    available: int = 0


@dataclass(frozen=True)
class CriteriaUsage:
    criteria_hash: str
    criteria_content: dict[str, Any]
    created_at: datetime
    completed_sessions: int


@dataclass(frozen=True)
class OutcomeCount:
    """The latest scores of one agent and alert type (None: unknown) with one outcome, and the sum of their totals."""

    agent: str | None
    alert_type: str | None
    outcome: str
    sessions: int
    total_sum: int


def _newest_session_ids(table: Table, *conditions: Any) -> Any:
    """Up to MAX_SESSION_IDS session ids of the rows of ``table`` matching ``conditions``, newest first, as one
    array (an index-only scan that stops at the limit)."""
    newest = (
        select(table.c.session_id)
        .where(*conditions)
        .order_by(table.c.scored_at.desc(), table.c.score_id.desc())
        .limit(MAX_SESSION_IDS)
        .scalar_subquery()
    )
    return func.array(newest, type_=ARRAY(String)).label("session_ids")


def _tool_counters(scope: str, tool_name: Any, *conditions: Any) -> list[Any]:
    """The conditions of a tool's ``latest_tool_counts`` rows that count a session (and match ``conditions``)."""
    t = _TOOL_COUNTS.c
    return [t.criteria_hash == scope, t.tool_name == tool_name, *conditions, t.sessions > 0]


def _tool_days(scope: str, tool_name: Any, since: str, weekly: bool) -> Any:
    """A tool's day counters from ``since`` on, or its week counters (keyed by Monday) when ``weekly``, as
    ``'YYYY-MM-DD=n'`` texts: one index-only range scan either way (104 weeks are 104 rows, not 728 days)."""
    per_bucket = (
        select(_TOOL_COUNTS.c.value.op("||")("=").op("||")(sql_cast(_TOOL_COUNTS.c.sessions, Text)))
        .where(
            *_tool_counters(
                scope, tool_name, _TOOL_COUNTS.c.facet == ("week" if weekly else "day"), _TOOL_COUNTS.c.value >= since
            )
        )
        .scalar_subquery()
    )
    return func.array_to_json(func.array(per_bucket, type_=ARRAY(Text)))


def _tool_facets(scope: str, tool_name: Any) -> Any:
    """A tool's agent, spelling and availability counters as one JSON array of ``[facet, value, n]``."""
    return (
        select(
            func.coalesce(
                func.json_agg(
                    func.json_build_array(_TOOL_COUNTS.c.facet, _TOOL_COUNTS.c.value, _TOOL_COUNTS.c.sessions)
                ),
                literal_column("'[]'::json"),
            )
        )
        .where(*_tool_counters(scope, tool_name, _TOOL_COUNTS.c.facet.in_(("agent", "available", "spelling"))))
        .scalar_subquery()
    )


def _tool_count(row: Any) -> ToolCount:
    facets: dict[str, dict[str, int]] = {"agent": {}, "spelling": {}, "available": {}}
    for facet, value, sessions in as_json_list(row.facets):
        facets[facet][value] = int(sessions)
    days = (bucket.split("=") for bucket in as_json_list(row.days))
    return ToolCount(
        row.name,
        int(row.sessions),
        as_json_list(row.session_ids),
        days={date.fromisoformat(day): int(n) for day, n in days},
        agents=facets["agent"],
        spellings=facets["spelling"],
        available=facets["available"].get("", 0),
    )


class AnalyticsRepository(StatementRepository):
    """Read-only aggregate queries over ``latest_scores`` and its counters (kept by ``ScoreRepository.complete``)."""

    @db_call
    def score_distribution(self, criteria_hash: str | None) -> list[BandCount]:
        """Sessions per score band from the band counters, every band present (zero when empty), in band order, each
        with its newest sessions."""
        scope = criteria_scope(criteria_hash)
        counts = _COUNTS.alias("counts")
        rows = self._all(
            select(
                counts.c.name,
                counts.c.sessions,
                _newest_session_ids(_LATEST, _LATEST.c.criteria_hash == scope, _LATEST.c.band == counts.c.name),
            ).where(counts.c.criteria_hash == scope, counts.c.kind == "band", counts.c.sessions > 0)
        )
        found = {row.name: (int(row.sessions), list(row.session_ids)) for row in rows}
        return [BandCount(b.band, *found.get(b.band, (0, []))) for b in SCORE_BANDS]

    @db_call
    def missing_tools(self, criteria_hash: str | None, limit: int, since: date, weekly: bool) -> list[ToolCount]:
        """The tools named missing most often, most frequent first (ties by name), each with its newest sessions and
        its ``latest_tool_counts`` (the days from ``since`` on, or the weeks when ``weekly``)."""
        scope = criteria_scope(criteria_hash)
        top = (
            select(_COUNTS.c.name, _COUNTS.c.sessions)
            .where(_COUNTS.c.criteria_hash == scope, _COUNTS.c.kind == "tool", _COUNTS.c.sessions > 0)
            .order_by(_COUNTS.c.sessions.desc(), _COUNTS.c.name)
            .limit(limit)
            .subquery("top")
        )
        rows = self._all(
            select(
                top.c.name,
                top.c.sessions,
                # As JSON: the driver decodes it in C, a text array in Python (most of the answer's time).
                func.array_to_json(
                    _newest_session_ids(
                        _LATEST_TOOLS, _LATEST_TOOLS.c.criteria_hash == scope, _LATEST_TOOLS.c.tool_name == top.c.name
                    ).element
                ).label("session_ids"),
                _tool_facets(scope, top.c.name).label("facets"),
                _tool_days(scope, top.c.name, since.isoformat(), weekly).label("days"),
            ).order_by(top.c.sessions.desc(), top.c.name)
        )
        return [_tool_count(row) for row in rows]

    @db_call
    def outcome_counts(self, criteria_hash: str | None) -> list[OutcomeCount]:
        """Every ``outcome_counts`` row of the criteria (``ANY_CRITERIA`` for None) that counts a session."""
        o = _OUTCOMES.c
        rows = self._all(
            select(o.agent_unknown, o.agent, o.alert_type_unknown, o.alert_type, o.outcome, o.sessions, o.total_sum)
            .where(o.criteria_hash == criteria_scope(criteria_hash), o.sessions > 0)
            .order_by(o.agent_unknown, o.agent, o.alert_type_unknown, o.alert_type, o.outcome)
        )
        return [
            from_row(
                OutcomeCount,
                row,
                agent=None if row.agent_unknown else row.agent,
                alert_type=None if row.alert_type_unknown else row.alert_type,
            )
            for row in rows
        ]

    @db_call
    def criteria_usage(self) -> list[CriteriaUsage]:
        """Every stored criteria definition with the number of sessions it completed (the sum of its band counters),
        newest definition first."""
        completed = (
            select(_COUNTS.c.criteria_hash, func.sum(_COUNTS.c.sessions).label("sessions"))
            .where(_COUNTS.c.kind == "band")
            .group_by(_COUNTS.c.criteria_hash)
            .subquery("completed")
        )
        rows = self._all(
            select(
                _CRITERIA.c.criteria_hash,
                _CRITERIA.c.criteria_content,
                _CRITERIA.c.created_at,
                func.coalesce(completed.c.sessions, 0).label("completed_sessions"),
            )
            .outerjoin(completed, completed.c.criteria_hash == _CRITERIA.c.criteria_hash)
            .order_by(_CRITERIA.c.created_at.desc())
        )
        return [from_row(CriteriaUsage, row, completed_sessions=int(row.completed_sessions)) for row in rows]

    @db_call
    def failure_tags(self, criteria_hash: str | None, since: date, weekly: bool) -> list[TagCount]:
        """Each failure tag among the sessions' latest completed scores under the criteria (every criteria for
        None), most frequent first (ties by tag), with its sessions per day (per week when ``weekly``) from
        ``since`` on (``score_failure_tags`` joined to ``latest_scores``)."""
        bucket = func.date_trunc("week" if weekly else "day", func.timezone("UTC", _LATEST.c.scored_at))
        tagged = (
            select(_TAGS.c.tag, bucket.label("bucket"))
            .select_from(_LATEST.join(_TAGS, _TAGS.c.score_id == _LATEST.c.score_id))
            .where(_LATEST.c.criteria_hash == criteria_scope(criteria_hash))
            .subquery("tagged")
        )
        rows = self._all(
            select(tagged.c.tag, tagged.c.bucket, func.count().label("sessions"))
            .group_by(tagged.c.tag, tagged.c.bucket)
            .order_by(tagged.c.tag, tagged.c.bucket)
        )
        counts: dict[str, TagCount] = {}
        for row in rows:
            count = counts.setdefault(row.tag, TagCount(row.tag))
            count.sessions += row.sessions
            if row.bucket.date() >= since:
                count.buckets[row.bucket.date()] = row.sessions
        return sorted(counts.values(), key=lambda c: (-c.sessions, c.tag))

    @db_call
    def failure_tag_sessions(self, criteria_hash: str | None, tag: str, limit: int, offset: int) -> list[TaggedScore]:
        """The sessions whose latest completed score under the criteria has ``tag``, most recently scored first."""
        rows = self._all(
            select(_LATEST.c.session_id, _LATEST.c.score_id, _LATEST.c.total_score, _LATEST.c.scored_at)
            .select_from(_LATEST.join(_TAGS, _TAGS.c.score_id == _LATEST.c.score_id))
            .where(_LATEST.c.criteria_hash == criteria_scope(criteria_hash), _TAGS.c.tag == tag)
            .order_by(_LATEST.c.scored_at.desc(), _LATEST.c.score_id.desc())
            .limit(limit)
            .offset(offset)
        )
        return [from_row(TaggedScore, row) for row in rows]
