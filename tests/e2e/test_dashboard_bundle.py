"""The built dashboard: no inline script (the API's policy allows scripts from itself only), and its first page stays
within its JavaScript budget: the entry script and the scripts it preloads
(everything a browser must download before the sessions list can draw) add up to at most 200 kB gzipped. A size, not
a timing: the time to the table is measured, never asserted, by ``make bench``."""

from __future__ import annotations

import re

import pytest

from tests.e2e.conftest import STATIC_INDEX
from tests.support.dashboard_bundle import FIRST_LOAD_BUDGET_KB, entry_scripts, kilobytes


def test_the_first_page_loads_at_most_200_kb_of_gzipped_javascript() -> None:
    if not STATIC_INDEX.is_file():
        pytest.fail("the dashboard is not built: run `make dashboard` (make e2e builds it)")
    scripts = entry_scripts(STATIC_INDEX.parent)
    assert scripts, "index.html names no script: the build changed shape"
    assert scripts[0].path.startswith("/assets/index-"), scripts
    total = kilobytes(sum(s.gzip_bytes for s in scripts))
    listing = ", ".join(f"{s.path} {kilobytes(s.gzip_bytes):.1f} kB" for s in scripts)
    assert total <= FIRST_LOAD_BUDGET_KB, f"the first page loads {total:.1f} kB of gzipped JavaScript: {listing}"
    # the charts and the search are loaded later, never with the first page
    assert not any("Chart" in s.path or "Autocomplete" in s.path for s in scripts), listing


def test_the_built_dashboard_has_no_inline_script() -> None:
    if not STATIC_INDEX.is_file():
        pytest.fail("the dashboard is not built: run `make dashboard` (make e2e builds it)")

    assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", STATIC_INDEX.read_text()) == []
