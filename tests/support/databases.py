"""Scratch databases on the test PostgreSQL server (for tests that need an empty schema: migrations, backfills),
and pg8000's connection arguments for a database URL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

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


def pg_params(sqlalchemy_url: str) -> dict[str, Any]:
    """pg8000's connection arguments for the database of a ``postgresql+pg8000://`` URL."""
    url = make_url(sqlalchemy_url)
    kwargs: dict[str, Any] = {"user": url.username or "postgres", "database": url.database}
    if "unix_sock" in url.query:
        kwargs["unix_sock"] = url.query["unix_sock"]
    else:
        kwargs.update(host=url.host or "localhost", port=url.port or 5432, password=url.password)
    return kwargs
