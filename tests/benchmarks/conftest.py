"""Benchmarks print figures and assert nothing about speed. They run only when selected: ``make bench``
(``pytest tests/benchmarks -m benchmark``); a plain ``pytest`` skips them (``ON_DEMAND`` in tests/conftest.py).

``make bench`` captures what the service prints (its log lines and one metrics line per scorer invocation, thousands
in a run, as a deployed function prints them) and shows only what the benchmarks :func:`report`: each row as it is
measured, the loading of large data sets, the EXPLAIN output, and the table at the end.

Every benchmark adds rows to one table (the ``bench_table`` fixture), printed once at the end of the run: each row is a
measured figure beside the floor measured in the same run, and their ratio against the goal (docs/performance.md).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import pytest


def report(text: str) -> None:
    """Show ``text`` on the terminal at once, past pytest's capture of the service's own output."""
    print(text, file=sys.__stdout__, flush=True)


@dataclass(frozen=True)
class BenchRow:
    """One figure: ``value`` beside its ``floor`` (same unit, same run); ``goal`` says what the ratio should be."""

    path: str
    value: float
    unit: str
    floor: float | None = None
    goal: str = ""
    note: str = ""

    @property
    def ratio(self) -> float | None:
        return None if not self.floor else self.value / self.floor


class BenchTable:
    def __init__(self) -> None:
        self.rows: list[BenchRow] = []

    def add(
        self, path: str, value: float, unit: str, floor: float | None = None, goal: str = "", note: str = ""
    ) -> BenchRow:
        row = BenchRow(path, value, unit, floor, goal, note)
        self.rows.append(row)
        report(f"bench: {_format(row)}")
        return row

    def render(self) -> str:
        header = f"{'path':<58} {'value':>12} {'floor':>12} {'ratio':>7}  {'goal':<16} note"
        lines = [header, "-" * len(header)]
        lines += [_format(row) for row in self.rows]
        return "\n".join(lines)


def _format(row: BenchRow) -> str:
    floor = "-" if row.floor is None else f"{row.floor:,.2f} {row.unit}"
    ratio = "-" if row.ratio is None else f"{row.ratio:.2f}x"
    return f"{row.path:<58} {f'{row.value:,.2f} {row.unit}':>12} {floor:>12} {ratio:>7}  {row.goal:<16} {row.note}"


_TABLE = BenchTable()


@pytest.fixture(scope="session")
def bench_table() -> BenchTable:
    return _TABLE


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if _TABLE.rows:
        terminalreporter.section("benchmark table")
        terminalreporter.write_line(_TABLE.render())
