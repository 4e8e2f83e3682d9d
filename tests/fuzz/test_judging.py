"""The campaign's judges fire: a write answered 4xx that left a row is counted as stored on error, a canary answered
for another session is a wrong answer, a 405 without ``Allow`` and a non-JSON 4xx are wrong answers. No stack: the
wire and the row counts are stand-ins. Marked ``fuzz``: they run with the short campaign (``make fuzz-short``)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from tests.fuzz import corpus
from tests.fuzz.campaign import Attacker
from tests.fuzz.canaries import Canaries, CanaryState, ScoredCanary
from tests.fuzz.hooks import hostile_string_replaced_the_violation
from tests.fuzz.tally import SERVER_ERROR, STORED_ON_ERROR, WRONG_ANSWER, Tally
from tests.fuzz.wire import Answer

pytestmark = pytest.mark.fuzz

SESSION = "7c9e6679-7425-40de-944b-e07fc1f90ae7"
OTHER = "3f1d2a9e-0b7c-4e55-9a61-2c8d4e6f7a10"
STATE = CanaryState(
    scored=(ScoredCanary(SESSION, 67, "KubernetesAgent", "PodOOMKilled", "k8s.pods_exec", "pods_exec"),),
    never_scored=("never",),
    labelled=SESSION,
    run_id="run-1",
    unknown_run="run-2",
)


def _json(status: int, body: Any, **headers: str) -> Answer:
    return Answer(status, {"content-type": "application/json", **headers}, json.dumps(body).encode())


class ScriptedWire:
    """Answers each request with the next scripted answer, whatever was asked."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)

    def send(self, method: str, target: str, body: bytes | None = None, headers: Any = None) -> Answer:
        return self.answers.pop(0)

    def get(self, target: str) -> Answer:
        return self.send("GET", target)


class CountingLedger:
    """Row counts that grow by ``grow`` labels on the second reading (what a write that stored a row looks like)."""

    def __init__(self, grow: int) -> None:
        self.readings = [{"labels": 1}, {"labels": 1 + grow}]

    def counts(self) -> dict[str, int]:
        return self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]


def _attacker(wire: ScriptedWire, grow: int = 0) -> tuple[Attacker, Tally]:
    tally = Tally()
    canaries = Canaries(STATE, wire, tally)  # type: ignore[arg-type]
    return Attacker(wire, CountingLedger(grow), canaries, tally), tally  # type: ignore[arg-type]


def _score(session_id: str, total: int) -> Answer:
    return _json(200, {"session_id": session_id, "status": "completed", "total_score": total})


LABEL = corpus.Request("label", "PUT /labels", "PUT", "/api/v1/scoring/sessions/x/labels", b"{}")


def test_a_refused_write_that_stored_a_row_is_stored_on_error() -> None:
    attacker, tally = _attacker(ScriptedWire(_json(422, {"code": "x", "detail": "y"}), _score(SESSION, 67)), grow=1)
    attacker.send(LABEL)
    assert tally.count(STORED_ON_ERROR) == 1
    assert tally.count(WRONG_ANSWER) == 0


def test_a_refused_write_that_stored_nothing_is_fine() -> None:
    attacker, tally = _attacker(ScriptedWire(_json(422, {"code": "x", "detail": "y"}), _score(SESSION, 67)))
    attacker.send(LABEL)
    assert tally.passed()


def test_a_canary_answered_for_another_session_is_a_wrong_answer() -> None:
    attacker, tally = _attacker(ScriptedWire(_json(200, {}), _score(OTHER, 38)))
    attacker.send(corpus.Request("read", "GET /x", "GET", "/x"))
    assert tally.count(WRONG_ANSWER) == 1
    assert "asked for" in next(iter(tally.failures.values())).example


def test_a_canary_with_another_total_is_a_wrong_answer() -> None:
    attacker, tally = _attacker(ScriptedWire(_json(200, {}), _score(SESSION, 38)))
    attacker.send(corpus.Request("read", "GET /x", "GET", "/x"))
    assert tally.count(WRONG_ANSWER) == 1


def test_no_answer_and_a_500_count_as_5xx() -> None:
    attacker, tally = _attacker(ScriptedWire(Answer(None, error="reset"), Answer(500, {}, b"")))
    attacker.send(corpus.Request("read", "GET /x", "GET", "/x"))
    assert tally.count(SERVER_ERROR) == 2  # the request, then the canary after it


@pytest.mark.parametrize(
    ("answer", "request_"),
    [
        (_json(405, {"code": "m", "detail": "d"}), corpus.Request("m", "DELETE /x", "DELETE", "/x", allow=("GET",))),
        (
            _json(405, {"code": "m", "detail": "d"}, allow="PUT"),
            corpus.Request("m", "DELETE /x", "DELETE", "/x", allow=("GET",)),
        ),
        (Answer(400, {"content-type": "text/plain"}, b"bad"), corpus.Request("b", "GET /x", "GET", "/x")),
        (_json(200, {}), corpus.Request("coerced", "POST /runs", "POST", "/runs", expect=corpus.UNPROCESSABLE)),
    ],
)
def test_answers_that_break_the_rules_are_wrong(answer: Answer, request_: corpus.Request) -> None:
    attacker, tally = _attacker(ScriptedWire(answer, _score(SESSION, 67)))
    attacker.send(request_)
    assert tally.count(WRONG_ANSWER) == 1


def test_a_405_that_names_the_methods_is_right() -> None:
    answer = _json(405, {"code": "m", "detail": "d"}, allow="GET, HEAD")
    attacker, tally = _attacker(ScriptedWire(answer, _score(SESSION, 67)))
    attacker.send(corpus.Request("m", "DELETE /x", "DELETE", "/x", allow=("GET",)))
    assert tally.passed()


def test_a_negative_case_is_a_finding_unless_a_hostile_string_replaced_its_violating_value() -> None:
    violated = "violates `type` at /properties/reference_root_cause (was string, became number)"
    replaced = SimpleNamespace(query=None, path_parameters={}, body={"reference_root_cause": "=1+1"})
    elsewhere = SimpleNamespace(query=None, path_parameters={}, body={"reference_root_cause": 5, "notes": "=1+1"})

    assert hostile_string_replaced_the_violation(replaced, violated)
    assert not hostile_string_replaced_the_violation(elsewhere, violated)
    assert not hostile_string_replaced_the_violation(SimpleNamespace(query=None, path_parameters={}, body={}), violated)
