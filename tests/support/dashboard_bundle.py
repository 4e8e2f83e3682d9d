"""What the built dashboard makes a browser download before its first page can draw: the entry script of
``index.html`` and the scripts it preloads (its static imports), with their gzipped sizes.

The budget is the first-load goal (at most 200 KB of gzipped JavaScript before the sessions table shows); the browser
benchmark (``tests/benchmarks/test_dashboard_first_load_bench.py``) measures what a cold load fetches, and the
browser tests check the built bundle's static part against the same budget.
"""

from __future__ import annotations

import gzip
import re
from dataclasses import dataclass
from pathlib import Path

FIRST_LOAD_BUDGET_KB = 200.0
"""Gzipped JavaScript before the sessions table shows, in kB (1,000 bytes)."""

FIRST_LOAD_SECONDS_GOAL = 1.5
"""Time from a cold navigation to the sessions table, on this kind of machine."""

GZIP_LEVEL = 6
"""zlib's default level, what a server compressing on the fly (and Vite's size report) uses."""

_SCRIPTS = re.compile(r'<(?:script[^>]*\bsrc|link[^>]*rel="modulepreload"[^>]*\bhref)="(/assets/[^"]+\.js)"')


@dataclass(frozen=True)
class Script:
    path: str
    gzip_bytes: int


def gzipped_size(body: bytes) -> int:
    return len(gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0))


def entry_scripts(static_dir: Path) -> list[Script]:
    """The entry script and every script ``index.html`` preloads, with their gzipped sizes."""
    html = (static_dir / "index.html").read_text()
    scripts = []
    for path in _SCRIPTS.findall(html):
        body = (static_dir / path.lstrip("/")).read_bytes()
        scripts.append(Script(path, gzipped_size(body)))
    return scripts


def kilobytes(size: int) -> float:
    return size / 1000
