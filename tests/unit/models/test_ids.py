"""The one session-id rule (``models/ids.py``): the whole text is the id, a final newline included."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, ValidationError

from session_scoring.models.ids import SESSION_ID_PATTERN, is_session_id


class _PathLike(BaseModel):
    session_id: str = Field(pattern=SESSION_ID_PATTERN, max_length=128)


@pytest.mark.parametrize("text", ["abc\n", "abc\r", "abc\r\n", "\nabc", "ab c", "", "-abc", "a" * 129, "abc\u00a0"])
def test_text_around_or_inside_an_id_is_not_an_id_in_python_and_in_pydantic_alike(text: str) -> None:
    assert not is_session_id(text)
    with pytest.raises(ValidationError):
        _PathLike(session_id=text)


@pytest.mark.parametrize("text", ["7c9e6679-7425-40de-944b-e07fc1f90ae7", "upload:abc", "a", "A.b_c:d-e", "a" * 128])
def test_ids_are_ids_in_python_and_in_pydantic_alike(text: str) -> None:
    assert is_session_id(text)
    assert _PathLike(session_id=text).session_id == text
