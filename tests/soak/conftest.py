"""The soak test runs only when selected (``make soak``: ``pytest tests/soak -m soak``); a plain run skips it."""

from __future__ import annotations

import pytest

from tests.support.postgres import restartable_postgres  # noqa: F401 - a fixture of this folder's test


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "soak" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="soak: run with `make soak`")
    for item in items:
        if item.get_closest_marker("soak"):
            item.add_marker(skip)
