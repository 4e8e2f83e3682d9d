"""The outcome report from the repository's counters (no database): shares, means and the order of the groups."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from session_scoring.repositories.analytics import (
    BandCount,
    CriteriaUsage,
    OutcomeCount,
    TagCount,
    TaggedScore,
    ToolCount,
)
from session_scoring.services.analytics import AnalyticsService


class _Counters:
    """The analytics port (``services.analytics.AnalyticsReads``) holding outcome counters; mypy checks it."""

    def __init__(self, counts: list[OutcomeCount]) -> None:
        self.counts = counts
        self.asked: list[str | None] = []

    def outcome_counts(self, criteria_hash: str | None) -> list[OutcomeCount]:
        self.asked.append(criteria_hash)
        return self.counts

    def failure_tags(self, criteria_hash: str | None, since: date, weekly: bool) -> list[TagCount]:
        return []

    def failure_tag_sessions(self, criteria_hash: str | None, tag: str, limit: int, offset: int) -> list[TaggedScore]:
        return []

    def missing_tools(
        self, criteria_hash: str | None, limit: int, since: Any = None, weekly: bool = False
    ) -> list[ToolCount]:
        return []

    def score_distribution(self, criteria_hash: str | None) -> list[BandCount]:
        return []

    def criteria_usage(self) -> list[CriteriaUsage]:
        return []


def test_shares_means_and_the_gap_per_group_and_overall() -> None:
    counters = _Counters(
        [
            OutcomeCount("KubernetesAgent", "PodOOMKilled", "found", 3, 240),
            OutcomeCount("KubernetesAgent", "PodOOMKilled", "missed", 1, 50),
            OutcomeCount("KubernetesAgent", "PodOOMKilled", "no_reference", 5, 300),
            OutcomeCount(None, None, "partly_found", 2, 130),
            OutcomeCount("NetworkAgent", "HighLatency", "no_reference", 4, 280),
            OutcomeCount("NetworkAgent", "HighLatency", "missed", 2, 110),
            OutcomeCount("NetworkAgent", "HighLatency", "found", 2, 150),
        ]
    )
    config: Any = None  # not read by the outcome report

    report = AnalyticsService(config, counters).outcome("a" * 64)

    assert counters.asked == ["a" * 64]
    overall = report.overall
    assert (overall.sessions, overall.with_reference, overall.found, overall.partly_found) == (19, 10, 5, 2)
    assert overall.found_share == 0.5
    assert overall.mean_score_found == pytest.approx(390 / 5)
    assert overall.mean_score_missed == pytest.approx(160 / 3)
    assert overall.score_gap == pytest.approx(390 / 5 - 160 / 3)
    assert [(g.agent, g.alert_type, g.with_reference) for g in report.groups] == [
        ("KubernetesAgent", "PodOOMKilled", 4),
        ("NetworkAgent", "HighLatency", 4),
        (None, None, 2),
    ]
    kubernetes = report.groups[0]
    assert (kubernetes.found_share, kubernetes.mean_score_found, kubernetes.mean_score_no_reference) == (0.75, 80, 60)
    unknown = report.groups[2]
    assert (unknown.found_share, unknown.score_gap, unknown.mean_score_partly_found) == (0.0, None, 65)


def test_without_scores_judged_for_an_outcome_the_report_is_empty() -> None:
    report = AnalyticsService(None, _Counters([])).outcome(None)  # type: ignore[arg-type]

    assert report.groups == []
    assert (report.overall.sessions, report.overall.found_share, report.overall.score_gap) == (0, None, None)
