"""Priming (SnapStart's before-snapshot hook, or a warm-up) builds what a request needs but opens no connection."""

from __future__ import annotations

from typing import Any


def test_prime_builds_services_and_queue_without_connecting(make_stack: Any) -> None:
    from functions.api.app import WARM_UPS, app, logged_handler
    from functions.api.lazy_routers import LazyRouter
    from session_scoring.entrypoints.snapstart import prime, register_priming

    stack = make_stack(SCORING_SNAPSTART="true")
    container = stack.container
    logged_handler.cache_clear()
    assert prime(*WARM_UPS) is True

    built = vars(container)
    assert {"scoring_service", "analytics_service", "session_view_service", "queue", "query_engine"} <= set(built)
    assert "criteria_hash" in vars(container.config)  # what every score answer is compared with
    assert logged_handler.cache_info().currsize == 1  # the handler's own warm-ups ran too
    assert not any(isinstance(route, LazyRouter) for route in app.router.routes)  # every router included
    assert container.query_engine.pool.checkedin() == 0  # no connection was opened
    assert container.query_engine.pool.checkedout() == 0
    assert register_priming() is False  # not under the Lambda runtime: nothing to register

    assert stack.score("never-scored").status_code == 404  # the primed stack serves; now it connects
    assert container.query_engine.pool.checkedin() == 1


def test_prime_does_nothing_when_snapstart_is_off(make_stack: Any) -> None:
    from session_scoring.entrypoints.snapstart import prime

    container = make_stack().container
    assert prime() is False
    assert "scoring_service" not in vars(container)
