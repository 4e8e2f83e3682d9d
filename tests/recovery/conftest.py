"""The recovery test runs only when selected (``make recovery``: ``pytest tests/recovery -m recovery``): it waits out
a real lease, so a plain run skips it."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "recovery" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="recovery: run with `make recovery`")
    for item in items:
        if item.get_closest_marker("recovery"):
            item.add_marker(skip)
