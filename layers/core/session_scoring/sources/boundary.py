"""Helpers shared by the adapters that validate another system's JSON (TARSy, exported files)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from session_scoring.errors import SessionDataError


class BoundaryModel(BaseModel):
    """A foreign document's shape: unknown fields are ignored (the other side may add fields at any time)."""

    model_config = ConfigDict(extra="ignore")


class TarsyPagination(BoundaryModel):
    """The ``pagination`` block of a TARSy session list, the same in tarsy-bot and TARSy Go."""

    page: int
    page_size: int
    total_pages: int
    total_items: int


class TarsyListing(BoundaryModel):
    """A TARSy session list: items whose shape each API defines, and the shared pagination."""

    pagination: TarsyPagination


_Model = TypeVar("_Model", bound=BaseModel)


def validate_document(model: type[_Model], document: Any, what: str) -> _Model:
    """``document`` as ``model``, or SessionDataError saying ``what`` was wrong and naming the first bad field:
    ``field 'stages.0.stage_name': Field required``."""
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(document)"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise SessionDataError(f"{what}: field '{field}': {first['msg']}{more}") from exc
