"""The local stack the campaign attacks: `python -m devstack` as a process on a free loopback port, with a PostgreSQL
of the campaign's own (so the campaign can count rows behind the API), moto, the heuristic judge and the worker.

Only 127.0.0.1 is ever addressed: the API, moto and PostgreSQL's Unix socket.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Engine, create_engine

from tests.conftest import SAMPLES
from tests.support.devstack_process import LocalStackProcess, stack_directory


@dataclass(frozen=True)
class LocalStack:
    base_url: str
    database: Engine
    """An engine on the stack's database, for counting rows behind the API (never for writes)."""
    log: Path
    sessions_dir: Path
    """Where the stack's file source reads sessions (a copy of the samples; the campaign may add its own)."""


def extra_settings() -> dict[str, str]:
    """FUZZ_STACK_ENV: settings for the stack, ``NAME=value`` separated by commas (to attack another configuration,
    e.g. ``SCORING_DATABASE_PREPARED_STATEMENTS=off``)."""
    pairs = [item.split("=", 1) for item in os.environ.get("FUZZ_STACK_ENV", "").split(",") if "=" in item]
    return {name.strip(): value.strip() for name, value in pairs}


@contextmanager
def running_stack(keep_log: Path | None = None) -> Iterator[LocalStack]:
    """Start PostgreSQL, then the stack on it; stop both (and remove their data) on exit, first copying the stack's
    log to ``keep_log``."""
    from devstack.postgres import start_postgres

    with stack_directory("scoring-fuzz-") as data_dir:
        sessions_dir = data_dir / "sessions"
        shutil.copytree(SAMPLES, sessions_dir)
        url, server = start_postgres(data_dir / "pgdata", database="fuzz")
        engine = create_engine(url, pool_size=1, max_overflow=0)
        settings = {
            "SCORING_DATABASE_URL": url,
            "SCORING_SESSIONS_DIR": str(sessions_dir),
            "SCORING_LLM_PROVIDER": "heuristic",
            "POWERTOOLS_LOG_LEVEL": "WARNING",
        }
        stack = LocalStackProcess(data_dir, **(settings | extra_settings()))
        try:
            stack.start()
            yield LocalStack(stack.base_url, engine, stack.log, sessions_dir)
        finally:
            stack.close()
            if keep_log is not None and stack.log.is_file():
                shutil.copyfile(stack.log, keep_log)
            engine.dispose()
            server.cleanup()
