"""Run a script in a fresh interpreter of this virtualenv, the project importable as a Lambda package would have it:
a cold environment, for what only a new process shows (imports, first requests)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

from tests.conftest import ROOT


def run_fresh(script: str, env: Mapping[str, str], *args: str) -> Any:
    """Run ``script`` (``python -c``) with ``args`` and ``env``, the project and its core layer on the path; return the
    JSON its last line of output prints. Fails, with the process's stderr, when it exits with an error."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=ROOT,
        env={**env, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'layers' / 'core'}"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
