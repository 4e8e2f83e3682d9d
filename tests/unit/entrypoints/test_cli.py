"""The operator CLI's display: the dead-letter table and the progress bar."""

from __future__ import annotations

import io
import uuid

from session_scoring.entrypoints.cli import ProgressBar, render_report
from session_scoring.models.scores import ScoreStatus
from session_scoring.services.redrive import DeadLetter, DeadLetterReport, RedriveProgress


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


def test_progress_bar_writes_a_line_per_update_off_a_terminal() -> None:
    out = io.StringIO()
    bar = ProgressBar(out)

    bar(RedriveProgress(0, 4))
    bar(RedriveProgress(2, 4))
    bar(RedriveProgress(4, 4))

    assert out.getvalue().splitlines() == [
        f"redrive [{'.' * 30}] 0/4",
        f"redrive [{'#' * 15}{'.' * 15}] 2/4",
        f"redrive [{'#' * 30}] 4/4",
    ]
