"""The fuzz campaign: a local stack, canaries, then the schemathesis engine and the hostile corpus until the time or
the request budget is spent; it ends with ``fuzz: requests N, 5xx 0, wrong answers 0, stored on error 0``.

1. Start the stack (stack.py) and seed the canaries (canaries.py): three scored sample sessions, a label, a run.
2. The campaign's own uploads: a session to re-score and label, sessions whose agent is a spreadsheet formula
   (scored, then read back as CSV) and a large session (several MB) for concurrent forced re-scores.
3. The original reproduction: ``GET /scores?agent=a%00b`` six times, then every canary read.
4. The schemathesis engine (every check, every phase: examples, coverage, fuzzing, stateful) in a process of its
   own for a share of the time, with hostile strings mixed into what it generates (hooks.py).
5. The named hostile cases (always), the malformed ``Content-Length`` cases through the Lambda handler
   (lambda_delivery.py) and the concurrent forced re-scores of the large upload.
6. The hostile corpus (corpus.py), shuffled, pass after pass, until the budget is spent; after each pass the
   concurrent forced re-scores again and the CSV check.
7. The last checks: every canary once more; the large upload's attempts all ended completed; the CSV export.

Every request is followed by a canary read; every write is bracketed by row counts (ledger.py).
"""

from __future__ import annotations

import csv
import io
import json
import os
import random
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import text

from tests.conftest import ROOT
from tests.fuzz import corpus
from tests.fuzz.canaries import API, Canaries, CanaryState, seed, setup
from tests.fuzz.lambda_delivery import as_event_request, deliver
from tests.fuzz.ledger import Ledger, grown
from tests.fuzz.stack import LocalStack, running_stack
from tests.fuzz.tally import SERVER_ERROR, STORED_ON_ERROR, WRONG_ANSWER, Tally
from tests.fuzz.wire import Answer, Wire
from tests.support.long_session import long_session_document

LARGE_UPLOAD_TOOL_CALLS = 4_000
"""About 3.4 MB: under the 5 MiB upload limit, large enough that reading and judging it takes a while."""
CONCURRENT_RESCORES = 8
SETTLE_SECONDS = 60.0
"""How long the last checks wait for the worker to finish what the campaign queued."""
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@dataclass
class Budget:
    """When to stop sending: after ``seconds`` or ``requests``, whichever comes first."""

    seconds: float
    requests: int
    engine_share: float = 0.4
    """The share of the time the schemathesis engine gets."""
    started: float = field(default_factory=time.monotonic)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def left(self) -> float:
        return self.seconds - self.elapsed()

    def spent(self, tally: Tally) -> bool:
        return self.left() <= 0 or tally.requests >= self.requests


