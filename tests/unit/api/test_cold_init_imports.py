"""Building the API (its cold init) imports the web framework, not its routers, models or the service behind them.

The first request imports what it uses (or priming does, before a SnapStart snapshot): a router that imports a
service at module level puts the repositories and SQLAlchemy into every cold start, and the routers themselves
(their routes and the API's models) are included when a request is first matched against them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

NOT_AT_COLD_INIT = ("sqlalchemy", "pg8000", "boto3", "botocore", "pydantic_settings", "aws_lambda_powertools")


def test_building_the_api_imports_no_router_api_model_database_aws_settings_or_service_module() -> None:
    probe = (
        "import sys\n"
        "import functions.api.app\n"
        f"heavy = {NOT_AT_COLD_INIT!r}\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy\n"
        "             or m.startswith(('session_scoring.services', 'session_scoring.repositories',\n"
        "                              'functions.api.routers.', 'session_scoring.models.api'))))\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"
