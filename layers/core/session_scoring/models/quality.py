"""Judge quality: human labels (request and response bodies), the agreement report, and the repeatability and
robustness reports."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import Field, model_validator

from session_scoring.models.api import ResponseModel
from session_scoring.models.reference import MAX_REFERENCE_CHARS
from session_scoring.models.request import RequestBody
from session_scoring.models.scores import BAND_NAMES, MAX_SCORE, MIN_SCORE, band_for

BandName = Literal["failed", "weak", "adequate", "good", "near_perfect"]
LabelSource = Literal["api", "import"]


class LabelRequest(RequestBody):
    """Body of ``PUT .../labels``: a human's score of the session. A second PUT by the same labeller revises
    their label (the earlier revision is kept). Strict: the CSV importer converts its strings before validating;
    the API takes JSON numbers only. The breakdown follows the rubric in force (``GET /criteria/current``); one that
    does not fit it is refused (422), naming the key and its maximum or the keys missing and unknown."""

    # The breakdown's shape (a map of whole numbers) is checked here; whether it fits the rubric only the label
    # service can check (services/labels.py breakdown_problem): this model does not know the rubric.

    total_score: int = Field(ge=MIN_SCORE, le=MAX_SCORE, description="The human's total, 0-100")
    score_breakdown: dict[str, int] | None = Field(
        default=None,
        description="Optional: points per dimension of the rubric in force (GET /criteria/current lists its "
        "dimensions), keyed by the dimension's key: exactly the rubric's keys, each 0 to its own maximum. Under a "
        "'sum' rubric they add up to total_score (scaled to 0-100 as the rubric's total is); under a 'holistic' "
        "rubric they need not (the total is the human's own)",
    )
    band: BandName | None = Field(
        default=None, description="Optional: the band; must be the band total_score falls in (derived when absent)"
    )
    notes: str | None = Field(
        default=None, max_length=2_000, description="At most 2,000 characters (the request body is capped at 4 KiB)"
    )

    @model_validator(mode="after")
    def _consistent(self) -> LabelRequest:
        expected = band_for(self.total_score).band
        if self.band is not None and self.band != expected:
            raise ValueError(
                f"band is {self.band!r} but a total of {self.total_score} is in band {expected!r}; "
                "leave band out to derive it"
            )
        return self

    @property
    def effective_band(self) -> str:
        return self.band or band_for(self.total_score).band


class SessionLabel(ResponseModel):
    """One revision of one labeller's label."""

    label_id: uuid.UUID
    session_id: str
    labeller: str
    revision: int
    total_score: int
    score_breakdown: dict[str, int] | None = None
    band: str
    notes: str | None = None
    source: LabelSource
    created_at: datetime


class ReferenceRequest(RequestBody):
    """Body of ``PUT .../labels/reference``: the session's true root cause, known afterwards (a postmortem, a
    person, a benchmark's ground truth). Every PUT is a new revision of the session's reference (the earlier ones are
    kept); the highest revision is the one the judges compare the conclusion with."""

    reference_root_cause: str = Field(
        min_length=1,
        max_length=MAX_REFERENCE_CHARS,
        pattern=r"\S",
        description=f"The root cause, 1-{MAX_REFERENCE_CHARS:,} characters (not only whitespace)",
    )
    reference_remediation: str | None = Field(
        default=None, max_length=MAX_REFERENCE_CHARS, description="Optional: the known remediation"
    )


class SessionReference(ResponseModel):
    """One revision of a session's reference; ``reference_root_cause`` null: this revision withdrew it."""

    session_id: str
    revision: int
    reference_root_cause: str | None = Field(validation_alias="root_cause")
    reference_remediation: str | None = Field(default=None, validation_alias="remediation")
    set_by: str
    created_at: datetime


class SessionLabels(ResponseModel):
    """Each labeller's current label (their latest revision), and every revision, newest first; the session's reference
    as set through this API (its highest revision; null when none was set or the last revision withdrew it) and every
    revision of it, newest first."""

    session_id: str
    current: list[SessionLabel]
    history: list[SessionLabel]
    reference: SessionReference | None = None
    reference_history: list[SessionReference] = Field(default_factory=list)


class LabelImportResult(ResponseModel):
    imported: int
    sessions: int
    labellers: int


@dataclass(frozen=True)
class NewLabel:
    """A validated label to store."""

    session_id: str
    labeller: str
    request: LabelRequest
    source: LabelSource


@dataclass(frozen=True)
class LabelledScore:
    """A session with a completed (real) score and a human's current label: one pair of the agreement sample."""

    session_id: str
    labeller: str
    human_total: int
    human_breakdown: dict[str, int] | None
    judge_total: int
    judge_breakdown: dict[str, int] | None