class Attacker:
    """Sends corpus requests and judges each answer; a canary read follows every one."""

    def __init__(self, wire: Wire, ledger: Ledger, canaries: Canaries, tally: Tally) -> None:
        self.wire = wire
        self.ledger = ledger
        self.canaries = canaries
        self.tally = tally

    def send(self, request: corpus.Request, source: str = "corpus") -> Answer:
        before = self.ledger.counts() if request.writes else None
        answer = self.wire.send(request.method, request.target, request.body, request.headers)
        self.tally.sent(source)
        self.judge(request, answer)
        if before is not None:
            stored = grown(before, self.ledger.counts())
            if stored and (answer.status is None or answer.status >= 400):
                self.tally.fail(STORED_ON_ERROR, request.route, request.label, answer.status, f"stored {stored}")
            elif stored and answer.status == 200 and request.route == f"POST {API}/runs":
                self.tally.fail(
                    WRONG_ANSWER, request.route, f"{request.label}: a dry run stored rows", 200, f"{stored}"
                )
        self.canaries.read_next(after=request.describe())
        return answer

    def judge(self, request: corpus.Request, answer: Answer) -> None:
        status = answer.status
        example = f"{request.method} {request.target[:200]} -> {answer.describe()}"
        if status is None or status >= 500:
            self.tally.fail(SERVER_ERROR, request.route, request.label, status, example)
            return
        leaked = [text for text in request.withheld if text.encode() in answer.body]
        if leaked:
            self.tally.fail(WRONG_ANSWER, request.route, f"{request.label}: names {leaked}", status, example)
            return
        if request.expect is not None and status not in request.expect:
            self.tally.fail(
                WRONG_ANSWER,
                request.route,
                f"{request.label}: expected {'/'.join(map(str, sorted(request.expect)))}",
                status,
                example,
            )
            return
        if status == 405:
            allowed = {m.strip().upper() for m in answer.headers.get("allow", "").split(",") if m.strip()}
            if not allowed or not set(request.allow) <= allowed:
                must = "405 without the path's methods in Allow" if request.allow else "a 405 without Allow"
                self.tally.fail(
                    WRONG_ANSWER,
                    request.route,
                    f"{request.label}: {must}",
                    status,
                    f"{example}; Allow: {answer.headers.get('allow')!r}, expected {', '.join(request.allow) or 'some'}",
                )
                return
        if 400 <= status < 500 and not answer.is_error_body():
            from_parser = request.protocol_level and status == 400 and answer.content_type.startswith("text/plain")
            if not from_parser:
                self.tally.fail(
                    WRONG_ANSWER,
                    request.route,
                    f"{request.label}: a {status} that is not the service's JSON error",
                    status,
                    example,
                )


@dataclass(frozen=True)
class Fixtures:
    targets: corpus.Targets
    csv_sessions: tuple[str, ...]
    large_session: str


def upload(wire: Wire, tally: Tally, document: dict[str, Any], what: str) -> str:
    answer = setup(
        tally,
        f"POST {API}/sessions:import",
        what,
        (201,),
        lambda: wire.send_json("POST", f"{API}/sessions:import?file_name=fuzz.json", document),
    )
    return str(answer.json()["session_id"])


def prepare(wire: Wire, tally: Tally, state: CanaryState) -> Fixtures:
    """The campaign's own uploads: one to write to, the CSV formulas (scored), the large one."""
    write_session = upload(wire, tally, corpus.sample_document(), "upload a session to write to")
    csv_sessions = tuple(upload(wire, tally, doc, "upload a CSV formula") for doc in corpus.csv_hostile_documents())
    for session_id in csv_sessions:
        setup(
            tally,
            f"POST {API}/sessions/{{session_id}}/score",
            "score a CSV formula session",
            (200, 202),
            lambda s=session_id: wire.send("POST", f"{API}/sessions/{quote(s, safe='')}/score"),
        )
    large = long_session_document("fuzz-large", tool_calls=LARGE_UPLOAD_TOOL_CALLS)
    large_session = upload(wire, tally, large, "upload a large session")
    criteria = setup(
        tally, f"GET {API}/criteria/current", "read the criteria", (200,), lambda: wire.get(f"{API}/criteria/current")
    )
    first = state.scored[0]
    targets = corpus.Targets(
        read_session=first.session_id,
        write_session=write_session,
        run_id=state.run_id,
        tool=first.canonical_tool,
        criteria_hash=str(criteria.json()["criteria_hash"]),
    )
    return Fixtures(targets, csv_sessions, large_session)


def reproduction(attacker: Attacker) -> None:
    """The original report: six ``GET /scores?agent=a%00b``, then every canary read."""
    request = corpus.Request(
        "NUL in query agent (the reproduction)",
        f"GET {API}/scores",
        "GET",
        f"{API}/scores?agent=a%00b",
        expect=corpus.UNPROCESSABLE,
    )
    for _ in range(6):
        attacker.send(request, source="scenario")
    attacker.canaries.read_all(after="the reproduction (six GET /scores?agent=a%00b)")


