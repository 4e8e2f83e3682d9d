"""The missing-tools report's buckets and per-tool figures, from the repository's counters (no database)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from session_scoring.repositories.analytics import (
    BandCount,
    CriteriaUsage,
    OutcomeCount,
    TagCount,
    TaggedScore,
    ToolCount,
)
from session_scoring.services.analytics import AnalyticsService, bucket_starts

SUNDAY = date(2026, 11, 22)


def test_buckets_end_with_the_current_day_or_the_current_week_from_monday() -> None:
    assert bucket_starts(SUNDAY, "day", 3) == [date(2026, 11, 20), date(2026, 11, 21), SUNDAY]
    assert bucket_starts(SUNDAY, "week", 2) == [date(2026, 11, 9), date(2026, 11, 16)]
    assert bucket_starts(date(2026, 11, 23), "week", 1) == [date(2026, 11, 23)]  # a Monday starts its own week


class _Counters:
    """The analytics port (``services.analytics.AnalyticsReads``) with one tool's counters; mypy checks it."""

    def __init__(self, tool: ToolCount) -> None:
        self.tool = tool
        self.since: date | None = None
        self.weekly = False

    def missing_tools(
        self, criteria_hash: str | None, limit: int, since: date | None = None, weekly: bool = False
    ) -> list[ToolCount]:
        self.since = since
        self.weekly = weekly
        return [self.tool]

    def score_distribution(self, criteria_hash: str | None) -> list[BandCount]:
        return []

    def criteria_usage(self) -> list[CriteriaUsage]:
        return []

    def outcome_counts(self, criteria_hash: str | None) -> list[OutcomeCount]:
        return []

    def failure_tags(self, criteria_hash: str | None, since: date, weekly: bool) -> list[TagCount]:
        return []

    def failure_tag_sessions(self, criteria_hash: str | None, tag: str, limit: int, offset: int) -> list[TaggedScore]:
        return []


def test_days_are_summed_into_weeks_and_agents_and_spellings_ordered() -> None:
    tool = ToolCount(
        "get_pod_logs",
        9,
        ["s1"],
        days={date(2026, 11, 9): 2, date(2026, 11, 15): 3, date(2026, 11, 16): 4, date(2026, 11, 1): 7},
        agents={"NetworkAgent": 3, "": 3, "KubernetesAgent": 3, "DatabaseAgent": 5},
        spellings={f"k8s.get_pod_logs_{n}": n for n in range(12)} | {"K8s.Get_Pod_Logs": 11},
        available=4,
    )
    counters = _Counters(tool)
    config: Any = None  # not read by the missing-tools report
    service = AnalyticsService(config, counters, clock=lambda: datetime(2026, 11, 22, 23, 30, tzinfo=UTC))

    report = service.missing_tools(None, 10, "week", 2)

    assert (counters.since, counters.weekly) == (date(2026, 11, 9), True)
    item = report.items[0]
    assert [(p.bucket_start, p.count) for p in item.trend] == [
        (datetime(2026, 11, 9, tzinfo=UTC), 5),
        (datetime(2026, 11, 16, tzinfo=UTC), 4),
    ]
    assert [(a.agent, a.count) for a in item.by_agent] == [
        ("DatabaseAgent", 5),
        ("KubernetesAgent", 3),
        ("NetworkAgent", 3),
        (None, 3),
    ]
    assert item.spellings[:3] == ["K8s.Get_Pod_Logs", "k8s.get_pod_logs_11", "k8s.get_pod_logs_10"]
    assert len(item.spellings) == 10
    assert item.available_in_sessions == 4
