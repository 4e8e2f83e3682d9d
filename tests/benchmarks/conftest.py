"""Benchmarks print timings and assert nothing about speed. They run only when selected: ``make bench``
(``pytest tests/benchmarks -m benchmark``); a plain ``pytest`` skips them."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "benchmark" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="benchmark: run with `make bench`")
    for item in items:
        if item.get_closest_marker("benchmark"):
            item.add_marker(skip)
