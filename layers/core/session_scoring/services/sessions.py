"""Read one session for the dashboard's conversation view, mapped to the API's own model, by pages of bounded size.

The view's first answer carries the session with as many of its first steps as fit :data:`PAGE_BYTES` (at most
:data:`PAGE_STEPS`); the others come by pages from ``GET .../sessions/{id}/steps``. An upload is cut in PostgreSQL
(``UploadRepository.session_head``/``step_page``): the API process holds one page of it, never the document, however
large. Other sources hand the whole session over and it is cut here. Concurrent identical reads in one process share
one read (:class:`SharedReads`): twenty viewers of one large session cost one read, not twenty. An upload never
changes once stored, so the last :data:`KEPT_UPLOAD_PAGES` pages of uploads read are kept (each at most a page's
size): viewers reading one large upload over and over cost the database and the process one read per page. Each page
is answered as its JSON, serialised once in the read it comes from: a kept page costs the next viewer the sending of
its bytes, not another serialisation of half a megabyte on the server's event loop.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from session_scoring.models.api import ConversationStep, PagedConversationStep, SessionDetail, SessionStepsPage
from session_scoring.models.session import Session, Step
from session_scoring.sources.base import SessionSource

PAGE_BYTES = 512 * 1024
"""The most of a page's steps, as JSON text (a single larger step is a page of its own)."""
PAGE_STEPS = 500
"""The most steps of a page."""
KEPT_UPLOAD_PAGES = 8
"""Pages of uploads kept (first pages and step pages together): a few megabytes at most."""

V = TypeVar("V")


class SharedReads(Generic[V]):
    """Concurrent calls for the same key share one call: the first caller reads, the others wait for its answer (or
    its error). Nothing is kept once the read ends: the next call reads again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reading: dict[Hashable, Future[V]] = {}
        self._joined: dict[Hashable, int] = {}

    def joined(self, key: Hashable) -> int:
        """How many callers are waiting for the read of ``key`` in progress (0: none, or no read)."""
        with self._lock:
            return self._joined.get(key, 0)

    def read(self, key: Hashable, read: Callable[[], V]) -> V:
        with self._lock:
            shared = self._reading.get(key)
            if shared is None:
                self._reading[key] = mine = Future[V]()
            else:
                self._joined[key] = self._joined.get(key, 0) + 1
        if shared is not None:
            return shared.result()
        try:
            value = read()
        except BaseException as exc:
            mine.set_exception(exc)
            raise
        finally:
            with self._lock:
                del self._reading[key]
                self._joined.pop(key, None)
        mine.set_result(value)
        return value


class KeptPages:
    """The last few pages read of immutable sessions (uploads), by key, least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._pages: OrderedDict[Hashable, object] = OrderedDict()

    def get(self, key: Hashable, read: Callable[[], V]) -> V:
        with self._lock:
            if key in self._pages:
                self._pages.move_to_end(key)
                return self._pages[key]  # type: ignore[return-value]  # stored by this method under this key
        value = read()
        with self._lock:
            self._pages[key] = value
            while len(self._pages) > self._size:
                self._pages.popitem(last=False)
        return value


class PagedStep(Protocol):
    """One step read on its own (``repositories.uploads.PagedStep``)."""

    @property
    def stage_index(self) -> int: ...
    @property
    def step_index(self) -> int: ...
    @property
    def step(self) -> Mapping[str, Any]: ...


class PagedSessions(Protocol):
    """Sessions read in pieces where they are stored (``repositories.uploads``)."""

    def owns(self, session_id: str) -> bool: ...
    def session_head(self, session_id: str) -> tuple[Session, int]: ...
    def step_page(self, session_id: str, offset: int, limit: int, max_bytes: int) -> Sequence[PagedStep]: ...


