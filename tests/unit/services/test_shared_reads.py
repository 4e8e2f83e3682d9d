"""Concurrent identical reads share one read (``services/sessions.SharedReads``): twenty viewers of one large session
cost one read of it, and share its error too."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from session_scoring.services.sessions import SharedReads

READERS = 20


def test_concurrent_readers_of_one_key_share_one_read() -> None:
    shared: SharedReads[str] = SharedReads()
    reads: list[int] = []
    all_joined = threading.Condition()

    def read() -> str:
        reads.append(1)
        with all_joined:  # the first reader holds the read until every other reader waits for it
            assert all_joined.wait_for(lambda: shared.joined("s") == READERS - 1, timeout=30)
        return "the session"

    def reader(_: int) -> str:
        return shared.read("s", read)

    with ThreadPoolExecutor(READERS) as pool:
        futures = [pool.submit(reader, i) for i in range(READERS)]
        while shared.joined("s") < READERS - 1:  # the others joining (readiness of threads, not a sleep)
            threading.Event().wait(0.001)
        with all_joined:  # every reader waits for the first: let it answer
            all_joined.notify_all()
        answers = [future.result(timeout=30) for future in futures]

    assert answers == ["the session"] * READERS
    assert len(reads) == 1
    assert shared.read("s", lambda: "read again") == "read again"  # nothing is kept once the read ended


def test_the_readers_share_the_error_and_the_next_read_tries_again() -> None:
    shared: SharedReads[str] = SharedReads()

    def failing() -> str:
        raise LookupError("no such session")

    with pytest.raises(LookupError):
        shared.read("s", failing)
    assert shared.read("s", lambda: "found") == "found"
