"""The one rule for text PostgreSQL will be asked to store or compare: no NUL character (U+0000).

PostgreSQL's ``text`` and ``jsonb`` cannot hold U+0000: a statement with one fails (SQLSTATE 22021 or 22P05). The API
refuses it in every request (its path, query and headers in ``functions/api/middleware.py``, its JSON body through
``models/request.py``) with a 422 naming where it was, so it never reaches the database. Plain Python, no pydantic:
the API's middleware imports it when the app is built.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

NUL = "\x00"

NUL_ERROR_TYPE = "string_nul_character"
"""The ``type`` of the validation problem a NUL character makes (as pydantic names its own problems)."""

NUL_MESSAGE = "NUL characters (U+0000) are not accepted: PostgreSQL cannot store them; remove them"


def nul_locations(value: Any, loc: tuple[str | int, ...] = ()) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Where ``value`` (a decoded JSON document, at any depth) holds a string with a NUL: each location (object keys
    and list indexes from the root) with the offending string. A key with a NUL is reported at its own location."""
    if isinstance(value, str):
        if NUL in value:
            yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str) and NUL in key:
                yield (*loc, key), key
            else:
                yield from nul_locations(item, (*loc, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from nul_locations(item, (*loc, index))
