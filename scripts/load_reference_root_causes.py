"""Load a benchmark's ground truth (or a batch of postmortems) as the sessions' reference root causes.

Reads a CSV with a header ``session_id,root_cause`` and optionally ``remediation`` (one row per session) and PUTs
each row to ``PUT /api/v1/scoring/sessions/{session_id}/labels/reference`` of a running API, so that the next score of
each session says whether its investigation found the root cause. Every row is checked first (a session id the API
accepts, a root cause of 1-1,000 characters, a remediation of at most 1,000); a file with a bad row loads nothing and
lists every bad row. ``--dry-run`` checks the file and says what would be sent, sending nothing.

    python scripts/load_reference_root_causes.py ground_truth.csv --api http://127.0.0.1:8000 [--dry-run]

Behind the deployed API's JWT authorizer pass a token (``--token`` or ``SCORING_API_TOKEN``): the references are
then stored as set by its identity. Each PUT is a new revision of that session's reference (every revision is kept).
A session the API does not know is reported (404) and the others are loaded. Exit status: 0 when every row was
loaded (or, with ``--dry-run``, is valid), 1 when a row was refused, 2 when the file cannot be used.

Only the Python standard library is used, so the script runs from any checkout without installing the service.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
"""The session ids the API accepts (``models/ids.py``)."""
MAX_CHARS = 1_000
"""The longest root cause or remediation the API takes."""
COLUMNS = ("session_id", "root_cause", "remediation")
PATH = "/api/v1/scoring/sessions/{session_id}/labels/reference"

Send = Callable[[str, dict[str, str | None]], tuple[int, str]]
"""PUT one reference: (session id, body) -> (HTTP status, answer text)."""


@dataclass(frozen=True)
class Row:
    line: int
    session_id: str
    root_cause: str
    remediation: str | None


def read_rows(text: str) -> tuple[list[Row], list[str]]:
    """The CSV's rows and every problem found (a bad header, or each bad row with its line)."""
    reader = csv.DictReader(text.splitlines())
    header = [name.strip() for name in reader.fieldnames or []]
    missing = [name for name in COLUMNS[:2] if name not in header]
    unknown = [name for name in header if name not in COLUMNS]
    checks = (("lacks", missing), ("has unknown column(s)", unknown))
    wrong = [f"{what} {', '.join(names)}" for what, names in checks if names]
    if wrong:
        return [], [f"the header {'; '.join(wrong)}; the columns are session_id, root_cause and optionally remediation"]
    rows: list[Row] = []
    problems: list[str] = []
    for line, raw in enumerate(reader, start=2):
        values = {(key or "").strip(): (value or "").strip() for key, value in raw.items() if key is not None}
        session_id, root_cause = values.get("session_id", ""), values.get("root_cause", "")
        remediation = values.get("remediation") or None
        wrong = [
            f"session_id {session_id!r} is not a session id" if not SESSION_ID.match(session_id) else "",
            "root_cause is empty" if not root_cause else "",
            f"root_cause is {len(root_cause):,} characters; at most {MAX_CHARS:,}"
            if len(root_cause) > MAX_CHARS
            else "",
            f"remediation is {len(remediation):,} characters; at most {MAX_CHARS:,}"
            if remediation and len(remediation) > MAX_CHARS
            else "",
        ]
        if any(wrong):
            problems.append(f"line {line}: " + "; ".join(w for w in wrong if w))
        else:
            rows.append(Row(line, session_id, root_cause, remediation))
    seen: dict[str, int] = {}
    for row in rows:
        if row.session_id in seen:
            problems.append(f"line {row.line}: session {row.session_id} is already on line {seen[row.session_id]}")
        seen.setdefault(row.session_id, row.line)
    if not rows and not problems:
        problems.append("the file has a header but no rows")
    return rows, problems


def http_sender(api: str, token: str | None, timeout_seconds: float) -> Send:
    """PUTs over HTTP to ``api`` (a base URL, http or https: ``main`` checks it), with the bearer ``token``."""

    def send(session_id: str, body: dict[str, str | None]) -> tuple[int, str]:
        url = api.rstrip("/") + PATH.format(session_id=urllib.parse.quote(session_id, safe=""))
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, headers=headers, method="PUT")  # noqa: S310 - http(s) only
        try:
            with urllib.request.urlopen(request, timeout=timeout_seconds) as answer:  # noqa: S310 - http(s) only
                return int(answer.status), answer.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace")

    return send


def _detail(text: str) -> str:
    try:
        answer = json.loads(text)
    except ValueError:
        return text[:300]
    return str(answer.get("detail", answer)) if isinstance(answer, dict) else text[:300]


def load(rows: Sequence[Row], send: Send, out: Callable[[str], None] = print) -> int:
    """PUT every row; returns how many were refused (each reported with the API's reason)."""
    refused = 0
    for row in rows:
        try:
            body = {"reference_root_cause": row.root_cause, "reference_remediation": row.remediation}
            status, text = send(row.session_id, body)
        except OSError as exc:  # the API cannot be reached: the rows after this one would fail the same way
            out(f"line {row.line}: {row.session_id}: the API did not answer ({exc}); stopped, nothing more sent")
            return refused + len(rows) - rows.index(row)
        if status == 200:
            revision = json.loads(text).get("revision")
            out(f"line {row.line}: {row.session_id}: reference set (revision {revision})")
        else:
            refused += 1
            out(f"line {row.line}: {row.session_id}: refused ({status}): {_detail(text)}")
    return refused


def main(argv: Sequence[str] | None = None, send: Send | None = None, out: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", type=Path, help="session_id,root_cause[,remediation] with a header row")
    parser.add_argument("--api", default="http://127.0.0.1:8000", help="the API's base URL (default: make run's)")
    parser.add_argument("--token", default=os.environ.get("SCORING_API_TOKEN"), help="a bearer token for the API")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for each answer")
    parser.add_argument("--dry-run", action="store_true", help="check the file and list what would be sent")
    args = parser.parse_args(argv)
    if urllib.parse.urlsplit(args.api).scheme not in ("http", "https"):
        out(f"error: --api {args.api!r} is not an http(s) URL")
        return 2
    try:
        text = args.csv.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        out(f"error: cannot read {args.csv}: {exc}")
        return 2
    rows, problems = read_rows(text)
    if problems:
        out(f"{args.csv}: {len(problems)} problem(s), nothing sent; fix them and run again:")
        for problem in problems:
            out(f"  {problem}")
        return 2 if not rows else 1
    if args.dry_run:
        for row in rows:
            remedy = " (with a remediation)" if row.remediation else ""
            out(f"line {row.line}: {row.session_id}: would set {row.root_cause[:80]!r}{remedy}")
        out(f"dry run: {len(rows)} reference(s) valid, nothing sent")
        return 0
    refused = load(rows, send or http_sender(args.api, args.token, args.timeout), out)
    out(f"{len(rows) - refused} reference(s) set, {refused} refused")
    return 1 if refused else 0


if __name__ == "__main__":
    sys.exit(main())
