"""Priming (SnapStart's before-snapshot hook, or a warm-up) builds what a request needs but opens no connection."""

from __future__ import annotations

from tests.conftest import Stack


def test_prime_builds_services_and_queue_without_connecting(stack: Stack) -> None:
    from session_scoring.entrypoints.snapstart import prime, register_priming

    container = stack.container
    prime()

    built = vars(container)
    assert {"scoring_service", "analytics_service", "session_view_service", "queue", "query_engine"} <= set(built)
    assert container.query_engine.pool.checkedin() == 0  # no connection was opened
    assert container.query_engine.pool.checkedout() == 0
    assert register_priming() is False  # not under the Lambda runtime: nothing to register

    assert stack.score("never-scored").status_code == 404  # the primed stack serves; now it connects
    assert container.query_engine.pool.checkedin() == 1
