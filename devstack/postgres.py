"""An embedded PostgreSQL (the ``pgserver`` wheel) for a fresh machine; it also runs as root."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any


def start_postgres(data_dir: Path, database: str = "scoring") -> tuple[str, Any]:
    """Start (or reuse) a server whose data lives in ``data_dir``; return a pg8000 URL and the server handle.

    The server stops when the process exits; the data stays, so scores survive a restart.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgserver.postgres_server import get_server

        data_dir.mkdir(parents=True, exist_ok=True)
        server = get_server(str(data_dir), cleanup_mode="stop")
    info = server.get_postmaster_info()
    socket = Path(info.socket_dir) / f".s.PGSQL.{info.port}"
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{database}';")
    if "(1 row)" not in exists:
        server.psql(f'CREATE DATABASE "{database}";')
    return f"postgresql+pg8000://postgres@/{database}?unix_sock={socket}", server
