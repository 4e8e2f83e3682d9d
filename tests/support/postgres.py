"""A PostgreSQL of a test's own that the test may restart or stop (pgserver, migrated)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text


@pytest.fixture
def restartable_postgres() -> Iterator[tuple[str, Any]]:
    """A PostgreSQL of this test's own (pgserver), migrated, that the test may restart."""
    from devstack.postgres import start_postgres
    from session_scoring.configuration.settings import Settings
    from session_scoring.infrastructure import migrate

    data_dir = Path(tempfile.mkdtemp(prefix="scoring-pg-restart-"))
    url, server = start_postgres(data_dir / "pgdata")
    engine = create_engine(url)
    try:
        migrate.upgrade(engine, Settings())
    finally:
        engine.dispose()
    try:
        yield url, server
    finally:
        server.cleanup()
        shutil.rmtree(data_dir, ignore_errors=True)


def sql(url: str, statement: str, **params: Any) -> list[Any]:
    """Run one statement in a transaction of its own on the database at ``url``, behind the service's back (what a
    test checks, or its stand-in for time passing); its rows, if it returns any."""
    engine = create_engine(url)
    try:
        with engine.begin() as conn:
            result = conn.execute(text(statement), params)
            return result.all() if result.returns_rows else []
    finally:
        engine.dispose()


def restart(server: Any) -> None:
    """pg_ctl restart (pgserver runs it as its `pgserver` system user when we are root)."""
    from pgserver import pg_ctl

    pg_ctl(["-w", "restart", "-m", "fast"], pgdata=server.pgdata, user=server.system_user, timeout=30)