def concurrent_rescores(attacker: Attacker, session_id: str) -> None:
    """CONCURRENT_RESCORES forced re-scores of the large upload at once: each is answered 200 or 202, never a 5xx,
    and the session never has more than one active attempt."""
    target = f"{API}/sessions/{quote(session_id, safe='')}/score"
    route = f"POST {API}/sessions/{{session_id}}/score"
    label = f"{CONCURRENT_RESCORES} concurrent force_rescore of a large upload"
    body = json.dumps({"force_rescore": True}).encode()
    headers = {"Content-Type": "application/json"}
    before = attacker.ledger.counts()
    with ThreadPoolExecutor(CONCURRENT_RESCORES) as pool:
        answers = list(
            pool.map(lambda _: attacker.wire.send("POST", target, body, headers), range(CONCURRENT_RESCORES))
        )
    attacker.tally.sent("scenario", len(answers))
    for answer in answers:
        attacker.judge(corpus.Request(label, route, "POST", target, body, headers, frozenset({200, 202})), answer)
    created = grown(before, attacker.ledger.counts()).get("attempts", 0)
    answered = {doc["score_id"] for a in answers if a.status in (200, 202) and isinstance(doc := a.json(), dict)}
    if created > len(answered):
        attacker.tally.fail(
            STORED_ON_ERROR, route, label, "mixed", f"{created} attempts stored, {len(answered)} answered"
        )
    active = attacker.ledger.active_attempts(session_id)
    if active > 1:
        attacker.tally.fail(WRONG_ANSWER, route, f"{label}: more than one active attempt", active, f"{active} active")
    attacker.canaries.read_next(after=label)


CONCURRENT_READS = 20
PAGE_ANSWER_BYTES = 2 * 512 * 1024
"""The most a page of the session view may weigh (its steps' budget, 512 KiB, and the session's own fields)."""


def concurrent_reads(attacker: Attacker, session_id: str) -> None:
    """CONCURRENT_READS viewers of the large upload at once (the view and its next page of steps): each answered
    200 within the page's size, never a 5xx (issue 39's finding 1)."""
    view = f"{API}/sessions/{quote(session_id, safe='')}"
    pages = [("GET", view, f"GET {API}/sessions/{{session_id}}")]
    first = attacker.wire.get(view)
    offset = first.json().get("next_steps_offset") if first.status == 200 and isinstance(first.json(), dict) else None
    if offset is not None:
        pages.append(("GET", f"{view}/steps?offset={offset}", f"GET {API}/sessions/{{session_id}}/steps"))
    for method, target, route in pages:
        label = f"{CONCURRENT_READS} concurrent reads of a large upload"
        with ThreadPoolExecutor(CONCURRENT_READS) as pool:
            answers = list(pool.map(lambda _, m=method, t=target: attacker.wire.send(m, t), range(CONCURRENT_READS)))
        attacker.tally.sent("scenario", len(answers))
        for answer in answers:
            attacker.judge(corpus.Request(label, route, method, target, expect=frozenset({200})), answer)
            if len(answer.body) > PAGE_ANSWER_BYTES:
                attacker.tally.fail(
                    WRONG_ANSWER, route, f"{label}: a page past its size", answer.status, f"{len(answer.body)} bytes"
                )
    attacker.canaries.read_next(after="concurrent reads of a large upload")


def through_lambda(attacker: Attacker, stack: LocalStack) -> None:
    """The framing cases uvicorn answers itself, delivered as API Gateway delivers them, to the Lambda handler: the
    application must answer them with its JSON 400 and store nothing."""
    cases = [
        replace(request, protocol_level=False, label=f"{request.label} (through the Lambda handler)")
        for request in corpus.protocol_requests()
        if request.protocol_level
    ]
    before = attacker.ledger.counts()
    url = stack.database.url.render_as_string(hide_password=False)
    answers = deliver(url, [as_event_request(r.method, r.target, r.body, r.headers) for r in cases])
    attacker.tally.sent("lambda", len(answers))
    for request, answer in zip(cases, answers, strict=True):
        attacker.judge(request, answer)
    stored = grown(before, attacker.ledger.counts())
    if stored:
        attacker.tally.fail(STORED_ON_ERROR, f"POST {API}/runs", "malformed Content-Length (Lambda)", 400, f"{stored}")
    attacker.canaries.read_next(after="the Lambda delivery of malformed Content-Length")


