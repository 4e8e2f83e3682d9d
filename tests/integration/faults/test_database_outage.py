"""PostgreSQL down or frozen: every API route that needs it answers 503 JSON saying so, and a scorer lets the job go
(the message comes back later) instead of logging an unexpected error and holding the attempt."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from devstack.aws import free_port
from tests.conftest import THOROUGH_ID, Stack

ROUTES = [
    ("GET", "/health"),
    ("GET", f"/api/v1/scoring/sessions/{THOROUGH_ID}/score"),
    ("POST", f"/api/v1/scoring/sessions/{THOROUGH_ID}/score"),
    ("GET", f"/api/v1/scoring/sessions/{THOROUGH_ID}/scores"),
    ("GET", "/api/v1/scoring/sessions"),
    ("GET", "/api/v1/scoring/criteria/current"),
    ("GET", "/api/v1/scoring/analytics/score-distribution"),
    ("GET", "/api/v1/scoring/analytics/missing-tools"),
    ("GET", "/api/v1/scoring/analytics/criteria"),
]


@pytest.fixture
def frozen_database() -> Iterator[str]:
    """A server that accepts connections and never answers: a frozen PostgreSQL (or a black-holed network)."""
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"postgresql+pg8000://scoring:x@127.0.0.1:{listener.getsockname()[1]}/scoring"
    stop.set()
    thread.join(timeout=2)
    for connection in accepted:
        connection.close()
    listener.close()


def _assert_all_unavailable(stack: Stack) -> None:
    for method, path in ROUTES:
        response = stack.client.request(method, path)
        assert response.status_code == 503, f"{method} {path}: {response.status_code} {response.text}"
        body: dict[str, Any] = response.json()
        assert body["code"] == "database_unavailable", f"{method} {path}: {body}"
        assert "database" in body["detail"]
        assert int(response.headers["retry-after"]) > 0
        for internal in ("127.0.0.1", "pg8000", "InterfaceError", "OperationalError", "TimeoutError"):
            assert internal not in response.text, f"{method} {path} names {internal}: {body}"


def test_database_down_is_503_on_every_route(make_stack: Any) -> None:
    stack = make_stack(
        SCORING_DATABASE_URL=f"postgresql+pg8000://scoring:x@127.0.0.1:{free_port()}/scoring",
        SCORING_DATABASE_TIMEOUT_SECONDS="1",
    )
    _assert_all_unavailable(stack)


def test_database_frozen_is_503_on_every_route(make_stack: Any, frozen_database: str) -> None:
    stack = make_stack(SCORING_DATABASE_URL=frozen_database, SCORING_DATABASE_TIMEOUT_SECONDS="0.5")
    _assert_all_unavailable(stack)


def test_a_scorer_without_its_database_lets_the_job_go(make_stack: Any) -> None:
    from session_scoring.models.jobs import ScoringJob

    stack = make_stack(
        SCORING_DATABASE_URL=f"postgresql+pg8000://scoring:x@127.0.0.1:{free_port()}/scoring",
        SCORING_DATABASE_TIMEOUT_SECONDS="1",
    )
    import uuid
    from datetime import UTC, datetime

    job = ScoringJob(score_id=uuid.uuid4(), session_id=THOROUGH_ID, requested_by="test", requested_at=datetime.now(UTC))

    outcome = stack.container.job_service.handle(job, receipt_handle="r", receive_count=1, remaining_seconds=60)

    assert not outcome.done
    assert outcome.reason.startswith("could not claim the attempt: the database is unavailable")
