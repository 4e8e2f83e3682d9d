"""Schemathesis hooks for the campaign's engine run (``SCHEMATHESIS_HOOKS=tests.fuzz.hooks``): the engine's own
generated requests, with hostile strings mixed into the query, the path and the JSON body, each followed by a canary
read, each write checked for rows stored on an error, every check failure recorded.

The campaign hands the engine its state through the file named by ``FUZZ_ENGINE_STATE`` (the stack's URLs, the
canaries' truth, where to write the tally); the tally is written there as the run goes and when it ends.
"""

from __future__ import annotations

import atexit
import json
import os
from pathlib import Path
from typing import Any

import schemathesis
from hypothesis import strategies as st
from sqlalchemy import create_engine

from tests.fuzz.canaries import Canaries, CanaryState
from tests.fuzz.ledger import Ledger, grown
from tests.fuzz.tally import CONTRACT_NOTE, SERVER_ERROR, STORED_ON_ERROR, WRONG_ANSWER, Tally
from tests.fuzz.wire import Wire

HOSTILE_STRINGS: tuple[tuple[str, str], ...] = (
    ("NUL", "a\x00b"),
    ("NUL alone", "\x00"),
    ("overlong (300)", "y" * 300),
    ("overlong (5,000)", "x" * 5_000),
    ("emoji", "\U0001f9ea"),
    ("right-to-left override", "ab\u202ecd"),
    ("slash and dots", "../a/b"),
    ("CSV formula", "=1+1"),
    ("SQL quote", "' OR '1'='1"),
    ("integer past int64", "9223372036854775808"),
    ("page past int64 offsets", "6147359712039411712"),
    ("Infinity", "Infinity"),
)
"""Strings the hooks put in place of a generated value (a third of the time); the hostile corpus sends the rest."""

HOSTILE_SHARE = 3
"""One generated request in HOSTILE_SHARE gets a hostile string."""

SERVER_ERROR_OF_THE_CASE = "ST101"
"""A 5xx answer to the case itself: already counted from its status in ``after_call``."""
SERVER_ERROR_OF_A_PROBE = "ST102"
"""A 5xx answer to a request a check sends itself (not through ``after_call``): counted here."""
POSITIVE_DATA_REFUSED = "ST202"
"""Schema-valid request refused (a rule across fields the OpenAPI document cannot state): reported, not counted."""
NEGATIVE_DATA_ACCEPTED = "ST201"
"""Schema-violating request accepted: a wrong answer when it was accepted (2xx/3xx); a 4xx JSON error that
schemathesis does not list (413 for an invalid body that is also too large) is a refusal, reported, not counted; so
is a case whose violating value the hooks replaced by a hostile string (the request sent was valid)."""


class _Engine:
    """The state of the engine's campaign process: its wire, canaries, ledger and tally."""

    def __init__(self, state_file: Path) -> None:
        state = json.loads(state_file.read_text())
        self.tally_file = Path(state["tally_file"])
        self.tally = Tally()
        self.wire = Wire(state["base_url"])
        self.canaries = Canaries(CanaryState.from_json(state["canaries"]), self.wire, self.tally)
        self.ledger = Ledger(create_engine(state["database_url"], pool_size=1, max_overflow=0))
        self.before: dict[str, int] | None = None
        self.calls = 0

    def save(self) -> None:
        self.tally.save(self.tally_file)


_STATE = os.environ.get("FUZZ_ENGINE_STATE")
ENGINE = _Engine(Path(_STATE)) if _STATE else None
if ENGINE is not None:
    atexit.register(ENGINE.save)


def _route(context: Any, case: Any) -> str:
    operation = getattr(context, "operation", None) or case.operation
    return f"{case.method.upper()} {operation.path}"


def _hostile(value: Any) -> st.SearchStrategy[Any]:
    """The value as generated, or (one time in HOSTILE_SHARE) one of its string slots given a hostile string."""
    slots = (
        [key for key, item in value.items() if isinstance(item, str | int | float)] if isinstance(value, dict) else []
    )
    if not slots:
        return st.just(value)
    hostile = st.tuples(st.sampled_from(slots), st.sampled_from([text for _, text in HOSTILE_STRINGS])).map(
        lambda pick: {**value, pick[0]: pick[1]}
    )
    return st.one_of(*([st.just(value)] * (HOSTILE_SHARE - 1)), hostile)


