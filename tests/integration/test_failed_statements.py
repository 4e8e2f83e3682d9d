"""A statement the server refuses (a NUL byte in a text parameter, an offset past bigint) on the pooled engine, again
and again: every later read still answers its own session (or not found), and later valid writes neither fail nor
fail after committing. Nothing the refused statement left on its connection reaches another caller."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import bindparam, column, select, table, text

from session_scoring.models.insights import FleetParams
from session_scoring.models.quality import LabelRequest, NewLabel
from tests.conftest import FAILING_TOOLS_ID, IN_PROGRESS_ID, SHALLOW_ID, THOROUGH_ID, Stack

SCORED = (FAILING_TOOLS_ID, SHALLOW_ID, THOROUGH_ID)
NEVER_SCORED = IN_PROGRESS_ID  # in the samples, never asked to be scored
OVERFLOWING_PAGE = 6_147_359_712_039_411_712  # (page - 1) * page_size is past bigint
REFUSALS = 3  # a statement refused more than once (a connection that prepares prepares it on its second run)
ROUNDS = 10


@pytest.fixture
def client(stack: Stack) -> Iterator[TestClient]:
    """The stack's app, answering an unexpected error with its 500 rather than raising it into the test."""
    from functions.api.app import app

    with TestClient(app, raise_server_exceptions=False) as answering:
        yield answering


def _label(notes: str) -> NewLabel:
    # Built without validation: the repository must cope with whatever reaches it.
    request = LabelRequest.model_construct(total_score=60, score_breakdown=None, band=None, notes=notes)
    return NewLabel("labelled-session", "alice", request, "api")


def _refused_then_valid(stack: Stack) -> list[tuple[str, Callable[[], Any], Callable[[], Any]]]:
    """Each operation of the report: a call the database refuses, and the same statement with valid values."""
    container = stack.container
    return [
        (
            "fleet query by agent",
            lambda: container.insights_service.fleet(FleetParams(agent="a\x00b")),
            lambda: container.insights_service.fleet(FleetParams(agent="SecurityAgent")),
        ),
        (
            "label write",
            lambda: container.label_repository.add(_label("a\x00b")),
            lambda: container.label_repository.add(_label("fine")),
        ),
        (
            "runs page",
            lambda: container.run_service.list_runs(OVERFLOWING_PAGE, 20),
            lambda: container.run_service.list_runs(1, 20),
        ),
    ]


def _wrong_reads(client: TestClient) -> tuple[Counter[str], int]:
    """``ROUNDS`` rounds of GETs of every sample's score: the answers that were not the session's own (or 404),
    counted by what they were instead."""
    wrong: Counter[str] = Counter()
    reads = 0
    for _ in range(ROUNDS):
        for session_id in (*SCORED, NEVER_SCORED):
            response = client.get(f"/api/v1/scoring/sessions/{session_id}/score")
            reads += 1
            answered = response.json().get("session_id") if response.status_code == 200 else None
            if response.status_code == 200 and answered != session_id:
                wrong["another session's score"] += 1
            elif response.status_code == 200 and session_id == NEVER_SCORED:
                wrong["a score of a session never scored"] += 1
            elif response.status_code == 404 and session_id != NEVER_SCORED:
                wrong["404 for a scored session"] += 1
            elif response.status_code not in (200, 404):
                wrong[str(response.status_code)] += 1
    return wrong, reads


