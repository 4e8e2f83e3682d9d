"""Analytics use cases behind the dashboard: score distribution, most frequent missing tools, criteria in use.

Counts are over the latest completed score of each session (see ``repositories.analytics``).
"""

from __future__ import annotations

from session_scoring.configuration.criteria import ScoringConfig
from session_scoring.models.api import (
    CriteriaUsage,
    MissingToolCount,
    MissingToolsReport,
    ScoreBand,
    ScoreDistribution,
)
from session_scoring.models.scores import SCORE_BANDS
from session_scoring.repositories.analytics import AnalyticsRepository

DEFAULT_TOOL_LIMIT = 10


class AnalyticsService:
    def __init__(self, config: ScoringConfig, repository: AnalyticsRepository) -> None:
        self._config = config
        self._repository = repository

    def score_distribution(self, criteria_hash: str | None) -> ScoreDistribution:
        counts = {c.band: c for c in self._repository.score_distribution(criteria_hash)}
        bands = [
            ScoreBand(
                band=b.band,
                label=b.label,
                min_score=b.min_score,
                max_score=b.max_score,
                count=counts[b.band].count,
                session_ids=counts[b.band].session_ids,
            )
            for b in SCORE_BANDS
        ]
        return ScoreDistribution(criteria_hash=criteria_hash, total=sum(b.count for b in bands), bands=bands)

    def missing_tools(self, criteria_hash: str | None, limit: int = DEFAULT_TOOL_LIMIT) -> MissingToolsReport:
        return MissingToolsReport(
            criteria_hash=criteria_hash,
            items=[
                MissingToolCount(tool_name=t.tool_name, count=t.count, session_ids=t.session_ids)
                for t in self._repository.missing_tools(criteria_hash, limit)
            ],
        )

    def criteria_in_use(self) -> list[CriteriaUsage]:
        """Stored criteria definitions, the current one first, each with the sessions it completed."""
        current = self._config.criteria_hash
        usages = [
            CriteriaUsage(
                criteria_hash=u.criteria_hash,
                llm_provider=_text(u.criteria_content, "llm_provider"),
                llm_model=_text(u.criteria_content, "llm_model"),
                created_at=u.created_at,
                completed_sessions=u.completed_sessions,
                is_current=u.criteria_hash == current,
            )
            for u in self._repository.criteria_usage()
        ]
        return sorted(usages, key=lambda u: not u.is_current)


def _text(content: dict[str, object], key: str) -> str | None:
    """A value of the stored definition's ``scoring`` block (absent in definitions of another shape)."""
    scoring = content.get("scoring")
    value = scoring.get(key) if isinstance(scoring, dict) else None
    return value if isinstance(value, str) else None
