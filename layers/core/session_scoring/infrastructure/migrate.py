"""Apply the Alembic migrations under a PostgreSQL advisory lock, so concurrent deploys or local starts never race."""

from __future__ import annotations

from collections.abc import Callable

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, text

from session_scoring.configuration.settings import Settings

MIGRATION_LOCK_ID = 0x5C0_12E  # any constant shared by every migrator of this database


def alembic_config(settings: Settings) -> Config:
    config = Config(str(settings.migrations_dir / "alembic.ini"))
    config.set_main_option("script_location", str(settings.migrations_dir))
    return config


def upgrade(
    engine: Engine, settings: Settings, revision: str = "head", then: Callable[[Connection], None] | None = None
) -> None:
    """Upgrade to ``revision``; ``then`` runs after it on the same connection, under the same lock and in the same
    transaction (the service installs its database routines there)."""
    _run(engine, settings, lambda config: command.upgrade(config, revision), then)


def downgrade(engine: Engine, settings: Settings, revision: str) -> None:
    _run(engine, settings, lambda config: command.downgrade(config, revision))


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        exists = conn.execute(text("SELECT to_regclass('alembic_version') IS NOT NULL")).scalar()
        if not exists:
            return None
        value = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        return str(value) if value is not None else None


def _run(engine: Engine, settings: Settings, action: object, then: Callable[[Connection], None] | None = None) -> None:
    config = alembic_config(settings)
    with engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:id)"), {"id": MIGRATION_LOCK_ID})
        conn.commit()
        try:
            config.attributes["connection"] = conn
            action(config)  # type: ignore[operator]
            if then is not None:
                then(conn)
            conn.commit()
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:id)"), {"id": MIGRATION_LOCK_ID})
            conn.commit()
