"""Priming (SnapStart's before-snapshot hook, or a warm-up) builds what a request needs but opens no connection."""

from __future__ import annotations

import os
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.pool import NullPool

from tests.conftest import ROOT, THOROUGH_ID
from tests.support.fresh import run_fresh


def test_reading_a_score_builds_no_session_source_no_queue_and_no_verdict_statement(make_stack: Any) -> None:
    """A cold API environment whose first request is a GET pays only for the read (the default, without SnapStart):
    the session source (the trace formats), the SQS client and the verdict's statement wait for a POST or a job."""
    stack = make_stack()
    container = stack.container

    assert stack.score("never-scored").status_code == 404

    assert "scoring_service" in vars(container)
    assert not {"source", "queue", "uploads", "engine"} & set(vars(container))
    assert "_store_verdict" not in vars(container.score_repository)
    assert stack.request_score(THOROUGH_ID).status_code == 202  # a POST builds what it needs
    assert {"source", "queue"} <= set(vars(container))


COLD_REQUESTS = """
import json, sys
from devstack.queue_poller import LocalLambdaContext
from functions.api.app import handler
answers = {}
for name in sys.argv[1:]:
    response = handler(json.loads(open(name).read()), LocalLambdaContext(budget_seconds=29))
    answers[name.rsplit("/", 1)[-1]] = [response["statusCode"], "sqlalchemy.orm" in sys.modules]
print(json.dumps(answers))
"""


def test_a_cold_environments_first_requests_do_not_import_the_orm(make_stack: Any) -> None:
    """A fresh process (a cold API environment) serving a score GET, then a POST, works through Core tables:
    SQLAlchemy's ORM and its mappers (about 100 ms of a cold start) are never imported."""
    make_stack()  # the stack's environment: database, queues
    events = [str(ROOT / "events" / name) for name in ("api-get-score.json", "api-post-score-force.json")]
    assert run_fresh(COLD_REQUESTS, os.environ, *events) == {
        "api-get-score.json": [404, False],  # never scored in this database
        "api-post-score-force.json": [202, False],  # the session source (with the uploads) and the queue built
    }


def test_prime_builds_services_and_queue_without_connecting(make_stack: Any) -> None:
    from functions.api.app import PRIMING, app, logged_handler
    from functions.api.lazy_routers import LazyRouter
    from session_scoring.entrypoints.snapstart import prime, register_priming

    stack = make_stack(SCORING_SNAPSTART="true")
    container = stack.container
    logged_handler.cache_clear()
    assert prime(*PRIMING.warm_ups) is True

    built = vars(container)
    assert {"scoring_service", "source", "analytics_service", "session_view_service", "queue", "query_engine"} <= set(
        built
    )
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


def test_priming_rehearses_the_get_with_the_database_and_closes_every_connection_before_the_snapshot(
    make_stack: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from functions.api.app import PRIMING
    from session_scoring.entrypoints.snapstart import prime

    stack = _snapstart_stack_with_a_score(make_stack)
    capsys.readouterr()
    engine = stack.container.query_engine
    others = _connections(stack) - engine.pool.checkedin()  # what the container does not hold (fixtures)

    assert prime(*PRIMING.warm_ups, rehearsals=PRIMING.rehearsals) is True

    assert _connections(stack) == others  # the rehearsals' connection is closed too: no socket in the snapshot
    assert engine.pool.checkedin() == 0
    assert engine.dialect.server_version_info is not None  # initialised in the snapshot, not by a restore
    assert "ApiRequests" not in capsys.readouterr().out  # rehearsals are no client's requests
    assert stack.score(THOROUGH_ID).status_code == 200  # the primed stack connects again on use


def test_a_database_unreachable_while_priming_leaves_a_snapshot_without_rehearsals(make_stack: Any) -> None:
    from functions.api.app import PRIMING
    from session_scoring.entrypoints.snapstart import prime

    stack = make_stack(SCORING_SNAPSTART="true", SCORING_DATABASE_URL="postgresql+pg8000://nobody@127.0.0.1:9/none")

    assert (
        prime(*PRIMING.warm_ups, rehearsals=PRIMING.rehearsals) is True
    )  # logged; the snapshot holds everything but them
    assert stack.container.query_engine.pool.checkedin() == 0


def test_after_a_restore_the_hook_connects_so_the_first_request_finds_its_connection_open(
    make_stack: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from functions.api.app import PRIMING, app
    from session_scoring.entrypoints.snapstart import prime, reconnect

    stack = _snapstart_stack_with_a_score(make_stack)
    assert prime(*PRIMING.warm_ups, rehearsals=PRIMING.rehearsals) is True
    assert app.middleware_stack is not None  # built before the snapshot, not by the first request
    engine = stack.container.query_engine
    connects: list[object] = []
    event.listen(engine, "connect", lambda dbapi_connection, _record: connects.append(dbapi_connection))
    assert engine.pool.checkedin() == 0

    assert reconnect(*PRIMING.connect_ups) is True
    assert engine.pool.checkedin() == 1  # open and back in the pool
    capsys.readouterr()
    assert stack.score(THOROUGH_ID).status_code == 200
    assert len(connects) == 1  # the first request used the hook's connection
    assert engine.pool.checkedin() == 1
    assert "ApiRequests" in capsys.readouterr().out


def _snapstart_stack_with_a_score(make_stack: Any) -> Any:
    """A stack with SnapStart on and one session scored (what a rehearsal and the hook read)."""
    stack = make_stack(SCORING_SNAPSTART="true")
    stack.request_score(THOROUGH_ID)
    stack.poller.drain()
    return stack


def _connections(stack: Any) -> int:
    """Connections to the stack's database other than the one asking."""
    from sqlalchemy import create_engine, text

    probe = create_engine(stack.env["SCORING_DATABASE_URL"], poolclass=NullPool)
    try:
        with probe.connect() as conn:
            return int(
                conn.execute(
                    text(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                    )
                ).scalar_one()
            )
    finally:
        probe.dispose()


def test_a_database_that_fails_after_a_restore_does_not_fail_the_restore(make_stack: Any) -> None:
    from functions.api.app import PRIMING
    from session_scoring.entrypoints.snapstart import reconnect

    stack = make_stack(SCORING_SNAPSTART="true", SCORING_DATABASE_URL="postgresql+pg8000://nobody@127.0.0.1:9/none")

    assert (
        reconnect(*PRIMING.connect_ups) is False
    )  # logged; the first request will connect (and answer 503 if it cannot)
    assert stack.container.query_engine.pool.checkedin() == 0
