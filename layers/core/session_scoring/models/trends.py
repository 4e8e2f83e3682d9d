"""Score trends over time and the comparison of two criteria: the API's answers and the rows they are built from."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pydantic import Field

from session_scoring.models.api import ResponseModel


class TrendBucket(StrEnum):
    DAY = "day"
    WEEK = "week"


class TrendGroup(StrEnum):
    NONE = "none"
    AGENT = "agent"
    ALERT_TYPE = "alert_type"


@dataclass(frozen=True)
class TrendRow:
    """One bucket and group as PostgreSQL aggregated it (dimension means None when no score in it had the dimension)."""

    bucket_start: datetime
    group: str | None
    count: int
    mean: float
    p10: float
    p50: float
    p90: float
    dimension_means: dict[str, float | None]
    band_counts: dict[str, int]
    outcome_counts: dict[str, int]
    """Sessions found, partly found and missed (those judged against a reference)."""


#: The percentiles of the total a trend point has (``percentile_cont``'s).
PERCENTILES = (0.1, 0.5, 0.9)


class TrendPoint(ResponseModel):
    bucket_start: datetime = Field(description="Start of the bucket (UTC; weeks start on Monday)")
    group: str | None = Field(description="The agent or alert type (null: not grouped, or the fact is unknown)")
    count: int
    mean: float
    p10: float
    p50: float
    p90: float
    dimension_means: dict[str, float | None] = Field(description="Mean points of each dimension")
    band_shares: dict[str, float] = Field(description="Share (0-1) of the bucket's sessions in each band")
    with_reference: int = Field(
        description="Sessions of the bucket judged against a reference root cause (their outcome is found, "
        "partly_found or missed)"
    )
    outcome_counts: dict[str, int] = Field(description="Of those, the sessions found, partly_found and missed")
    found_share: float | None = Field(
        description="Share (0-1) of the sessions with a reference whose conclusion found it; null when none had one"
    )


class TrendsReport(ResponseModel):
    criteria_hash: str | None
    bucket: TrendBucket
    group_by: TrendGroup
    scored_after: datetime | None
    scored_before: datetime | None
    points: list[TrendPoint] = Field(description="By bucket start, then group (unknown group last)")


class DeltaSummary(ResponseModel):
    n: int = Field(description="Sessions with both figures")
    mean_delta: float | None = Field(description="Mean of candidate minus base")
    median_delta: float | None


class HumanAgreement(ResponseModel):
    """How a criteria's scores agree with human labels (the agreement report's headline figures, over every labelled
    session scored under it, not only the sessions the comparison shares)."""

    criteria_hash: str
    n: int = Field(description="Labelled sessions with a completed score under the criteria")
    spearman_rho: float | None
    kendall_tau: float | None
    mean_absolute_error: float | None
    weighted_kappa: float | None


class ComparisonPoint(ResponseModel):
    """One session's latest completed total under the base and the candidate criteria (a scatter point)."""

    session_id: str
    base: int
    candidate: int


class Mover(ComparisonPoint):
    delta: int


class CriteriaComparison(ResponseModel):
    base: str
    candidate: str
    n: int = Field(description="Sessions with a latest completed score under both criteria")
    total: DeltaSummary
    dimensions: dict[str, DeltaSummary]
    spearman_rho: float | None = Field(description="Rank correlation of the totals (null below 2 or constant)")
    kendall_tau_b: float | None
    bands: list[str] = Field(description="Band order of the transition matrix's rows and columns")
    band_transitions: list[list[int]] = Field(description="[base band][candidate band] session counts")
    movers_up: list[Mover] = Field(description="The 10 biggest rises, biggest first")
    movers_down: list[Mover] = Field(description="The 10 biggest falls, biggest first")
    base_human_agreement: HumanAgreement
    candidate_human_agreement: HumanAgreement
    points: list[ComparisonPoint] = Field(
        default_factory=list,
        description="Up to 2,000 of the compared sessions (the first by session id: a fixed sample), for a scatter",
    )
    with_reference: bool = Field(
        default=False,
        description="Restricted to the sessions whose latest score under either criteria was judged against a "
        "reference root cause (and each criteria's human agreement to its labelled sessions with one)",
    )
    shared_dimensions: list[str] = Field(
        default_factory=list,
        description="The dimension keys both criteria's rubrics have: `dimensions` compares these only (different "
        "rubrics compare by their totals, always 0-100)",
    )
    base_only_dimensions: list[str] = Field(
        default_factory=list, description="Dimensions of the base's rubric the candidate's does not have"
    )
    candidate_only_dimensions: list[str] = Field(
        default_factory=list, description="Dimensions of the candidate's rubric the base's does not have"
    )


@dataclass(frozen=True)
class ComparisonHistograms:
    """What the comparison's statistics are computed from: sessions per (base total, candidate total), per dimension
    sessions per delta (candidate minus base, both present), and the biggest movers each way, biggest first."""

    joint: dict[tuple[int, int], int]
    dimension_deltas: dict[str, dict[int, int]]
    movers_up: list[Mover]
    movers_down: list[Mover]
