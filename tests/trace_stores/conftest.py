"""The trace-store tests run only when selected (``make trace-stores``: ``pytest tests/trace_stores -m trace_stores``
with ``TRACE_STORES_PYTHON``, the stores' own interpreter); a plain run skips them (``ON_DEMAND`` in tests/conftest.py).

One Phoenix and one MLflow server serve the whole run: both are started at once (their first start takes a while)
and stopped at the end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.trace_store_servers import StoreServer, launch_mlflow, launch_phoenix


@pytest.fixture(scope="session")
def store_python() -> Path:
    value = os.environ.get("TRACE_STORES_PYTHON", "")
    if not value:
        pytest.fail("TRACE_STORES_PYTHON is not set: run these tests with `make trace-stores`")
    path = Path(value)
    if not path.is_file():
        pytest.fail(f"TRACE_STORES_PYTHON={value} is not an interpreter: run `make trace-stores`")
    return path


@pytest.fixture(scope="session")
def stores(store_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, StoreServer]]:
    """Both servers, ready: ``stores["phoenix"]``, ``stores["mlflow"]``."""
    started = {
        "phoenix": launch_phoenix(store_python, tmp_path_factory.mktemp("phoenix")),
        "mlflow": launch_mlflow(store_python, tmp_path_factory.mktemp("mlflow")),
    }
    try:
        for server in started.values():
            server.wait_ready()
        yield started
    finally:
        for server in started.values():
            server.stop()
