"""The soak test runs only when selected (``make soak``: ``pytest tests/soak -m soak``); a plain run skips it
(``ON_DEMAND`` in tests/conftest.py)."""

from __future__ import annotations

from tests.support.postgres import restartable_postgres  # noqa: F401 - a fixture of this folder's test
