"""Operator commands of session-scoring; ``session-scoring COMMAND --help`` says what each one does.

``dlq`` shows the dead-letter queue, ``redrive`` reopens its attempts and moves their jobs back to the scoring queue,
``reap`` requeues attempts left active without a message or a scorer (the reaper, run on demand), ``runs
create|list|watch|cancel`` starts (or estimates, ``--dry-run``), lists, follows and cancels scoring runs, ``facts
backfill`` fills the session facts of attempts that have none, ``export training`` writes the training export to a
file, ``labels import FILE.csv`` imports human labels, and ``judge repeatability|robustness`` measure the judge
(docs/judge-quality.md).

Every command reads the service's settings from the environment (docs/configuration.md) and uses only the parts it
needs: the database (SCORING_DATABASE_URL or its secret) for all of them; the scoring queue and its dead-letter
queue (SCORING_QUEUE_URL, SCORING_DLQ_URL) for ``dlq`` and ``redrive``, the scoring queue for ``reap``; the runs
queue (SCORING_RUNS_QUEUE_URL) for ``runs``; the session source for ``runs``, ``facts``, ``export`` and ``judge``;
the judge's settings for ``judge`` and batch-mode runs; AWS_REGION / AWS_ENDPOINT_URL for the AWS clients.
``make redrive`` runs ``python -m session_scoring.entrypoints.cli redrive``.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from session_scoring.errors import InvalidRequestError, ScoringError
from session_scoring.models.quality import RepeatabilityReport, RobustnessReport
from session_scoring.models.runs import (
    FINISHED_RUN_STATUSES,
    DryRunResult,
    RunRequest,
    RunSelection,
    RunStatus,
    ScoringRun,
    Which,
)
from session_scoring.services.exports import TRAINING_FORMATS, TrainingExportService
from session_scoring.services.facts import FactsBackfill
from session_scoring.services.labels import LabelService
from session_scoring.services.quality import JudgeQualityService
from session_scoring.services.reaper import AttemptReaper
from session_scoring.services.redrive import DeadLetterReport, DeadLetterService
from session_scoring.services.runs import RunService

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


def _show(stream: TextIO, line: str, last: bool) -> None:
    """``line`` redrawn in place on a terminal (and ended when ``last``), a plain line elsewhere."""
    stream.write(("\r" + line + ("\n" if last else "")) if stream.isatty() else line + "\n")
    stream.flush()


def _draw(stream: TextIO, label: str, done: int, total: int) -> None:
    """``label`` [#####.....] done/total."""
    filled = int(BAR_WIDTH * min(done, max(total, 1)) / max(total, 1))
    _show(stream, f"{label} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {done}/{total}", done >= total)


def show(service: DeadLetterService, out: TextIO) -> int:
    out.write(render_report(service.inspect()) + "\n")
    return 0


def redrive(service: DeadLetterService, out: TextIO) -> int:
    report = service.inspect()
    out.write(render_report(report) + "\n")
    if report.approximate_count == 0 and not report.letters:
        out.write("nothing to redrive\n")
        return 0
    result = service.redrive(lambda progress: _draw(out, "redrive", progress.moved, progress.total))
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


def run_line(run: ScoringRun) -> str:
    """One progress line: a bar of ended attempts, counts by status, cost so far and the ETA."""
    c = run.counts
    total = c.pending + c.in_progress + c.completed + c.failed + c.cancelled
    ended = c.completed + c.failed + c.cancelled
    filled = int(BAR_WIDTH * ended / total) if total else (BAR_WIDTH if run.finished_at else 0)
    cost = "?" if run.usage.cost_usd is None else f"{run.usage.cost_usd:.4f}"
    limit = "" if run.max_cost_usd is None else f"/{run.max_cost_usd:g}"
    eta = "-" if run.eta_seconds is None else f"{run.eta_seconds:.0f}s"
    return (
        f"{run.status.value:<9} [{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {ended}/{total} "
        f"completed {c.completed} failed {c.failed} cancelled {c.cancelled} pending {c.pending} "
        f"running {c.in_progress} skipped {c.skipped} | cost ${cost}{limit} | eta {eta}"
    )


def run_summary(run: ScoringRun) -> str:
    lines = [
        f"run {run.run_id}  {run.name!r}  started by {run.started_by} "
        f"at {run.created_at.isoformat(timespec='seconds')}",
        f"  selection: {run.selection.model_dump(mode='json', exclude_none=True)}  max_sessions {run.max_sessions}"
        + ("" if run.max_cost_usd is None else f"  max_cost_usd {run.max_cost_usd:g}"),
        "  " + run_line(run),
    ]
    if run.stop_reason:
        lines.append(f"  stopped selecting: {run.stop_reason}")
    if run.error_message:
        lines.append(f"  error: {run.error_message}")
    return "\n".join(lines)


def dry_run_report(result: DryRunResult) -> str:
    e = result.estimate
    cost = "unknown (no price for the model)" if e.estimated_cost_usd is None else f"${e.estimated_cost_usd:.4f}"
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(result.skipped_by_reason.items())) or "none"
    lines = [
        f"would score {result.sessions_selected} session(s) (read {result.sessions_read}; skipped {skipped})",
        f"estimated tokens: {e.estimated_input_tokens} in, {e.estimated_output_tokens} out; cost {cost}; "
        f"duration about {e.estimated_duration_seconds:.0f}s",
        f"how: {e.method}",
        f"sample: {', '.join(result.sample_session_ids) or '-'}",
    ]
    if result.stop_reason:
        lines.append(f"selection stops: {result.stop_reason}")
    return "\n".join(lines)


