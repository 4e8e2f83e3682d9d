"""The fault suite's ledger: faults injected and the end state of its jobs, summed over every process of the run.

Under pytest-xdist each worker keeps its own ledger and hands it to the controller when it ends (``workeroutput``);
the controller adds them up and prints ``faults injected: N, jobs lost: L, duplicate scores: D`` (tests/conftest.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass
class FaultLedger:
    faults: int = 0
    jobs: int = 0
    lost: int = 0
    duplicates: int = 0
    tests: int = 0

    def summary(self) -> str:
        return f"faults injected: {self.faults}, jobs lost: {self.lost}, duplicate scores: {self.duplicates}"

    def as_dict(self) -> dict[str, int]:
        return asdict(self)

    def add(self, other: dict[str, Any]) -> None:
        for field in fields(self):
            setattr(self, field.name, getattr(self, field.name) + int(other.get(field.name, 0)))


LEDGER = FaultLedger()
