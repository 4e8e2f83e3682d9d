"""A route's answer: JSON serialised once, straight from the response model, or rows streamed as a download.

A route that returns a model makes FastAPI validate it again against its ``response_model`` and then serialise it:
for a model the service has just built and validated, that is paid twice for nothing on every warm request. A route
returns :func:`json_response` instead; its decorator keeps ``response_model``, so the OpenAPI document is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from fastapi import Response
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, TypeAdapter

from functions.api.blocking import iterate_blocking

if TYPE_CHECKING:
    # Not imported at run time: the services import the repositories and SQLAlchemy, which building the app does
    # not need (cold init).
    from session_scoring.services.insights import StreamedRows


def json_response(
    content: BaseModel | Sequence[BaseModel], status_code: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """``content`` as JSON, exactly as FastAPI would have serialised it for the route's ``response_model``."""
    if isinstance(content, BaseModel):
        body = content.__pydantic_serializer__.to_json(content)
    else:
        body = _list_adapter(type(content[0]) if content else BaseModel).dump_json(list(content))
    return Response(body, status_code=status_code, headers=headers, media_type="application/json")


def json_bytes_response(body: bytes) -> Response:
    """JSON the service serialised itself (a page it keeps for every viewer, serialised once), sent as it is."""
    return Response(body, media_type="application/json")


def streamed_response(rows: StreamedRows) -> StreamingResponse:
    """``rows`` as a download, each chunk read through ``run_blocking`` as a route's service call is."""
    return StreamingResponse(
        iterate_blocking(rows.chunks),
        media_type=rows.media_type,
        headers={"Content-Disposition": f'attachment; filename="{rows.filename}"'},
    )


@cache
def _list_adapter(model: type[BaseModel]) -> TypeAdapter[list[Any]]:
    """Built on the first list of ``model`` a route answers (never at import: it costs the cold start)."""
    return TypeAdapter(list[model])  # type: ignore[valid-type]
