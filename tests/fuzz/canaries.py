"""Canary reads: requests whose right answer is known, interleaved with the hostile ones, each checked against what it
asked for (the right session, run or tool; the right status; the known score).

The campaign first scores three sample sessions with the heuristic judge (deterministic: a re-score gives the same
total), labels one, and starts a run that selects nothing. Later hostile requests may re-score or label those
sessions (schemathesis' stateful phase reuses ids it reads from answers), so a canary accepts an attempt in progress
and any number of labels, but never another session's answer, another total, or a 200 for a session never scored.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import quote

from tests.conftest import FAILING_TOOLS_ID, IN_PROGRESS_ID, SHALLOW_ID, THOROUGH_ID
from tests.fuzz.tally import SERVER_ERROR, WRONG_ANSWER, Tally
from tests.fuzz.wire import Answer, Wire

API = "/api/v1/scoring"
SCORE_WAIT_SECONDS = 120.0
ACTIVE = ("pending", "in_progress")


class SeedingError(RuntimeError):
    """The canaries could not be set up: the stack does not score the sample sessions."""


@dataclass(frozen=True)
class ScoredCanary:
    session_id: str
    total_score: int
    agent: str
    alert_type: str
    missing_tool: str
    """One tool its score names missing (as the score spells it)."""
    canonical_tool: str
    """The same tool's canonical name (the missing-tools analytics key)."""


@dataclass(frozen=True)
class CanaryState:
    """What the canaries know; JSON, so the schemathesis process reads the same truth."""

    scored: tuple[ScoredCanary, ...]
    never_scored: tuple[str, ...]
    """Sessions that must answer 404 to a score read: one the source has (in progress), one nobody has."""
    labelled: str
    run_id: str
    unknown_run: str

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> CanaryState:
        data: dict[str, Any] = json.loads(text)
        return cls(
            scored=tuple(ScoredCanary(**item) for item in data["scored"]),
            never_scored=tuple(data["never_scored"]),
            labelled=data["labelled"],
            run_id=data["run_id"],
            unknown_run=data["unknown_run"],
        )


def seed(wire: Wire, tally: Tally) -> CanaryState:
    """Score the three completed sample sessions and wait for their scores; label one; start a run."""
    sessions = (THOROUGH_ID, SHALLOW_ID, FAILING_TOOLS_ID)
    score_route = "POST /api/v1/scoring/sessions/{session_id}/score"
    for session_id in sessions:
        setup(
            tally,
            score_route,
            "score a sample",
            (200, 202),
            lambda s=session_id: wire.send("POST", f"{API}/sessions/{s}/score"),
        )
    scores = _wait_completed(wire, tally, sessions)
    scored = []
    for session_id in sessions:
        score = scores[session_id]
        detail = setup(
            tally,
            "GET /api/v1/scoring/sessions/{session_id}",
            "read a sample",
            (200,),
            lambda s=session_id: wire.get(f"{API}/sessions/{s}"),
        ).json()
        tool = score["missing_tools"][0]["tool_name"]
        canonical = tool.rsplit(".", 1)[-1]
        scored.append(
            ScoredCanary(
                session_id, int(score["total_score"]), detail["agent_type"], detail["alert_type"], tool, canonical
            )
        )
    setup(
        tally,
        "PUT /api/v1/scoring/sessions/{session_id}/labels",
        "label a sample",
        (200,),
        lambda: wire.send_json("PUT", f"{API}/sessions/{THOROUGH_ID}/labels", {"total_score": 50, "notes": "canary"}),
    )
    run_request = {
        "max_sessions": 1,
        "name": "fuzz canary run",
        "selection": {"which": "all", "session_ids": [IN_PROGRESS_ID]},
    }
    run = setup(
        tally,
        "POST /api/v1/scoring/runs",
        "start a run",
        (202,),
        lambda: wire.send_json("POST", f"{API}/runs", run_request),
    )
    return CanaryState(
        scored=tuple(scored),
        never_scored=(IN_PROGRESS_ID, f"fuzz-never-scored-{uuid.uuid4()}"),
        labelled=THOROUGH_ID,
        run_id=run.json()["run_id"],
        unknown_run=str(uuid.uuid4()),
    )


