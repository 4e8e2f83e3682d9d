"""The short form of the fuzz campaign (``make fuzz-short``, also run by ``make test``): the same campaign as
``make fuzz`` with a budget of FUZZ_SECONDS (default 90) and FUZZ_REQUESTS (default 1500). It sends every named
hostile case whatever the budget, and passes only with no 5xx, no wrong answer and nothing stored on an error. It
takes about two minutes (111 s on the 2-core machine with other work beside it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.fuzz.campaign import Budget, run


@pytest.mark.fuzz
def test_short_campaign_finds_nothing(tmp_path: Path) -> None:
    budget = Budget(float(os.environ.get("FUZZ_SECONDS", "90")), int(os.environ.get("FUZZ_REQUESTS", "1500")))
    seed = int(os.environ.get("FUZZ_SEED", "20261126"))
    tally = run(budget, seed, Path(os.environ.get("FUZZ_REPORTS") or tmp_path), say=print)
    for line in tally.report():
        print(line)
    print(tally.summary_line())
    passed = tally.passed()
    assert passed, tally.summary_line()