class LabelQueueSession(ResponseModel):
    """The session to label next, with the judge's score the label will be compared with."""

    session_id: str
    score_id: uuid.UUID = Field(description="The latest completed score under the queue's criteria")
    total_score: int
    band: str
    scored_at: datetime


class LabelQueue(ResponseModel):
    """Answer of ``GET .../labels/next``: the caller's next unlabelled session under the current criteria."""

    labeller: str = Field(description="Whose queue this is (the caller)")
    criteria_hash: str = Field(description="The criteria whose scores are queued (the current one)")
    remaining: int = Field(
        description="Sessions with a completed score under the criteria that the labeller has not labelled "
        "(skipped ones included)"
    )
    next: LabelQueueSession | None = Field(
        description="The first of them in session-id order after `after` (from the first when absent); null "
        "when none follows"
    )


class DimensionError(ResponseModel):
    dimension: str
    n: int = Field(description="Sessions whose score and human labels both have this dimension")
    mean_absolute_error: float | None = None


class AgreementPair(ResponseModel):
    session_id: str
    human_total: float
    judge_total: int


class AgreementReport(ResponseModel):
    """How the judge agrees with humans under one criteria hash, over sessions with both a completed score and a
    human label. The human figure of a session is the mean of its labellers' current labels."""

    criteria_hash: str
    n: int = Field(description="Sessions with both a completed score and at least one human label")
    spearman_rho: float | None = Field(default=None, description="Rank correlation of the totals (null below n=2)")
    kendall_tau: float | None = Field(default=None, description="Kendall's tau-b of the totals (null below n=2)")
    mean_absolute_error: float | None = Field(default=None, description="Of the total, in points")
    within_5: float | None = Field(default=None, description="Share of sessions where |judge - human| <= 5")
    within_10: float | None = Field(default=None, description="Share of sessions where |judge - human| <= 10")
    dimensions: list[DimensionError] = Field(
        description="The dimensions compared: each key that a session's score and its labels' breakdowns both have "
        "(whatever their rubric), in the rubric's order"
    )
    weighted_kappa: float | None = Field(
        default=None, description="Cohen's kappa on the five bands, quadratic weights (null when undefined)"
    )
    bands: list[str] = Field(default_factory=lambda: list(BAND_NAMES))
    confusion: list[list[int]] = Field(
        description="confusion[i][j]: sessions humans put in bands[i], judge in bands[j]"
    )
    human_sessions_multi: int = Field(description="Sessions with two or more labellers (Krippendorff's alpha's sample)")
    krippendorff_alpha: float | None = Field(
        default=None, description="Inter-human agreement on the totals (interval), where 2+ labellers labelled"
    )
    pairs: list[AgreementPair] = Field(default_factory=list, description="Judge vs human per session (the scatter)")
    with_reference: bool = Field(
        default=False,
        description="Restricted to the sessions whose latest score was judged against a reference root cause",
    )


class DimensionSpread(ResponseModel):
    dimension: str
    stdev: float


class RepeatabilitySession(ResponseModel):
    session_id: str
    totals: list[int] = Field(description="The total of each sample, in order")
    total_stdev: float = Field(description="Sample standard deviation of the total")
    dimensions: list[DimensionSpread]
    bands: list[str] = Field(description="The band of each sample")
    band_flip_share: float = Field(description="Share of samples outside the session's most common band")
    missing_tools_jaccard: float = Field(
        description="Mean Jaccard similarity of the missing-tool sets over every pair of samples (1: always equal)"
    )
    cache_read_tokens: list[int] = Field(description="Cache-read input tokens of each sample")


class RepeatabilityReport(ResponseModel):
    """K independent verdicts per session, stored as repeatability samples (never scores)."""

    study: str = Field(description="The samples' scored_triggered_by, e.g. repeatability:<id>")
    criteria_hash: str
    repeats: int
    sessions: list[RepeatabilitySession]
    total_stdev: float | None = Field(description="Pooled over sessions: the root of the mean variance")
    dimensions: list[DimensionSpread]
    band_flip_rate: float | None = Field(description="Share of sessions whose samples fell in more than one band")
    missing_tools_jaccard: float | None = Field(description="Mean over sessions")
    failures: list[str] = Field(default_factory=list, description="Sessions or samples that could not be judged")


class RobustnessSession(ResponseModel):
    session_id: str
    injected_into: str = Field(description="Where the instruction was injected (a tool call, or the final analysis)")
    original_total: int
    injected_total: int
    shift: int = Field(description="injected_total - original_total")


class RobustnessReport(ResponseModel):
    """Each session scored as it is and with an instruction injected into its data."""

    study: str
    criteria_hash: str
    injection: str
    sessions: list[RobustnessSession]
    mean_shift: float | None
    max_abs_shift: int | None
    failures: list[str] = Field(default_factory=list)
