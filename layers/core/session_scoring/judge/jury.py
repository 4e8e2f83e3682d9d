"""Juries (``scoring.jury``): several judges, often of different model families, grade the same prompt.

Each juror's verdict is kept; with at least ``quorum`` verdicts the stored score is their median total and
per-dimension medians (the ensemble's :func:`median_verdict`), stored under provider ``jury``; below the quorum the
attempt fails with each juror's reason. A juror of the same model family as the agent may be left out
(``exclude_same_family``): a judge favours its own family's answers (self-preference bias). The spread names every
juror: its total, or why it failed or was left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from session_scoring.configuration.providers import JudgeTarget, model_family
from session_scoring.errors import JudgePermanentError, JudgeTransientError, ScoringError, TransientError
from session_scoring.judge.ensemble import median_verdict
from session_scoring.models.judge import JudgeVerdict
from session_scoring.models.rubric import Rubric


@dataclass(frozen=True)
class JurorResult:
    target: JudgeTarget
    verdict: JudgeVerdict | None = None
    error: Exception | None = None
    excluded: str | None = None

    @property
    def reason(self) -> str | None:
        if self.excluded is not None:
            return self.excluded
        if self.error is None:
            return None
        return (
            self.error.message if isinstance(self.error, ScoringError) else f"{type(self.error).__name__}: {self.error}"
        )


def excluded_reason(target: JudgeTarget, agent_families: frozenset[str]) -> str | None:
    """Why ``target`` sits out when same-family jurors are left out: its family is the agent's."""
    family = model_family(target.model)
    if family is not None and family in agent_families:
        return f"left out: {target.model} is of the agent's model family ({family})"
    return None


def jury_verdict(
    results: Sequence[JurorResult], quorum: int, provider: str, model: str, rubric: Rubric
) -> tuple[JudgeVerdict, dict[str, Any], list[JudgeVerdict]]:
    """The jury's verdict, its spread (with every juror) and the verdicts that were paid for; below ``quorum``
    verdicts, the error naming each juror's reason (transient when any juror's failure may pass)."""
    verdicts = [r.verdict for r in results if r.verdict is not None]
    sitting = [r for r in results if r.excluded is None]
    needed = min(quorum, len(sitting))
    if not sitting:
        raise JudgePermanentError(
            "every juror was left out as of the agent's model family: " + "; ".join(_named(r) for r in results)
        )
    if len(verdicts) < needed:
        failed = [r for r in sitting if r.verdict is None]
        summary = f"the jury has {len(verdicts)} of the {needed} verdicts its quorum needs: " + "; ".join(
            _named(r) for r in failed
        )
        transient = [r.error for r in failed if isinstance(r.error, TransientError)]
        if transient:
            waits = [e.retry_after_seconds for e in transient if isinstance(e, JudgeTransientError)]
            known = [w for w in waits if w is not None]
            raise JudgeTransientError(summary, retry_after_seconds=max(known) if known else None)
        raise JudgePermanentError(summary)
    median, spread = median_verdict(verdicts, rubric)
    verdict = median.model_copy(update={"provider": provider, "model": model})
    spread = {
        **spread,
        "quorum": needed,
        "jurors": [
            {
                "provider": r.target.provider,
                "model": r.target.model,
                "name": r.target.name,
                "total": r.verdict.output.total_score if r.verdict is not None else None,
                "failed": None if r.verdict is not None or r.excluded is not None else r.reason,
                "excluded": r.excluded,
            }
            for r in results
        ],
    }
    return verdict, spread, verdicts


def _named(result: JurorResult) -> str:
    return f"{result.target.label}: {result.reason}"
