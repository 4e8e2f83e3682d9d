"""Operator commands: ``session-scoring dlq`` shows the dead-letter queue, ``session-scoring redrive`` empties it,
``session-scoring reap`` requeues attempts left active without a message or a scorer (the reaper, run on demand).

Both read the same settings as the service (SCORING_QUEUE_URL, SCORING_DLQ_URL, SCORING_DATABASE_URL or its
secret, AWS_REGION / AWS_ENDPOINT_URL). ``make redrive`` runs ``python -m session_scoring.entrypoints.cli redrive``.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from session_scoring.errors import ScoringError
from session_scoring.services.reaper import AttemptReaper
from session_scoring.services.redrive import DeadLetterReport, DeadLetterService, RedriveProgress

BAR_WIDTH = 30
REASON_WIDTH = 100


def render_report(report: DeadLetterReport) -> str:
    lines = [f"dead-letter queue: {report.approximate_count} message(s) waiting (SQS's approximate count)"]
    if not report.letters:
        return "\n".join(lines)
    sessions = sorted({letter.session_id or "?" for letter in report.letters})
    lines.append(f"sessions: {len(sessions)} ({', '.join(sessions[:10])}{', ...' if len(sessions) > 10 else ''})")
    lines.append("")
    lines.append(f"{'session':<40} {'attempt':<38} {'status':<12} {'receives':>8}  why it failed")
    for letter in report.letters:
        reason = letter.reason.replace("\n", " ")
        if len(reason) > REASON_WIDTH:
            reason = reason[: REASON_WIDTH - 3] + "..."
        status = letter.attempt_status.value if letter.attempt_status else "-"
        lines.append(
            f"{(letter.session_id or '?'):<40} {letter.score_id or '?'!s:<38} {status:<12} "
            f"{letter.receive_count:>8}  {reason}"
        )
    return "\n".join(lines)


class ProgressBar:
    """A one-line progress display on a terminal (a plain line per update elsewhere)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._tty = stream.isatty()

    def __call__(self, progress: RedriveProgress) -> None:
        total = max(progress.total, 1)
        filled = int(BAR_WIDTH * min(progress.moved, total) / total)
        line = f"redrive [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {progress.moved}/{progress.total}"
        if self._tty:
            self._stream.write("\r" + line)
            if progress.moved >= progress.total:
                self._stream.write("\n")
        else:
            self._stream.write(line + "\n")
        self._stream.flush()


def show(service: DeadLetterService, out: TextIO) -> int:
    out.write(render_report(service.inspect()) + "\n")
    return 0


def redrive(service: DeadLetterService, out: TextIO) -> int:
    report = service.inspect()
    out.write(render_report(report) + "\n")
    if report.approximate_count == 0 and not report.letters:
        out.write("nothing to redrive\n")
        return 0
    result = service.redrive(ProgressBar(out))
    out.write(
        f"moved {result.moved} message(s) back to the scoring queue ({result.method}); "
        f"{result.reopened} failed attempt(s) reopened to pending\n"
    )
    for note in result.skipped:
        out.write(f"  not reopened: {note}\n")
    return 0


def reap(reaper: AttemptReaper, out: TextIO) -> int:
    result = reaper.reap()
    for note in result.notes:
        out.write(f"  {note}\n")
    out.write(f"reaped: {result.requeued} requeued, {result.failed} failed\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="session-scoring", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("dlq", help="show how many jobs wait in the dead-letter queue, for which sessions and why")
    commands.add_parser("redrive", help="reopen the dead-lettered attempts and move their jobs back to the queue")
    commands.add_parser("reap", help="requeue (or fail, past the delivery limit) attempts stranded without a message")
    args = parser.parse_args(argv)

    from session_scoring.container import get_container

    try:
        if args.command == "reap":
            return reap(get_container().reaper, sys.stdout)
        service = get_container().dead_letters
        if args.command == "dlq":
            return show(service, sys.stdout)
        return redrive(service, sys.stdout)
    except ScoringError as exc:
        sys.stderr.write(f"error: {exc.message}\n")
        return 2


if __name__ == "__main__":
    sys.exit(main())