def csv_formulas(wire: Wire, tally: Tally, sessions: tuple[str, ...]) -> int:
    """Read the fleet query as CSV; count (as wrong answers) cells of the formula sessions that a spreadsheet would
    run. Returns how many of ``sessions`` the CSV had (0 until the worker has scored them)."""
    route = f"GET {API}/scores"
    answer = wire.get(f"{API}/scores?format=csv&criteria_hash=any")
    tally.sent("scenario")
    if answer.status != 200:
        kind = SERVER_ERROR if answer.status is None or answer.status >= 500 else WRONG_ANSWER
        tally.fail(kind, route, "format=csv", answer.status, answer.describe())
        return 0
    rows = list(csv.DictReader(io.StringIO(answer.body.decode("utf-8", "replace"))))
    found = [row for row in rows if row.get("session_id") in sessions]
    for row in found:
        for column, cell in row.items():
            if cell and cell.startswith(FORMULA_START):
                tally.fail(
                    WRONG_ANSWER,
                    route,
                    f"CSV injection: a {column} cell starts with {cell[0]!r}",
                    200,
                    f"session {row['session_id']}: {column}={cell[:60]!r}",
                )
    return len(found)


def _wait(until: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if until():
            return True
        time.sleep(1.0)  # waiting for the worker, as a client polls
    return until()


def last_checks(attacker: Attacker, stack: LocalStack, fixtures: Fixtures, say: Callable[[str], None]) -> None:
    attacker.canaries.read_all(after="the end of the campaign")
    _wait(lambda: attacker.ledger.active_attempts(fixtures.large_session) == 0, SETTLE_SECONDS)
    with stack.database.connect() as conn:
        attempts = conn.execute(
            text("SELECT status, error_message FROM session_scores WHERE session_id = :s"),
            {"s": fixtures.large_session},
        ).all()
    statuses: dict[str, int] = {}
    for status, _ in attempts:
        statuses[status] = statuses.get(status, 0) + 1
    say(f"fuzz: the large upload's attempts by status: {statuses}")
    route = f"POST {API}/sessions/{{session_id}}/score"
    for message in (message for status, message in attempts if status == "failed"):
        attacker.tally.fail(
            WRONG_ANSWER, route, "a forced re-score of a large upload ended failed", "failed", str(message)[:300]
        )
    seen = 0
    if _wait(lambda: _scored(stack, fixtures.csv_sessions), SETTLE_SECONDS):
        seen = csv_formulas(attacker.wire, attacker.tally, fixtures.csv_sessions)
    if seen < len(fixtures.csv_sessions):
        attacker.tally.fail(
            WRONG_ANSWER,
            f"GET {API}/scores",
            "format=csv: the scored formula sessions are missing",
            200,
            f"{seen} of {len(fixtures.csv_sessions)} in the CSV",
        )


def _scored(stack: LocalStack, sessions: tuple[str, ...]) -> bool:
    with stack.database.connect() as conn:
        done = conn.execute(
            text(
                "SELECT count(DISTINCT session_id) FROM session_scores"
                " WHERE session_id = ANY(:s) AND status = 'completed'"
            ),
            {"s": list(sessions)},
        ).scalar_one()
    return int(done) == len(sessions)


def run_engine(stack: LocalStack, state: CanaryState, seconds: int, seed_value: int, reports: Path) -> Tally:
    """The schemathesis engine in a process of its own, with the campaign's hooks, for ``seconds``."""
    state_file = reports / "engine-state.json"
    tally_file = reports / "engine-tally.json"
    state_file.write_text(
        json.dumps(
            {
                "base_url": stack.base_url,
                "database_url": stack.database.url.render_as_string(hide_password=False),
                "canaries": state.to_json(),
                "tally_file": str(tally_file),
            }
        )
    )
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "run",
        f"{stack.base_url}/openapi.json",
        "--checks",
        "all",
        "--phases",
        "examples,coverage,fuzzing,stateful",
        "--mode",
        "all",
        "--max-time",
        str(seconds),
        "--workers",
        "1",
        "--seed",
        str(seed_value),
        "--continue-on-failure",
        "--request-timeout",
        "60",
        "--suppress-health-check",
        "all",
        "--report",
        "json",
        "--report-dir",
        str(reports / "schemathesis"),
    ]
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.fuzz.hooks",
        "FUZZ_ENGINE_STATE": str(state_file),
        "PYTHONPATH": str(ROOT),
        "NO_COLOR": "1",
    }
    with (reports / "schemathesis.log").open("wb") as log:
        try:
            subprocess.run(
                command, cwd=reports, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=seconds + 180, check=False
            )
        except subprocess.TimeoutExpired:
            log.write(b"\nfuzz: the engine overran its time and was stopped\n")
    if not tally_file.is_file():
        raise RuntimeError(f"the schemathesis engine wrote no tally; see {reports / 'schemathesis.log'}")
    return Tally.from_json(tally_file.read_text())


