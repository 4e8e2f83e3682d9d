"""The one rule for text PostgreSQL will be asked to store or compare: no NUL character, no lone surrogate.

PostgreSQL's ``text`` and ``jsonb`` cannot hold U+0000 (a statement with one fails, SQLSTATE 22021 or 22P05), and a
lone UTF-16 surrogate (U+D800-U+DFFF, which JSON's ``\\ud800`` escape decodes to) has no UTF-8 encoding, so it
cannot even be sent. The API refuses both in every request (a NUL in the path, query and headers in
``functions/api/middleware.py``; either in a JSON body through ``models/request.py``; either in an uploaded document
through ``sources/formats``) with a 4xx naming where it was, so neither reaches the database. Plain Python, no
pydantic: the API's middleware imports it when the app is built.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

NUL = "\x00"

NUL_ERROR_TYPE = "string_nul_character"
"""The ``type`` of the validation problem a NUL character makes (as pydantic names its own problems)."""

NUL_MESSAGE = "NUL characters (U+0000) are not accepted: PostgreSQL cannot store them; remove them"

SURROGATE_ERROR_TYPE = "string_lone_surrogate"

SURROGATE_MESSAGE = (
    "lone surrogates (U+D800-U+DFFF, e.g. an unpaired \\ud800 escape) are not accepted: they are not text and cannot "
    "be stored; send valid Unicode"
)

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")

Location = tuple[str | int, ...]


def unstorable_problem(text: str) -> tuple[str, str] | None:
    """The error type and message for ``text`` if it holds a character PostgreSQL cannot store, else None."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    return (NUL_ERROR_TYPE, NUL_MESSAGE) if found.group() == NUL else (SURROGATE_ERROR_TYPE, SURROGATE_MESSAGE)


def unstorable_locations(value: Any, loc: Location = ()) -> Iterator[tuple[Location, str, tuple[str, str]]]:
    """Where ``value`` (a decoded JSON document, at any depth) holds a string PostgreSQL cannot store: each location
    (object keys and list indexes from the root), the offending string and its problem (error type, message). A key
    with such a character is reported at its own location. Iterative: a document's depth is bounded elsewhere, but
    this never recurses."""
    stack: list[tuple[Any, Location]] = [(value, loc)]
    while stack:
        current, where = stack.pop()
        if isinstance(current, str):
            problem = unstorable_problem(current)
            if problem is not None:
                yield where, current, problem
        elif isinstance(current, dict):
            for key, item in reversed(list(current.items())):
                problem = unstorable_problem(key) if isinstance(key, str) else None
                if problem is not None:
                    yield (*where, key), key, problem
                else:
                    stack.append((item, (*where, key)))
        elif isinstance(current, list | tuple):
            stack.extend((item, (*where, index)) for index, item in reversed(list(enumerate(current))))


def json_path(loc: Location) -> str:
    """``("messages", 1, "content")`` -> ``$.messages[1].content`` (how an upload's problems are named)."""
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
