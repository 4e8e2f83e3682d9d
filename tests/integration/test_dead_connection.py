"""No ping per checkout: a pooled connection the server closed is replaced by one retry, invisible to the caller."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from tests.conftest import THOROUGH_ID, Stack


def test_a_connection_killed_in_the_pool_is_replaced_on_the_next_request(stack: Stack) -> None:
    assert stack.request_score(THOROUGH_ID).status_code == 202
    engine = stack.container.query_engine
    assert engine.pool.checkedin() == 1

    killer = create_engine(stack.env["SCORING_DATABASE_URL"], isolation_level="AUTOCOMMIT")
    with killer.connect() as conn:
        killed = conn.execute(
            text(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
            )
        ).scalar()
    killer.dispose()
    assert (killed or 0) >= 1

    response = stack.score(THOROUGH_ID)

    assert response.status_code == 200, response.text
    assert response.json()["status"] == "pending"
