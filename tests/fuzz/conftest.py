"""The fuzz campaign runs only when selected (``make fuzz-short``: ``pytest tests/fuzz -m fuzz``; ``make fuzz`` runs
the full one as ``python -m tests.fuzz``); a plain run skips it."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "fuzz" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="fuzz: run with `make fuzz-short` (or `make fuzz`)")
    for item in items:
        if item.get_closest_marker("fuzz"):
            item.add_marker(skip)
