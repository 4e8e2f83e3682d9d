"""Writes the scoring API's OpenAPI document, from which the dashboard's TypeScript types are generated.

``python -m functions.api.export_openapi [PATH]`` (default ``dashboard/openapi.json``; ``-`` for stdout). ``make
api-types`` runs it and then the dashboard's generator; a test compares the committed file with ``openapi_json()``,
so the dashboard cannot silently drift from the API it calls.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from functions.api.app import create_app

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "dashboard" / "openapi.json"


def openapi_json() -> str:
    """The document FastAPI serves at ``/openapi.json``, pretty-printed with a final newline (stable diffs)."""
    return json.dumps(create_app().openapi(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    document = openapi_json()
    target = argv[0] if argv else str(DEFAULT_PATH)
    if target == "-":
        sys.stdout.write(document)
    else:
        Path(target).write_text(document, encoding="utf-8")
        print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
