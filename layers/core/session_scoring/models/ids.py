"""Identifier formats the API and the core both check, in a module of their own: the API's path parameters need
them to build the app, where importing the API's models (``models/api.py``) would add to the API's cold init."""

import re

SESSION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"
"""A session id at its source: letters, digits, '.', '_', ':', '-'; at most 128, starting with a letter or digit. As
pydantic and OpenAPI read it (``$``: the end of the text); Python code checks with :func:`is_session_id`, where
``$`` would also match before a final newline."""

_SESSION_ID = re.compile(SESSION_ID_PATTERN.removeprefix("^").removesuffix("$"))


def is_session_id(text: str) -> bool:
    """Whether ``text`` is a session id, the whole of it (``"abc\n"`` is not): the one check every place that reads a
    session id outside a pydantic field makes."""
    return _SESSION_ID.fullmatch(text) is not None