@schemathesis.hook
def flatmap_query(context: Any, query: Any) -> st.SearchStrategy[Any]:
    return _hostile(query)


@schemathesis.hook
def flatmap_path_parameters(context: Any, path_parameters: Any) -> st.SearchStrategy[Any]:
    return _hostile(path_parameters)


@schemathesis.hook
def flatmap_body(context: Any, body: Any) -> st.SearchStrategy[Any]:
    return _hostile(body)


def _hostile_slot(case: Any) -> tuple[str, str, str] | None:
    """The hostile string the case carries: its label, where (query, path, body) and under which key."""
    for where, values in (("query", case.query), ("path", case.path_parameters), ("body", case.body)):
        if not isinstance(values, dict):
            continue
        for key, item in values.items():
            for label, text in HOSTILE_STRINGS:
                if item == text:
                    return label, where, key
    return None


def _hostile_label(case: Any) -> str:
    """Which hostile string the case carries and where, or that schemathesis generated it."""
    slot = _hostile_slot(case)
    return f"{slot[0]} in {slot[1]} {slot[2]}" if slot else "schemathesis-generated"


def hostile_string_replaced_the_violation(case: Any, message: str) -> bool:
    """A negative case whose violating value the hooks replaced by a hostile string (a number generated for a string
    field, then given "=1+1"): the request sent was valid, and its acceptance is right, not a finding."""
    slot = _hostile_slot(case)
    return slot is not None and f"/properties/{slot[2]} " in message


@schemathesis.hook
def before_call(context: Any, case: Any, kwargs: dict[str, Any]) -> None:
    if ENGINE is None:
        return
    ENGINE.before = ENGINE.ledger.counts() if case.method.upper() != "GET" else None


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    if ENGINE is None:
        return
    route = _route(context, case)
    label = _hostile_label(case)
    status = int(response.status_code)
    ENGINE.tally.sent("schemathesis")
    example = f"{case.method.upper()} {response.request.url[:200]}"
    if status >= 500:
        ENGINE.tally.fail(SERVER_ERROR, route, label, status, f"{example} -> {response.content[:160]!r}")
    if ENGINE.before is not None:
        stored = grown(ENGINE.before, ENGINE.ledger.counts())
        ENGINE.before = None
        if stored and status >= 400:
            ENGINE.tally.fail(STORED_ON_ERROR, route, label, status, f"{example} stored {stored}")
    ENGINE.canaries.read_next(after=f"{example} ({label})")
    ENGINE.calls += 1
    if ENGINE.calls % 200 == 0:
        ENGINE.save()


@schemathesis.hook
def after_network_error(context: Any, case: Any, request: Any) -> None:
    if ENGINE is None:
        return
    route = _route(context, case)
    ENGINE.tally.sent("schemathesis")
    ENGINE.tally.fail(SERVER_ERROR, route, _hostile_label(case), None, f"{request.method} {str(request.url)[:200]}")
    ENGINE.before = None
    ENGINE.canaries.read_next(after=f"{request.method} {str(request.url)[:200]} (no answer)")


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """Record every check failure the engine finds (keeping it in the engine's own report too)."""
    if ENGINE is None or failure.code == SERVER_ERROR_OF_THE_CASE:
        return True
    status = int(response.status_code)
    if failure.code == SERVER_ERROR_OF_A_PROBE:
        kind = SERVER_ERROR
    elif failure.code == POSITIVE_DATA_REFUSED or (
        failure.code == NEGATIVE_DATA_ACCEPTED
        and (400 <= status < 500 or hostile_string_replaced_the_violation(case, str(failure.message)))
    ):
        kind = CONTRACT_NOTE
    else:
        kind = WRONG_ANSWER
    route = _route(context, case)
    example = f"{case.method.upper()} {response.request.url[:200]} -> {response.status_code}: {failure.message[:200]}"
    ENGINE.tally.fail(kind, route, f"{failure.code} {failure.title}", response.status_code, example)
    return True
