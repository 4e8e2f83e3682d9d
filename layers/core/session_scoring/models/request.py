"""The base of every request body the API takes: strict JSON types, no unknown field, no NUL character.

- Strict: ``"yes"``, ``"1"``, ``1`` are not booleans and ``"5"`` or ``5.0`` is not an integer; a loose request such
  as ``"dry_run": "no"`` must not be read as something else (a paid run). FastAPI validates the decoded JSON as
  Python values, where strict mode refuses the strings JSON carries enums and times in: an enum field is declared
  ``Annotated[TheEnum, Strict(False)]`` (only its values are then accepted) and a time :data:`JsonDateTime`.
- Unknown fields are refused (a misspelt option must not be ignored silently).
- A NUL character or a lone surrogate in any string (or key), at any depth, is refused with its location
  (``models/text.py``).

No ``from __future__ import annotations`` here (see ``models/api.py``).
"""

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Strict, ValidationError, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from session_scoring.models.text import unstorable_locations


class RequestBody(BaseModel):
    """A request body: strict JSON types, no unknown field, no string PostgreSQL cannot store."""

    model_config = ConfigDict(extra="forbid", strict=True)

    @model_validator(mode="before")
    @classmethod
    def _only_storable_text(cls, data: Any) -> Any:
        # Run on the raw document before any field: the outermost body reports every problem with its whole
        # location (``["selection", "statuses", 1]``); nested bodies never see one.
        problems = [
            InitErrorDetails(type=PydanticCustomError(error_type, message), loc=loc, input=text)
            for loc, text, (error_type, message) in unstorable_locations(data)
        ]
        if problems:
            raise ValidationError.from_exception_data(cls.__name__, problems)
        return data


_NUMBER = re.compile(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*")


def iso_text_only(value: Any) -> Any:
    """Refuse a number (or a number written as text, as a query string carries it) where a date and time is
    expected: pydantic would read it as seconds since 1970, which nobody sending ``0.5`` meant."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if number or (isinstance(value, str) and _NUMBER.fullmatch(value)):
        raise PydanticCustomError("datetime_type", "Input should be an ISO 8601 date and time, not a number")
    return value


JsonDateTime = Annotated[datetime, Strict(False), BeforeValidator(iso_text_only)]
"""A date and time in a strict body: an ISO 8601 string (JSON has no time type), never a number."""

IsoDateTime = Annotated[datetime, BeforeValidator(iso_text_only)]
"""A date and time in a query string: ISO 8601, never a number."""
