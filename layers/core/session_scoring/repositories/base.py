"""What the repositories share beyond ``db_call`` (``session_scoring.db.calls``): decoding JSON aggregates."""

from __future__ import annotations

from typing import Any


def as_json_list(value: Any) -> list[Any]:
    """A json_agg result: pg8000 decodes json to Python; a driver that does not returns text."""
    if value is None:
        return []
    if isinstance(value, str):
        import json

        decoded: list[Any] = json.loads(value)
        return decoded
    return list(value)
