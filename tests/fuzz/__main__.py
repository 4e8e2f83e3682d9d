"""`make fuzz`: ``python -m tests.fuzz``. Runs the campaign and ends with its one summary line; exits 1 unless the
three counts are zero.

FUZZ_SECONDS (default 480: the campaign's time budget from start-up on; the last checks and the shutdown add at most
about a minute), FUZZ_REQUESTS (default 30000: stop once this many requests were sent), FUZZ_SEED, FUZZ_REPORTS
(where the schemathesis log and report, the stack's log and the tally go; default .local/fuzz/<time>), FUZZ_STACK_ENV
(settings for the stack, ``NAME=value,...``).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from tests.conftest import ROOT
from tests.fuzz.campaign import Budget, run


def main() -> int:
    seconds = float(os.environ.get("FUZZ_SECONDS", "480"))
    requests = int(os.environ.get("FUZZ_REQUESTS", "30000"))
    seed = int(os.environ.get("FUZZ_SEED", "20261126"))
    reports = Path(os.environ.get("FUZZ_REPORTS") or ROOT / ".local" / "fuzz" / time.strftime("%Y%m%dT%H%M%S"))
    started = time.monotonic()
    tally = run(Budget(seconds, requests), seed, reports, say=lambda line: print(line, flush=True))
    elapsed = time.monotonic() - started
    for line in tally.report():
        print(line)
    sources = ", ".join(f"{source} {n}" for source, n in sorted(tally.by_source.items()))
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"fuzz: {elapsed:.0f} s in all; requests by source: {sources}; load average {load}; seed {seed}")
    print(tally.summary_line(), flush=True)
    return 0 if tally.passed() else 1


if __name__ == "__main__":
    sys.exit(main())
