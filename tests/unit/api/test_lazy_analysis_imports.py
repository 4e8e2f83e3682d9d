"""The agreement report's numerical packages load only when the report is asked for, never at the API's cold start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_api_handler_imports_and_serves_without_loading_numpy_or_krippendorff() -> None:
    probe = (
        "import sys\n"
        "from devstack.queue_poller import LocalLambdaContext\n"
        "from functions.api.app import handler\n"
        "from tests.support.events import load_event\n"
        "event = load_event('api-get-score.json')\n"
        "event['rawPath'] = event['requestContext']['http']['path'] = '/openapi.json'\n"
        "assert handler(event, LocalLambdaContext())['statusCode'] == 200\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'scipy', 'krippendorff')))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"
