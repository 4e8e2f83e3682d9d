"""Turn a session document (parsed JSON) into the normalised :class:`Session`, whatever shape it has.

Recognised shapes:
- ``session-scoring/v1``: the service's own normalised format.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from session_scoring.errors import SessionDataError
from session_scoring.models.session import SESSION_FORMAT, Session


def describe_validation_error(exc: ValidationError) -> str:
    first = exc.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "(document)"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"field '{field}': {first['msg']}{more}"


def parse_session_document(document: Any, origin: str) -> Session:
    """Normalise one document; ``origin`` (a file name or URL) is named in errors."""
    if not isinstance(document, dict):
        raise SessionDataError(f"{origin}: expected a JSON object, got {type(document).__name__}")
    if document.get("format") == SESSION_FORMAT or ("stages" in document and "format" in document):
        try:
            return Session.model_validate(document)
        except ValidationError as exc:
            raise SessionDataError(
                f"{origin}: not a valid {SESSION_FORMAT} session: {describe_validation_error(exc)}"
            ) from exc
    raise SessionDataError(
        f'{origin}: unrecognised session document; expected \'"format": "{SESSION_FORMAT}"\' '
        "or a TARSy final-analysis response"
    )