def test_refused_statements_never_hand_a_caller_another_sessions_score(stack: Stack, client: TestClient) -> None:
    for session_id in SCORED:
        assert stack.request_score(session_id).status_code == 202
    stack.poller.drain()

    refused: list[str] = []
    failed_valid: list[str] = []
    valid_labels = 0
    for name, refuse, valid in _refused_then_valid(stack):
        for _ in range(REFUSALS):
            try:
                refuse()
            except Exception:  # the database refused it: what it answers is another part's concern
                refused.append(name)
        for _ in range(REFUSALS):
            try:
                valid()
            except Exception as exc:
                failed_valid.append(f"{name}: {type(exc).__name__}: {str(exc)[:120]}")
            else:
                valid_labels += name == "label write"
    wrong, reads = _wrong_reads(client)

    assert len(refused) == 3 * REFUSALS  # every bad call reached the database and was refused
    assert not wrong, f"{sum(wrong.values())} of {reads} reads answered wrongly: {dict(wrong)}"
    assert failed_valid == []
    labels = stack.container.label_repository.for_session("labelled-session")
    assert len(labels) == valid_labels == REFUSALS  # no write stored without its caller being told so
    assert [label.notes for label in labels] == ["fine"] * REFUSALS


def test_a_refused_statement_leaves_its_pooled_connection_answering_its_own_statements(stack: Stack) -> None:
    """The same at the engine: a parameterised statement refused several times, then run with good values on the
    same pooled connection, answers its own rows, as does every statement after it."""
    engine = stack.container.query_engine
    probe = table("probe", column("id"), column("note"))
    by_note = select(probe.c.id).where(probe.c.note == bindparam("note"))
    with engine.connect() as conn:
        conn.execute(text("CREATE TEMPORARY TABLE probe (id int, note text)"))
        conn.execute(text("INSERT INTO probe VALUES (1, 'one'), (2, 'two')"))
        for _ in range(REFUSALS):
            with pytest.raises(Exception, match="0x00"):
                conn.execute(by_note, {"note": "a\x00b"})
        answers = [conn.execute(by_note, {"note": note}).scalars().all() for note in ("one", "two", "none", "one")]
        after = conn.execute(text("SELECT :x || '!'"), {"x": "own"}).scalar_one()

    assert answers == [[1], [2], [], [1]]
    assert after == "own!"


def test_a_statement_that_fails_before_the_server_is_done_discards_its_connection_alone(stack: Stack) -> None:
    """pg8000 cannot decode PostgreSQL's ``time '24:00:00'``: it stops reading in the middle of the answer, leaving
    the rest on the socket. That connection is closed, never pooled again; the next statement runs on a sound connection
    and answers its own rows, and the pool's other connection is kept."""
    engine = stack.container.query_engine
    with engine.connect() as first, engine.connect() as second:
        kept = second.connection.dbapi_connection
        broken = first.connection.dbapi_connection
        with pytest.raises(ValueError, match="24:00:00"):
            first.execute(text("SELECT time '24:00:00', 'left unread' FROM generate_series(1, 3)"))
        discarded = first.invalidated
    with engine.connect() as third, engine.connect() as fourth:
        answers = []
        for n, conn in ((1, third), (2, fourth)):
            try:
                answers.append(conn.execute(text("SELECT :n + 1"), {"n": n}).scalar_one())
            except Exception as exc:
                answers.append(type(exc).__name__)
        in_use = {id(third.connection.dbapi_connection), id(fourth.connection.dbapi_connection)}

    assert answers == [2, 3]
    assert discarded
    assert id(kept) in in_use  # the pool was not emptied for one connection's failure
    assert id(broken) not in in_use


def test_a_transaction_a_refused_statement_aborted_is_not_handed_on(stack: Stack) -> None:
    """On the transactional engine, a statement refused inside a transaction its caller never ends: the next
    checkout of that connection starts clean (no "current transaction is aborted", 25P02)."""
    engine = stack.container.engine
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))
        with pytest.raises(Exception, match="0x00"):
            conn.execute(text("SELECT CAST(:v AS text)"), {"v": "a\x00b"})
        aborted = conn.connection.dbapi_connection
    with engine.connect() as conn:
        reused = conn.connection.dbapi_connection
        answer = conn.execute(text("SELECT :v || '!'"), {"v": "clean"}).scalar_one()

    assert reused is aborted  # the server's refusal left the connection in step: it is kept, rolled back
    assert answer == "clean!"
