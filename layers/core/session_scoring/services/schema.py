"""Bring the database schema to the newest migration, under the advisory lock (run on every deploy)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from session_scoring.configuration.settings import Settings
from session_scoring.errors import DatabaseUnavailableError
from session_scoring.infrastructure import migrate
from session_scoring.log import logger
from session_scoring.repositories.scores import install_routines


@dataclass(frozen=True)
class SchemaState:
    """The Alembic revision before and after an upgrade (None: the database had no schema yet)."""

    previous_revision: str | None
    revision: str | None

    @property
    def changed(self) -> bool:
        return self.previous_revision != self.revision


@dataclass(eq=False)
class SchemaService:
    engine: Engine
    settings: Settings

    def upgrade(self) -> SchemaState:
        """Apply every pending migration (concurrent callers wait on the advisory lock); DatabaseUnavailableError,
        naming the cause, when the database cannot be reached or a migration fails (and is rolled back). The
        service's database routines (``repositories/routines.py``) are installed after the migrations, under the same
        lock."""
        try:
            before = migrate.current_revision(self.engine)
            migrate.upgrade(self.engine, self.settings, then=install_routines)
            after = migrate.current_revision(self.engine)
        except SQLAlchemyError as exc:
            raise DatabaseUnavailableError(f"database migration failed: {_describe(exc)}") from exc
        logger.info("database schema is current", extra={"previous_revision": before, "revision": after})
        return SchemaState(before, after)


def _describe(exc: SQLAlchemyError) -> str:
    """The server's message (pg8000 puts PostgreSQL's error fields in a dict) and SQLSTATE, else the error text."""
    original = getattr(exc, "orig", None) or exc
    fields = original.args[0] if original.args else None
    if isinstance(fields, dict) and fields.get("M"):
        return f"{fields['M']} (SQLSTATE {fields.get('C', '?')})"
    return f"{type(original).__name__}: {original}"