def runs_command(service: RunService, args: argparse.Namespace, out: TextIO, wait: Callable[[float], object]) -> int:
    """``runs create|list|watch|cancel``: the run service, called in-process like the other operator commands."""
    if args.runs_command == "create":
        # The options' destinations are the request's field names.
        selection = {name: value for name in RunSelection.model_fields if (value := getattr(args, name)) is not None}
        body = {name: getattr(args, name) for name in RunRequest.model_fields if name != "selection"}
        try:
            request = RunRequest.model_validate({"selection": selection, **body})
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise InvalidRequestError(f"invalid run: {problems}") from None
        if request.dry_run:
            out.write(dry_run_report(service.dry_run(request)) + "\n")
            return 0
        run = service.create(request, started_by="cli")
        out.write(run_summary(run) + f"\nwatch it with: session-scoring runs watch {run.run_id}\n")
        return 0
    if args.runs_command == "list":
        page = service.list_runs(args.page, args.page_size)
        for run in page.items:
            out.write(
                f"{run.run_id}  {run.created_at.isoformat(timespec='seconds')}  {run.name[:40]:<40}  {run_line(run)}\n"
            )
        out.write(f"page {page.page}/{page.total_pages}, {page.total_items} run(s)\n")
        return 0
    if args.runs_command == "cancel":
        out.write(run_summary(service.cancel(args.run_id, cancelled_by="cli")) + "\n")
        return 0
    while True:
        run = service.get(args.run_id)
        _show(out, run_line(run), last=run.status in FINISHED_RUN_STATUSES)
        if run.status in FINISHED_RUN_STATUSES:
            if run.stop_reason:
                out.write(f"stopped selecting: {run.stop_reason}\n")
            return 1 if run.status == RunStatus.FAILED else 0
        wait(args.interval)


