"""A scratch database on the test PostgreSQL server, for tests that need an empty schema (migrations, backfills)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, make_url, text


@contextmanager
def scratch_database(postgres_url: str, prefix: str) -> Iterator[str]:
    """The URL of a new, empty database (``prefix`` plus a random suffix), dropped afterwards even if still in use."""
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin = create_engine(postgres_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()