@dataclass(eq=False)
class SessionViewService:
    source: SessionSource
    paged: PagedSessions | None = None
    _details: SharedReads[bytes] = field(default_factory=SharedReads)
    _pages: SharedReads[bytes] = field(default_factory=SharedReads)
    _kept: KeptPages = field(default_factory=lambda: KeptPages(KEPT_UPLOAD_PAGES))

    def session_detail_json(self, session_id: str) -> bytes:
        """The session with its first page of steps, as the JSON of :class:`SessionDetail` (SessionNotFoundError
        when unknown)."""
        return self._details.read(session_id, lambda: self._detail_json(session_id))

    def session_steps_json(self, session_id: str, offset: int, limit: int = PAGE_STEPS) -> bytes:
        """Up to ``limit`` steps from ``offset`` (across the stages), at most :data:`PAGE_BYTES` of them, as the JSON
        of :class:`SessionStepsPage`."""
        limit = min(limit, PAGE_STEPS)
        return self._pages.read((session_id, offset, limit), lambda: self._steps_json(session_id, offset, limit))

    def _detail_json(self, session_id: str) -> bytes:
        if self.paged is not None and self.paged.owns(session_id):
            return self._kept.get(("detail", session_id), lambda: _json(self._upload_detail(session_id)))
        return _json(self._detail(session_id))

    def _detail(self, session_id: str) -> SessionDetail:
        session = self.source.get_session(session_id)
        flat = _flat(session)
        shown = _within_budget([step for _, _, step in flat], PAGE_STEPS)
        kept: dict[int, list[Step]] = {}
        for stage_index, _, step in flat[:shown]:
            kept.setdefault(stage_index, []).append(step)
        stages = [stage.model_copy(update={"steps": kept.get(i, [])}) for i, stage in enumerate(session.stages)]
        return to_session_detail(session.model_copy(update={"stages": stages}), len(flat), shown)

    def _upload_detail(self, session_id: str) -> SessionDetail:
        assert self.paged is not None
        head, total = self.paged.session_head(session_id)
        page = self.paged.step_page(session_id, 0, PAGE_STEPS, PAGE_BYTES)
        stages = [stage.model_copy(update={"steps": []}) for stage in head.stages]
        for item in page:
            stages[item.stage_index].steps.append(Step.model_validate(item.step))
        return to_session_detail(head.model_copy(update={"stages": stages}), total, len(page))

    def _steps_json(self, session_id: str, offset: int, limit: int) -> bytes:
        if self.paged is not None and self.paged.owns(session_id):
            key = ("steps", session_id, offset, limit)
            return self._kept.get(key, lambda: _json(self._upload_steps(session_id, offset, limit)))
        return _json(self._steps(session_id, offset, limit))

    def _steps(self, session_id: str, offset: int, limit: int) -> SessionStepsPage:
        flat = _flat(self.source.get_session(session_id))
        rest = flat[offset : offset + limit]
        steps = rest[: _within_budget([step for _, _, step in rest], limit)]
        return _steps_page(session_id, offset, steps, len(flat))

    def _upload_steps(self, session_id: str, offset: int, limit: int) -> SessionStepsPage:
        assert self.paged is not None
        _, total = self.paged.session_head(session_id)
        rows = self.paged.step_page(session_id, offset, limit, PAGE_BYTES)
        steps = [(row.stage_index, row.step_index, Step.model_validate(row.step)) for row in rows]
        return _steps_page(session_id, offset, steps, total)


def _json(model: BaseModel) -> bytes:
    """``model`` as the API sends it: serialised as ``functions/api/responses.json_response`` serialises a model."""
    return model.__pydantic_serializer__.to_json(model)


def _steps_page(session_id: str, offset: int, steps: list[tuple[int, int, Step]], total: int) -> SessionStepsPage:
    end = offset + len(steps)
    return SessionStepsPage(
        session_id=session_id,
        offset=offset,
        steps=[
            PagedConversationStep(
                stage_index=stage_index,
                step_index=step_index,
                step=ConversationStep.model_validate(step, from_attributes=True),
            )
            for stage_index, step_index, step in steps
        ],
        steps_total=total,
        next_offset=end if end < total and steps else None,
    )


def _flat(session: Session) -> list[tuple[int, int, Step]]:
    return [(i, j, step) for i, stage in enumerate(session.stages) for j, step in enumerate(stage.steps)]


def _within_budget(steps: list[Step], limit: int) -> int:
    """How many of the first ``steps`` fit a page: at most ``limit`` and :data:`PAGE_BYTES` (at least one)."""
    spent = 0
    for count, step in enumerate(steps[:limit]):
        spent += len(step.model_dump_json(exclude_none=True))
        if count and spent > PAGE_BYTES:
            return count
    return min(len(steps), limit)


def to_session_detail(
    session: Session, steps_total: int | None = None, steps_shown: int | None = None
) -> SessionDetail:
    """The domain session as the API model, read field by field (the domain may grow fields the API does not show);
    ``steps_shown`` of ``steps_total`` steps are in its stages (default: all of them)."""
    total = steps_total if steps_total is not None else sum(len(stage.steps) for stage in session.stages)
    shown = steps_shown if steps_shown is not None else total
    fields = {
        **dict(session),
        "title": session.title or session.alert_type,
        "available_tools": session.all_available_tools,
        "steps_total": total,
        "steps_shown": shown,
        "next_steps_offset": shown if shown < total else None,
    }
    return SessionDetail.model_validate(fields, from_attributes=True)