class CountBar:
    """``label`` [#####.....] done/total on one terminal line (a line per tenth elsewhere)."""

    def __init__(self, stream: TextIO, label: str, total: int) -> None:
        self._stream = stream
        self._label = label
        self._total = max(total, 1)
        self._step = max(1, self._total // 10)

    def __call__(self, done: int) -> None:
        if self._stream.isatty() or not done % self._step or done >= self._total:
            _draw(self._stream, self._label, done, self._total)


def labels_command(service: LabelService, args: argparse.Namespace, out: TextIO) -> int:
    """``labels import FILE.csv``: validate every row, then store them all in one transaction (or none)."""
    try:
        text = args.file.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InvalidRequestError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    labels = service.parse_csv(text, args.labeller)
    out.write(f"{args.file}: {len(labels)} valid row(s); importing in one transaction\n")
    result = service.import_labels(labels, CountBar(out, "import", len(labels)))
    out.write(
        f"imported {result.imported} label(s) for {result.sessions} session(s) from {result.labellers} labeller(s)\n"
    )
    return 0


def repeatability_text(report: RepeatabilityReport) -> str:
    lines = [f"study {report.study}: {report.repeats} verdicts per session, criteria {report.criteria_hash[:12]}"]
    lines.append(f"{'session':<40} {'totals':<28} {'sd':>6} {'band flips':>10} {'tools J':>8}  cache read")
    for s in report.sessions:
        totals = ",".join(str(t) for t in s.totals)
        lines.append(
            f"{s.session_id:<40} {totals:<28} {s.total_stdev:>6.2f} {s.band_flip_share:>10.2f} "
            f"{s.missing_tools_jaccard:>8.2f}  {','.join(str(t) for t in s.cache_read_tokens)}"
        )
    if report.total_stdev is not None:
        dims = ", ".join(f"{d.dimension} {d.stdev:.2f}" for d in report.dimensions)
        lines.append(f"overall: sd of the total {report.total_stdev:.2f} (pooled); per dimension: {dims}")
        lines.append(
            f"band flip rate {report.band_flip_rate:.2f} (sessions whose verdicts span 2+ bands); "
            f"missing-tool Jaccard {report.missing_tools_jaccard:.2f}"
        )
    lines.extend(f"failed: {f}" for f in report.failures)
    return "\n".join(lines)


def robustness_text(report: RobustnessReport) -> str:
    lines = [f"study {report.study}: injected {report.injection!r}"]
    lines.append(f"{'session':<40} {'original':>8} {'injected':>8} {'shift':>6}  injected into")
    for s in report.sessions:
        lines.append(f"{s.session_id:<40} {s.original_total:>8} {s.injected_total:>8} {s.shift:>+6}  {s.injected_into}")
    if report.mean_shift is not None:
        lines.append(f"mean shift {report.mean_shift:+.2f}, largest |shift| {report.max_abs_shift}")
    lines.extend(f"failed: {f}" for f in report.failures)
    return "\n".join(lines)


def judge_command(service: JudgeQualityService, args: argparse.Namespace, out: TextIO) -> int:
    """``judge repeatability|robustness``: a study on the configured judge; samples stored, report printed."""
    sessions = service.select_sessions(args.sessions, args.session_id or ())
    if args.judge_command == "repeatability":
        bar = CountBar(out, "judge calls", len(sessions) * args.repeats)
        rep = service.repeatability(sessions, args.repeats, bar)
        out.write((rep.model_dump_json(indent=2) if args.json else repeatability_text(rep)) + "\n")
        return 1 if rep.failures and not rep.sessions else 0
    bar = CountBar(out, "sessions", len(sessions))
    rob = service.robustness(sessions, bar)
    out.write((rob.model_dump_json(indent=2) if args.json else robustness_text(rob)) + "\n")
    return 1 if rob.failures and not rob.sessions else 0


def _add_judge_parser(commands: Any) -> None:
    judge = commands.add_parser("judge", help="measure the judge: repeatability, robustness (docs/judge-quality.md)")
    sub = judge.add_subparsers(dest="judge_command", required=True)
    rep = sub.add_parser("repeatability", help="K independent verdicts per session: their spread")
    rep.add_argument("--repeats", type=int, required=True, help="verdicts per session (at least 2)")
    rob = sub.add_parser("robustness", help="score each session and a variant with an injected instruction")
    for parser in (rep, rob):
        parser.add_argument("--sessions", type=int, default=5, help="how many sessions (the source's first)")
        parser.add_argument("--session-id", action="append", help="this session instead (repeatable)")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")


def _add_runs_parser(commands: Any) -> None:
    runs = commands.add_parser("runs", help="scoring runs: create (or --dry-run), list, watch, cancel")
    sub = runs.add_subparsers(dest="runs_command", required=True)
    create = sub.add_parser("create", help="start a scoring run (or estimate it with --dry-run)")
    create.add_argument("--which", default="unscored", choices=[w.value for w in Which])
    create.add_argument("--score-below", type=int, help="with --which score_below")
    create.add_argument(
        "--session-id", dest="session_ids", metavar="SESSION_ID", action="append", help="only this session (repeatable)"
    )
    create.add_argument(
        "--status", dest="statuses", metavar="STATUS", action="append", help="session status to read (repeatable)"
    )
    create.add_argument(
        "--after", dest="submitted_after", metavar="AFTER", help="sessions started at or after this ISO time"
    )
    create.add_argument(
        "--before", dest="submitted_before", metavar="BEFORE", help="sessions started before this ISO time"
    )
    create.add_argument("--agent")
    create.add_argument("--alert-type")
    create.add_argument("--max-sessions", type=int, required=True)
    create.add_argument("--max-cost-usd", type=float)
    create.add_argument("--mode", default="online", choices=["online", "batch"])
    create.add_argument("--name")
    create.add_argument("--dry-run", action="store_true", help="estimate only: nothing is stored or queued")
    listing = sub.add_parser("list", help="runs, newest first")
    listing.add_argument("--page", type=int, default=1)
    listing.add_argument("--page-size", type=int, default=20)
    watch = sub.add_parser("watch", help="a live progress line until the run ends")
    watch.add_argument("run_id", type=uuid.UUID)
    watch.add_argument("--interval", type=float, default=2.0, help="seconds between updates")
    cancel = sub.add_parser("cancel", help="cancel a run: its attempts not yet claimed end cancelled")
    cancel.add_argument("run_id", type=uuid.UUID)


def _progress(total: int, unit: str, out: TextIO) -> Any:
    """A tqdm progress bar on ``out`` (redrawn in place on a terminal, a few plain lines elsewhere)."""
    from tqdm import tqdm

    return tqdm(total=total, unit=unit, file=out, dynamic_ncols=True, mininterval=0.5)


def facts_backfill(service: FactsBackfill, out: TextIO) -> int:
    """``facts backfill``: fill the session facts of attempts without them, session by session, with a progress bar;
    a line for each session the source no longer has. Safe to stop and run again (it resumes where it stopped)."""
    sessions = service.pending_sessions()
    if not sessions:
        out.write("every attempt has its session facts; nothing to backfill\n")
        return 0
    with _progress(len(sessions), "session", out) as bar:

        def step(note: str | None) -> None:
            if note:
                bar.write(note, file=out)
            bar.update(1)

        result = service.run(step)
    out.write(
        f"backfilled {result.attempts_filled} attempt(s) of {result.sessions - len(result.gone)} session(s); "
        f"{len(result.gone)} session(s) no longer at the source\n"
    )
    return 0


def export_training(service: TrainingExportService, args: argparse.Namespace, out: TextIO) -> int:
    """``export training``: the training export written to ``--out``, with a progress bar over the sessions."""
    parameters = service.check(args.min_score, args.criteria_hash, args.format)
    # Which criteria the scores must be under, said first: a stack whose judge differs from this environment's (the
    # criteria hash includes the judge) exports nothing under "current", and the reason must be visible.
    chosen = "any criteria" if parameters.criteria_hash is None else parameters.criteria_hash
    out.write(f"criteria: {chosen} ({args.criteria_hash}); min score {parameters.min_score}; {parameters.format}\n")
    written = 0
    with open(args.out, "w", encoding="utf-8") as target, _progress(service.count(parameters), "session", out) as bar:

        def step(note: str | None) -> None:
            if note:
                bar.write(note, file=out)
            bar.update(1)

        for line in service.lines(parameters, step):
            target.write(line)
            written += 1
    # Every session read moved the bar; those not written were skipped.
    out.write(f"wrote {written} session(s) to {args.out}; {bar.n - written} skipped (no longer at the source)\n")
    return 0


def _add_insights_parsers(commands: Any) -> None:
    facts = commands.add_parser("facts", help="session facts of the attempts: backfill")
    facts_sub = facts.add_subparsers(dest="facts_command", required=True)
    facts_sub.add_parser("backfill", help="fill the session facts of attempts without them, from the session source")
    export = commands.add_parser("export", help="exports: training (sessions that scored well, as JSON lines)")
    export_sub = export.add_subparsers(dest="export_command", required=True)
    training = export_sub.add_parser("training", help="write the training export (one JSON line per session)")
    training.add_argument("--min-score", type=int, default=85, help="lowest total score exported (default 85)")
    training.add_argument("--criteria-hash", default="current", help="'current' (default), 'any' or a criteria hash")
    training.add_argument("--format", default="openai-chat", choices=TRAINING_FORMATS)
    training.add_argument("--out", required=True, help="the file to write (JSON Lines)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="session-scoring", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("dlq", help="show how many jobs wait in the dead-letter queue, for which sessions and why")
    commands.add_parser("redrive", help="reopen the dead-lettered attempts and move their jobs back to the queue")
    commands.add_parser("reap", help="requeue (or fail, past the delivery limit) attempts stranded without a message")
    _add_runs_parser(commands)
    _add_insights_parsers(commands)
    labels = commands.add_parser("labels", help="human labels: import a CSV")
    labels_sub = labels.add_subparsers(dest="labels_command", required=True)
    label_import = labels_sub.add_parser(
        "import", help="import human labels from a CSV (every row checked first; all stored or none)"
    )
    label_import.add_argument(
        "file",
        type=Path,
        help="CSV with columns session_id, labeller, total_score, one per dimension key of the rubric in force "
        "(GET /criteria/current lists them), band, notes",
    )
    label_import.add_argument("--labeller", help="who labelled, for rows whose labeller column is empty")
    _add_judge_parser(commands)
    args = parser.parse_args(argv)

    from session_scoring.container import get_container

    try:
        if args.command == "runs":
            return runs_command(get_container().run_service, args, sys.stdout, time.sleep)
        if args.command == "facts":
            return facts_backfill(get_container().facts_backfill, sys.stdout)
        if args.command == "export":
            return export_training(get_container().training_export, args, sys.stdout)
        if args.command == "labels":
            return labels_command(get_container().label_service, args, sys.stdout)
        if args.command == "judge":
            return judge_command(get_container().judge_quality, args, sys.stdout)
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