SETUP_ATTEMPTS = 5


def setup(tally: Tally, route: str, what: str, statuses: tuple[int, ...], send: Callable[[], Answer]) -> Answer:
    """A request the campaign needs to succeed (seeding, its own uploads): each wrong answer is recorded like any
    other, and the request is sent again, up to SETUP_ATTEMPTS times."""
    answer = Answer(None, error="not sent")
    for _ in range(SETUP_ATTEMPTS):
        answer = send()
        tally.sent("scenario")
        if answer.status in statuses:
            return answer
        kind = SERVER_ERROR if answer.status is None or answer.status >= 500 else WRONG_ANSWER
        tally.fail(kind, route, f"setup: {what}", answer.status, answer.describe())
    raise SeedingError(f"{what}: expected {statuses}, got {answer.describe()} {SETUP_ATTEMPTS} times")


def _wait_completed(wire: Wire, tally: Tally, sessions: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    deadline = time.monotonic() + SCORE_WAIT_SECONDS
    while True:
        scores = {}
        for session_id in sessions:
            scores[session_id] = setup(
                tally,
                "GET /api/v1/scoring/sessions/{session_id}/score",
                "poll a sample's score",
                (200,),
                lambda s=session_id: wire.get(f"{API}/sessions/{s}/score"),
            ).json()
        statuses = {score["status"] for score in scores.values()}
        if statuses == {"completed"}:
            return scores
        if statuses - {"completed", *ACTIVE} or time.monotonic() > deadline:
            raise SeedingError(f"the sample sessions were not scored: {statuses}")
        time.sleep(0.2)  # the worker scores them; polling, as a client does


Check = Callable[[Answer], str | None]
"""What is wrong with an answer, or None."""


@dataclass(frozen=True)
class Probe:
    name: str
    route: str
    target: str
    check: Check


class Canaries:
    """The canary probes in a fixed rotation: :meth:`read_next` sends the next one and records what is wrong."""

    def __init__(self, state: CanaryState, wire: Wire, tally: Tally) -> None:
        self._wire = wire
        self._tally = tally
        self._probes = _probes(state)
        self._next = 0

    @property
    def size(self) -> int:
        return len(self._probes)

    def read_next(self, after: str) -> None:
        """One canary read, checked; ``after`` names the request before it (for the failure's example)."""
        probe = self._probes[self._next]
        self._next = (self._next + 1) % len(self._probes)
        answer = self._wire.get(probe.target)
        self._tally.sent("canary")
        if answer.status is None or answer.status >= 500:
            self._tally.fail(SERVER_ERROR, probe.route, f"canary: {probe.name}", answer.status, _example(after, answer))
            return
        try:
            problem = probe.check(answer)
        except (KeyError, TypeError, ValueError) as exc:
            problem = f"unexpected body ({type(exc).__name__}: {exc})"
        if problem is not None:
            self._tally.fail(
                WRONG_ANSWER,
                probe.route,
                f"canary: {probe.name}",
                answer.status,
                f"{problem}; {_example(after, answer)}",
            )

    def read_all(self, after: str) -> None:
        for _ in range(len(self._probes)):
            self.read_next(after)


def _example(after: str, answer: Answer) -> str:
    return f"after {after}: {answer.describe()}"


def _probes(state: CanaryState) -> list[Probe]:
    probes: list[Probe] = []
    for canary in state.scored:
        sid = canary.session_id
        probes += [
            Probe(
                "score of a scored session",
                "GET /api/v1/scoring/sessions/{session_id}/score",
                f"{API}/sessions/{sid}/score",
                _score_of(canary),
            ),
            Probe(
                "every attempt of a scored session",
                "GET /api/v1/scoring/sessions/{session_id}/scores",
                f"{API}/sessions/{sid}/scores",
                _history_of(canary),
            ),
            Probe(
                "session detail",
                "GET /api/v1/scoring/sessions/{session_id}",
                f"{API}/sessions/{sid}",
                _detail_of(canary),
            ),
            Probe(
                "fleet query by alert_type",
                "GET /api/v1/scoring/scores",
                f"{API}/scores?alert_type={quote(canary.alert_type)}",
                _fleet_by_alert_type(canary),
            ),
            Probe(
                "score of a scored session",  # the hot read, twice per round
                "GET /api/v1/scoring/sessions/{session_id}/score",
                f"{API}/sessions/{sid}/score",
                _score_of(canary),
            ),
        ]
    for session_id in state.never_scored:
        probes.append(
            Probe(
                "score of a session never scored",
                "GET /api/v1/scoring/sessions/{session_id}/score",
                f"{API}/sessions/{quote(session_id)}/score",
                _not_found,
            )
        )
    first = state.scored[0]
    probes += [
        Probe(
            "fleet query by agent",
            "GET /api/v1/scoring/scores",
            f"{API}/scores?agent={quote(first.agent)}",
            _fleet_by_agent(first.agent),
        ),
        Probe(
            "fleet query by missing_tool",
            "GET /api/v1/scoring/scores",
            f"{API}/scores?missing_tool={quote(first.missing_tool)}",
            _fleet_by_tool(first.missing_tool),
        ),
        Probe(
            "sessions missing a tool",
            "GET /api/v1/scoring/analytics/missing-tools/{tool_name}/sessions",
            f"{API}/analytics/missing-tools/{quote(first.canonical_tool)}/sessions?criteria_hash=current&limit=200",
            _tool_sessions(state, first.canonical_tool),
        ),
        Probe(
            "labels of a labelled session",
            "GET /api/v1/scoring/sessions/{session_id}/labels",
            f"{API}/sessions/{state.labelled}/labels",
            _labels_of(state.labelled),
        ),
        Probe("a run", "GET /api/v1/scoring/runs/{run_id}", f"{API}/runs/{state.run_id}", _run_of(state.run_id)),
        Probe(
            "a run that does not exist",
            "GET /api/v1/scoring/runs/{run_id}",
            f"{API}/runs/{state.unknown_run}",
            _not_found,
        ),
    ]
    return probes


def _status(answer: Answer, expected: int) -> str | None:
    if answer.status != expected:
        return f"status {answer.status}, expected {expected}"
    if answer.json() is None:
        return "the body is not JSON"
    return None


def _same_score(canary: ScoredCanary, score: dict[str, Any]) -> str | None:
    if score.get("session_id") != canary.session_id:
        return f"answered for session {score.get('session_id')!r}, asked for {canary.session_id!r}"
    if score.get("status") == "completed" and score.get("total_score") != canary.total_score:
        return f"total_score {score.get('total_score')}, the session's is {canary.total_score}"
    if score.get("status") not in ("completed", *ACTIVE):
        return f"status {score.get('status')!r} (the heuristic judge does not fail these sessions)"
    return None


def _score_of(canary: ScoredCanary) -> Check:
    def check(answer: Answer) -> str | None:
        return _status(answer, 200) or _same_score(canary, answer.json())

    return check


def _history_of(canary: ScoredCanary) -> Check:
    def check(answer: Answer) -> str | None:
        problem = _status(answer, 200)
        if problem:
            return problem
        attempts = answer.json()
        if not attempts:
            return "no attempts for a scored session"
        for attempt in attempts:
            problem = _same_score(canary, attempt)
            if problem:
                return problem
        return None

    return check


def _detail_of(canary: ScoredCanary) -> Check:
    def check(answer: Answer) -> str | None:
        problem = _status(answer, 200)
        if problem:
            return problem
        body = answer.json()
        if body.get("session_id") != canary.session_id:
            return f"answered for session {body.get('session_id')!r}, asked for {canary.session_id!r}"
        if body.get("alert_type") != canary.alert_type:
            return f"alert_type {body.get('alert_type')!r}, the session's is {canary.alert_type!r}"
        return None

    return check


def _fleet_rows(answer: Answer) -> tuple[list[dict[str, Any]], str | None]:
    problem = _status(answer, 200)
    if problem:
        return [], problem
    return list(answer.json()["items"]), None


def _canary_rows_right(rows: list[dict[str, Any]], expected: list[ScoredCanary]) -> str | None:
    by_session = {row["session_id"]: row for row in rows}
    for canary in expected:
        row = by_session.get(canary.session_id)
        if row is None:
            return f"session {canary.session_id} is missing"
        if row["total_score"] != canary.total_score:
            return f"session {canary.session_id} has total_score {row['total_score']}, expected {canary.total_score}"
    return None


def _fleet_by_alert_type(canary: ScoredCanary) -> Check:
    def check(answer: Answer) -> str | None:
        rows, problem = _fleet_rows(answer)
        if problem:
            return problem
        for row in rows:
            alert_type = (row.get("session_facts") or {}).get("alert_type")
            if alert_type != canary.alert_type:
                return (
                    f"a row of alert_type {alert_type!r} (session {row['session_id']}), asked for {canary.alert_type!r}"
                )
        return _canary_rows_right(rows, [canary])

    return check


def _fleet_by_agent(agent: str) -> Check:
    """Every row is of the agent asked for (the campaign's uploads share it: which rows come first is not known)."""

    def check(answer: Answer) -> str | None:
        rows, problem = _fleet_rows(answer)
        if problem:
            return problem
        for row in rows:
            found = (row.get("session_facts") or {}).get("agent")
            if found != agent:
                return f"a row of agent {found!r} (session {row['session_id']}), asked for {agent!r}"
        return None if rows else "no rows for an agent with scored sessions"

    return check


def _fleet_by_tool(tool: str) -> Check:
    """Every row names the tool asked for (many sessions do: which come first is not known)."""

    def check(answer: Answer) -> str | None:
        rows, problem = _fleet_rows(answer)
        if problem:
            return problem
        for row in rows:
            if tool not in row.get("missing_tools", []):
                return f"a row that does not name {tool!r} missing (session {row['session_id']})"
        return None if rows else "no rows for a tool scored sessions name missing"

    return check


def _tool_sessions(state: CanaryState, canonical: str) -> Check:
    def check(answer: Answer) -> str | None:
        problem = _status(answer, 200)
        if problem:
            return problem
        body = answer.json()
        if body.get("tool_name") != canonical:
            return f"answered for tool {body.get('tool_name')!r}, asked for {canonical!r}"
        return _canary_rows_right(list(body["items"]), [c for c in state.scored if c.canonical_tool == canonical])

    return check


def _labels_of(session_id: str) -> Check:
    def check(answer: Answer) -> str | None:
        problem = _status(answer, 200)
        if problem:
            return problem
        body = answer.json()
        if body.get("session_id") != session_id:
            return f"answered for session {body.get('session_id')!r}, asked for {session_id!r}"
        labels = list(body["current"]) + list(body["history"])
        if not labels:
            return "no labels for a labelled session"
        others = {label["session_id"] for label in labels} - {session_id}
        return f"labels of other sessions: {sorted(others)}" if others else None

    return check


def _run_of(run_id: str) -> Check:
    def check(answer: Answer) -> str | None:
        problem = _status(answer, 200)
        if problem:
            return problem
        found = answer.json().get("run_id")
        return None if found == run_id else f"answered run {found!r}, asked for {run_id!r}"

    return check


def _not_found(answer: Answer) -> str | None:
    if answer.status != 404:
        return f"status {answer.status}, expected 404 ({answer.describe()[:120]})"
    return None if answer.is_error_body() else "the 404 is not the service's JSON error"