def run(budget: Budget, seed_value: int, reports: Path, say: Callable[[str], None]) -> Tally:
    """The whole campaign; returns its tally (the caller prints the summary line)."""
    reports.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    rng = random.Random(seed_value)
    with running_stack(keep_log=reports / "stack.log") as stack:
        say(f"fuzz: local stack at {stack.base_url} (reports in {reports})")
        wire = Wire(stack.base_url)
        ledger = Ledger(stack.database)
        state = seed(wire, tally)
        canaries = Canaries(state, wire, tally)
        attacker = Attacker(wire, ledger, canaries, tally)
        fixtures = prepare(wire, tally, state)
        reproduction(attacker)
        document = json.loads(
            setup(tally, "GET /openapi.json", "read the API document", (200,), lambda: wire.get("/openapi.json")).body
        )
        engine_seconds = int(budget.left() * budget.engine_share)
        if engine_seconds >= 10:
            say(f"fuzz: at {budget.elapsed():.0f} s, {tally.requests} requests; the engine for {engine_seconds} s")
            tally.merge(run_engine(stack, state, engine_seconds, seed_value, reports))
        named = corpus.named_cases(document, fixtures.targets)
        slots = corpus.slot_cases(fixtures.targets)
        say(
            f"fuzz: at {budget.elapsed():.0f} s, {tally.requests} requests; hostile corpus: {len(named)} named cases "
            f"(always), then passes of {len(named) + len(slots)} shuffled until {budget.requests} requests or the time"
        )
        for request in named:
            attacker.send(request)
        through_lambda(attacker, stack)
        concurrent_rescores(attacker, fixtures.large_session)
        concurrent_reads(attacker, fixtures.large_session)
        passes = 0
        while not budget.spent(tally):
            order = rng.sample(named + slots, len(named) + len(slots))
            for request in order:
                if budget.spent(tally):
                    break
                attacker.send(request)
            else:
                passes += 1
            concurrent_rescores(attacker, fixtures.large_session)
            concurrent_reads(attacker, fixtures.large_session)
            csv_formulas(wire, tally, fixtures.csv_sessions)
        say(f"fuzz: at {budget.elapsed():.0f} s, {tally.requests} requests, {passes} full pass(es); last checks")
        last_checks(attacker, stack, fixtures, say)
    tally.save(reports / "tally.json")
    return tally
