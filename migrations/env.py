"""Alembic environment: uses a connection handed in by ``session_scoring.infrastructure.migrate``, or builds one."""

from __future__ import annotations

from alembic import context

from session_scoring.configuration.settings import get_settings
from session_scoring.db.engine import create_db_engine
from session_scoring.db.schema import metadata

target_metadata = metadata


def run_migrations_online() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_db_engine(get_settings())
    try:
        with engine.connect() as conn:
            context.configure(connection=conn, target_metadata=target_metadata)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (--sql) migrations are not supported; run against a database")
run_migrations_online()
