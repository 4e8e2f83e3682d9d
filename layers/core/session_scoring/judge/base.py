"""What every judge takes and returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from session_scoring.models.judge import JudgeVerdict
from session_scoring.models.records import PromptStats
from session_scoring.models.reference import Reference
from session_scoring.models.session import Session


@dataclass(frozen=True)
class JudgePrompt:
    """A rendered request. ``system`` is the same for every session under one configuration (instructions and
    rubric: the cacheable prefix); ``user`` holds this request's fence marker, compaction note and fenced data."""

    system: str
    user: str
    estimated_tokens: int
    compacted: bool = False
    tokens_before_compaction: int | None = None


def prompt_stats(
    prompt: JudgePrompt | None, reference: Reference | None = None, masked_values: Mapping[str, int] | None = None
) -> PromptStats:
    """What a score stores of the request it was judged on (no token counts for a judge that sends no prompt),
    where the reference it was given came from and how many secrets were masked in the session it saw."""
    source = None if reference is None else reference.source
    if prompt is None:
        return PromptStats(
            compacted=False, tokens_before=None, tokens_after=None, reference_source=source, masked_values=masked_values
        )
    return PromptStats(
        compacted=prompt.compacted,
        tokens_before=prompt.tokens_before_compaction if prompt.compacted else prompt.estimated_tokens,
        tokens_after=prompt.estimated_tokens,
        reference_source=source,
        masked_values=masked_values,
    )


@dataclass(frozen=True)
class JudgeRequest:
    session: Session
    prompt: JudgePrompt | None
    """What an LLM judge sends; ``None`` for a judge that sends no prompt (the heuristic judge)."""
    timeout_seconds: float
    """Bound of one call to the judge."""
    budget_seconds: float | None = None
    """Bound of the whole evaluation (answer and repair turn): the time left before the caller's deadline."""
    reference: Reference | None = None
    """The session's known root cause, which the verdict's ``outcome`` compares the conclusion with (an LLM judge's
    prompt carries it fenced); None: the outcome is ``no_reference``."""


class Judge(Protocol):
    provider: str
    model: str

    def evaluate(self, request: JudgeRequest) -> JudgeVerdict:
        """One verdict, or a JudgeError subclass."""
        ...
