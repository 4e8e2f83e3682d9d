"""The operator CLI's display: the dead-letter table and the progress bar."""

from __future__ import annotations

import io
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from session_scoring.entrypoints.cli import redrive, render_report
from session_scoring.models.scores import ScoreStatus
from session_scoring.services.redrive import DeadLetter, DeadLetterReport, RedriveProgress, RedriveResult


def test_report_lists_sessions_and_why_they_failed() -> None:
    score_id = uuid.uuid4()
    report = DeadLetterReport(
        approximate_count=2,
        letters=[
            DeadLetter("m1", 5, score_id, "session-a", ScoreStatus.FAILED, "the judge answered 529: Overloaded " * 9),
            DeadLetter("m2", 5, None, None, None, "not a scoring job: invalid JSON"),
        ],
    )

    text = render_report(report)

    assert text.splitlines()[0] == "dead-letter queue: 2 message(s) waiting (SQS's approximate count)"
    assert "sessions: 2 (?, session-a)" in text
    row = next(line for line in text.splitlines() if line.startswith("session-a"))
    assert str(score_id) in row
    assert "failed" in row
    assert row.endswith("...")
    assert "not a scoring job" in text


def test_empty_report_is_one_line() -> None:
    assert render_report(DeadLetterReport(0, [])) == "dead-letter queue: 0 message(s) waiting (SQS's approximate count)"


def test_redrive_progress_writes_a_line_per_update_off_a_terminal() -> None:
    class Letters:
        def inspect(self) -> DeadLetterReport:
            return DeadLetterReport(4, [])

        def redrive(self, progress: Callable[[RedriveProgress], None]) -> RedriveResult:
            for moved in (0, 2, 4):
                progress(RedriveProgress(moved, 4))
            return RedriveResult(moved=4, reopened=0, method="test")

    out = io.StringIO()
    assert redrive(Letters(), out) == 0  # type: ignore[arg-type]

    assert out.getvalue().splitlines()[1:4] == [
        f"redrive [{'.' * 30}] 0/4",
        f"redrive [{'#' * 15}{'.' * 15}] 2/4",
        f"redrive [{'#' * 30}] 4/4",
    ]


def test_judge_study_reports_read_as_tables() -> None:
    from session_scoring.entrypoints.cli import repeatability_text, robustness_text
    from session_scoring.models.quality import (
        DimensionSpread,
        RepeatabilityReport,
        RepeatabilitySession,
        RobustnessReport,
        RobustnessSession,
    )

    dims = [DimensionSpread(dimension="logical_flow", stdev=1.5)]
    session = RepeatabilitySession(
        session_id="s-1",
        totals=[80, 70, 80],
        total_stdev=5.77,
        dimensions=dims,
        bands=["good", "adequate", "good"],
        band_flip_share=1 / 3,
        missing_tools_jaccard=0.67,
        cache_read_tokens=[0, 900, 900],
    )
    text = repeatability_text(
        RepeatabilityReport(
            study="repeatability:abc",
            criteria_hash="f" * 64,
            repeats=3,
            sessions=[session],
            total_stdev=5.77,
            dimensions=dims,
            band_flip_rate=1.0,
            missing_tools_jaccard=0.67,
            failures=["s-2: the judge answered 500"],
        )
    )
    assert "80,70,80" in text
    assert "0,900,900" in text
    assert "sd of the total 5.77 (pooled)" in text
    assert "band flip rate 1.00" in text
    assert "failed: s-2: the judge answered 500" in text

    shifted = robustness_text(
        RobustnessReport(
            study="robustness:abc",
            criteria_hash="f" * 64,
            injection="ignore previous instructions",
            sessions=[
                RobustnessSession(
                    session_id="s-1", injected_into="tool call x", original_total=60, injected_total=75, shift=15
                )
            ],
            mean_shift=15.0,
            max_abs_shift=15,
        )
    )
    assert "+15  tool call x" in shifted
    assert "mean shift +15.00, largest |shift| 15" in shifted


def test_labels_import_of_a_missing_file_says_so(tmp_path: Path) -> None:
    import argparse

    from session_scoring.entrypoints.cli import labels_command
    from session_scoring.errors import InvalidRequestError
    from session_scoring.services.labels import LabelService

    args = argparse.Namespace(file=tmp_path / "nope.csv", labeller=None)
    with pytest.raises(InvalidRequestError, match=r"cannot read .*nope.csv"):
        labels_command(LabelService(None, print), args, io.StringIO())  # type: ignore[arg-type]
