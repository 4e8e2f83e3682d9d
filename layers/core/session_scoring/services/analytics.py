"""Analytics use cases behind the dashboard: score distribution, most frequent missing tools, criteria in use, and
the outcomes (did the investigations find their known root cause, and does the method score predict it?).

Counts are over the latest completed score of each session (see ``repositories.analytics``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal, Protocol

from session_scoring.configuration.criteria import ScoringConfig, rubric_of
from session_scoring.models.api import (
    CriteriaUsage,
    FailureTagCount,
    FailureTagSession,
    FailureTagSessionsPage,
    FailureTagsReport,
    MissingToolCount,
    MissingToolsReport,
    MissingToolTrendPoint,
    OutcomeReport,
    OutcomeSummary,
    ScoreBand,
    ScoreDistribution,
)
from session_scoring.models.scores import REFERENCED_OUTCOMES, SCORE_BANDS, Outcome
from session_scoring.repositories.analytics import BandCount, OutcomeCount, TagCount, TaggedScore, ToolCount
from session_scoring.repositories.analytics import CriteriaUsage as CriteriaInUse

DEFAULT_TOOL_LIMIT = 10
DEFAULT_TREND_PERIODS = 12
MAX_SPELLINGS = 10

TrendBucketName = Literal["day", "week"]


def bucket_starts(today: date, bucket: TrendBucketName, periods: int) -> list[date]:
    """The first day of each of the last ``periods`` buckets, oldest first, ending with the one holding ``today``
    (weeks start on Monday, as PostgreSQL's ``date_trunc('week')``)."""
    step = 7 if bucket == "week" else 1
    current = today - timedelta(days=today.weekday()) if bucket == "week" else today
    return [current - timedelta(days=step * n) for n in range(periods - 1, -1, -1)]


def _to_item(tool: ToolCount, starts: list[date], midnights: list[datetime], step: int) -> MissingToolCount:
    counts = [0] * len(starts)
    for day, sessions in tool.days.items():
        index = (day - starts[0]).days // step
        if 0 <= index < len(counts):
            counts[index] += sessions
    agents = sorted(tool.agents.items(), key=lambda a: (-a[1], a[0] == "", a[0]))
    # Validated from plain data in one call per tool: several times faster than building each point's model.
    return MissingToolCount.model_validate(
        {
            "tool_name": tool.tool_name,
            "count": tool.count,
            "session_ids": tool.session_ids,
            "spellings": [name for name, _ in sorted(tool.spellings.items(), key=lambda s: (-s[1], s[0]))][
                :MAX_SPELLINGS
            ],
            "trend": [
                {"bucket_start": bucket_start, "count": count}
                for bucket_start, count in zip(midnights, counts, strict=True)
            ],
            "by_agent": [{"agent": agent or None, "count": count} for agent, count in agents],
            "available_in_sessions": tool.available,
        }
    )


class AnalyticsReads(Protocol):
    """The analytics' reads of the latest scores (``repositories.analytics``)."""

    def criteria_usage(self) -> list[CriteriaInUse]: ...
    def missing_tools(self, criteria_hash: str | None, limit: int, since: date, weekly: bool) -> list[ToolCount]: ...
    def failure_tags(self, criteria_hash: str | None, since: date, weekly: bool) -> list[TagCount]: ...
    def failure_tag_sessions(
        self, criteria_hash: str | None, tag: str, limit: int, offset: int
    ) -> list[TaggedScore]: ...
    def score_distribution(self, criteria_hash: str | None) -> list[BandCount]: ...
    def outcome_counts(self, criteria_hash: str | None) -> list[OutcomeCount]: ...


def summarise_outcomes(agent: str | None, alert_type: str | None, counts: list[OutcomeCount]) -> OutcomeSummary:
    """The figures of one group from its counters (each outcome's sessions and sum of totals)."""
    sessions: Counter[str] = Counter()
    sums: Counter[str] = Counter()
    for count in counts:
        sessions[count.outcome] += count.sessions
        sums[count.outcome] += count.total_sum
    means = {o.value: sums[o.value] / sessions[o.value] if sessions[o.value] else None for o in Outcome}
    with_reference = sum(sessions[o.value] for o in REFERENCED_OUTCOMES)
    found, missed = means[Outcome.FOUND.value], means[Outcome.MISSED.value]
    return OutcomeSummary(
        agent=agent,
        alert_type=alert_type,
        sessions=sum(sessions.values()),
        with_reference=with_reference,
        found_share=sessions[Outcome.FOUND.value] / with_reference if with_reference else None,
        score_gap=None if found is None or missed is None else found - missed,
        **{o.value: sessions[o.value] for o in Outcome},
        **{f"mean_score_{o.value}": means[o.value] for o in Outcome},
    )


@dataclass(eq=False)
class AnalyticsService:
    config: ScoringConfig
    repository: AnalyticsReads
    clock: Callable[[], datetime] = lambda: datetime.now(UTC)

    def score_distribution(self, criteria_hash: str | None) -> ScoreDistribution:
        counts = {c.band: c for c in self.repository.score_distribution(criteria_hash)}
        bands = [
            ScoreBand(**asdict(b), count=counts[b.band].count, session_ids=counts[b.band].session_ids)
            for b in SCORE_BANDS
        ]
        return ScoreDistribution(criteria_hash=criteria_hash, total=sum(b.count for b in bands), bands=bands)

    def missing_tools(
        self,
        criteria_hash: str | None,
        limit: int = DEFAULT_TOOL_LIMIT,
        bucket: TrendBucketName = "week",
        periods: int = DEFAULT_TREND_PERIODS,
    ) -> MissingToolsReport:
        """The most frequent missing tools (canonical names), each with its spellings, its trend over the last
        ``periods`` buckets (by the UTC day its sessions' latest scores were stored), its agents and how many of
        its sessions had it available."""
        starts = bucket_starts(self.clock().astimezone(UTC).date(), bucket, periods)
        tools = self.repository.missing_tools(criteria_hash, limit, since=starts[0], weekly=bucket == "week")
        step = 7 if bucket == "week" else 1
        midnights = [datetime.combine(start, time(), UTC) for start in starts]
        return MissingToolsReport(
            criteria_hash=criteria_hash,
            bucket=bucket,
            periods=periods,
            items=[_to_item(tool, starts, midnights, step) for tool in tools],
        )

    def failure_tags(
        self, criteria_hash: str | None, bucket: TrendBucketName = "week", periods: int = DEFAULT_TREND_PERIODS
    ) -> FailureTagsReport:
        """Each failure tag's sessions among the latest scores, with its trend over the last ``periods`` buckets and
        what it means (from the rubric of the criteria in force, when it has the tag)."""
        starts = bucket_starts(self.clock().astimezone(UTC).date(), bucket, periods)
        tags = self.repository.failure_tags(criteria_hash, since=starts[0], weekly=bucket == "week")
        meanings = {t.tag: t.description for t in self.config.rubric.failure_tags}
        return FailureTagsReport(
            criteria_hash=criteria_hash,
            bucket=bucket,
            periods=periods,
            items=[
                FailureTagCount(
                    tag=tag.tag,
                    description=meanings.get(tag.tag),
                    count=tag.sessions,
                    trend=[
                        MissingToolTrendPoint(
                            bucket_start=datetime.combine(start, time(), UTC), count=tag.buckets.get(start, 0)
                        )
                        for start in starts
                    ],
                )
                for tag in tags
            ],
        )

    def failure_tag_sessions(
        self, tag: str, criteria_hash: str | None, page: int, page_size: int
    ) -> FailureTagSessionsPage:
        """The sessions whose latest score has ``tag`` (the drill-down of a failure tag), newest first."""
        rows = self.repository.failure_tag_sessions(criteria_hash, tag, page_size, (page - 1) * page_size)
        return FailureTagSessionsPage(
            tag=tag,
            criteria_hash=criteria_hash,
            page=page,
            page_size=page_size,
            items=[
                FailureTagSession(
                    session_id=r.session_id, score_id=r.score_id, total_score=r.total_score, scored_at=r.scored_at
                )
                for r in rows
            ],
        )

    def outcome(self, criteria_hash: str | None) -> OutcomeReport:
        """The outcomes of each session's latest completed score under the criteria, overall and per agent and alert
        type (most sessions with a reference first)."""
        counts = self.repository.outcome_counts(criteria_hash)
        groups: dict[tuple[str | None, str | None], list[OutcomeCount]] = {}
        for count in counts:
            groups.setdefault((count.agent, count.alert_type), []).append(count)
        summaries = [summarise_outcomes(agent, alert, rows) for (agent, alert), rows in groups.items()]
        summaries.sort(
            key=lambda g: (-g.with_reference, g.agent is None, g.agent or "", g.alert_type is None, g.alert_type or "")
        )
        return OutcomeReport(
            criteria_hash=criteria_hash, overall=summarise_outcomes(None, None, counts), groups=summaries
        )

    def criteria_in_use(self) -> list[CriteriaUsage]:
        """Stored criteria definitions, the current one first, each with the sessions it completed."""
        current = self.config.criteria_hash
        usages = [
            CriteriaUsage(
                **vars(u),
                llm_provider=_text(u.criteria_content, "llm_provider"),
                llm_model=_text(u.criteria_content, "llm_model"),
                is_current=u.criteria_hash == current,
            )
            for u in self.repository.criteria_usage()
        ]
        return sorted(usages, key=lambda u: not u.is_current)

    def dimensions_in_use(self) -> tuple[str, ...]:
        """The dimension keys of every criteria's rubric that completed a session, the current rubric's first, each
        once in its rubric's order (what a question over every criteria has columns for)."""
        keys = dict.fromkeys(self.config.rubric.keys)
        for usage in self.repository.criteria_usage():
            if usage.completed_sessions and usage.criteria_hash != self.config.criteria_hash:
                keys.update(dict.fromkeys(rubric_of(usage.criteria_content).keys))
        return tuple(keys)


def _text(content: dict[str, object], key: str) -> str | None:
    """A value of the stored definition's ``scoring`` block (absent in definitions of another shape)."""
    scoring = content.get("scoring")
    value = scoring.get(key) if isinstance(scoring, dict) else None
    return value if isinstance(value, str) else None
