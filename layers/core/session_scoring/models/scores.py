"""Domain constants of a score, defined once: the attempt statuses, the score bands and the judged dimensions.

The API, the table schema, the repositories and the judge all import these from here; the dashboard reads the bands
from the API (``ScoreDistribution.bands`` carries each band's label and bounds).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


# Where a scoring attempt is: queued, being judged, or done either way. (A comment, not a docstring: pydantic would
# put a docstring into the OpenAPI schema, from which the dashboard's types are generated.)
class ScoreStatus(StrEnum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    """An attempt of a cancelled run that no scorer had claimed: terminal, never a score, never active."""


#: Statuses of an attempt still under way; a session has at most one such attempt (a partial unique index).
ACTIVE_STATUSES: tuple[ScoreStatus, ...] = (ScoreStatus.PENDING, ScoreStatus.IN_PROGRESS)


@dataclass(frozen=True)
class Band:
    """A score band of the design: a name, a label and inclusive bounds."""

    band: str
    label: str
    min_score: int
    max_score: int


#: The design's five bands (EP-0028), in order; together they cover 0-100 without gaps or overlaps.
SCORE_BANDS: tuple[Band, ...] = (
    Band("failed", "Failed", 0, 44),
    Band("weak", "Weak", 45, 59),
    Band("adequate", "Adequate", 60, 74),
    Band("good", "Good", 75, 89),
    Band("near_perfect", "Near-perfect", 90, 100),
)
BAND_NAMES = tuple(band.band for band in SCORE_BANDS)

MIN_SCORE = 0
MAX_SCORE = 100


def band_for(score: int) -> Band:
    """The band a 0-100 total score falls in; a score outside 0-100 is a programming error."""
    for band in SCORE_BANDS:
        if band.min_score <= score <= band.max_score:
            return band
    raise ValueError(f"score {score} is outside {MIN_SCORE}-{MAX_SCORE}")


# Whether the session's conclusion found its known root cause (the reference), as the judge compared them.
class Outcome(StrEnum):
    FOUND = "found"
    PARTLY_FOUND = "partly_found"
    MISSED = "missed"
    NO_REFERENCE = "no_reference"


#: The outcomes of a session judged against a reference (every outcome but ``no_reference``).
REFERENCED_OUTCOMES: tuple[Outcome, ...] = (Outcome.FOUND, Outcome.PARTLY_FOUND, Outcome.MISSED)

#: Where a session's reference came from, in order of precedence: the latest reference revision set through the
#: labels API, a field of the imported document, the session source's own field.
REFERENCE_SOURCES: tuple[str, ...] = ("label", "import", "source")
