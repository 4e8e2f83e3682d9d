"""A session's reference: its true root cause (and, optionally, its remediation), known after the fact from a
postmortem, a person or a benchmark's ground truth. A judge compares the agent's conclusion with it (the verdict's
``outcome``); it never changes the four method dimensions and is not part of the criteria hash.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MAX_REFERENCE_CHARS = 1_000
"""The longest root cause or remediation taken (characters): the reference adds at most a few hundred tokens to the
judge's request (two texts of 1,000 characters are about 570 estimated tokens)."""

ReferenceSource = Literal["label", "import", "source"]
"""Where a reference came from, in order of precedence (``models.scores.REFERENCE_SOURCES``)."""


@dataclass(frozen=True)
class Reference:
    """The reference a judge is given: the root cause, the remediation if known, and where they came from."""

    root_cause: str
    remediation: str | None
    source: ReferenceSource


def clean_reference_text(value: str | None) -> str | None:
    """A reference text as stored: surrounding whitespace off, and an empty text is no text."""
    return None if value is None else value.strip() or None
