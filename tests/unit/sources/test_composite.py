"""The composite source: uploads (ids 'upload:...') first, then the configured source, paged without gaps or
repeats, each session marked with its source."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from session_scoring.errors import SessionNotFoundError
from session_scoring.models.records import SessionFacts, SessionOutline
from session_scoring.models.session import Session, SessionPage, SessionSummary, SkippedSession, Stage
from session_scoring.sources.composite import CompositeSessionSource


class ListSource:
    """A configured source over a fixed list (newest first), like the file source."""

    name = "file"

    def __init__(self, ids: list[str]) -> None:
        self.ids = ids

    def get_session(self, session_id: str) -> Session:
        if session_id not in self.ids:
            raise SessionNotFoundError(session_id)
        return Session(session_id=session_id, status="completed")

    def list_sessions(self, page: int, page_size: int, statuses: Sequence[str] = ()) -> SessionPage:
        start = (page - 1) * page_size
        return SessionPage(
            items=[SessionSummary(session_id=i, status="completed") for i in self.ids[start : start + page_size]],
            page=page,
            page_size=page_size,
            total_items=len(self.ids),
            total_pages=max(1, math.ceil(len(self.ids) / page_size)),
            skipped=[SkippedSession(origin="bad.json", error="bad.json: not valid JSON")],
        )


class Uploads:
    name = "upload"

    def __init__(self, ids: list[str]) -> None:
        self.ids = ids
        self.outlined: list[str] = []

    def owns(self, session_id: str) -> bool:
        return session_id.startswith("upload:")

    def get_session(self, session_id: str) -> Session:
        return Session(session_id=session_id, status="completed", source="upload")

    def outline(self, session_id: str) -> SessionOutline:
        self.outlined.append(session_id)
        facts = SessionFacts(None, None, None, None, stages=0, tool_calls=0, source="upload")
        return SessionOutline(session_id, "completed", facts)

    def count(self, statuses: Sequence[str] = ()) -> int:
        return len(self.ids)

    def summaries(self, offset: int, limit: int, statuses: Sequence[str] = ()) -> list[SessionSummary]:
        return [
            SessionSummary(session_id=i, status="completed", source="upload") for i in self.ids[offset : offset + limit]
        ]


@pytest.mark.parametrize(("uploads", "files", "page_size"), [(0, 7, 3), (2, 7, 3), (3, 7, 3), (5, 0, 2), (4, 9, 4)])
def test_pages_cover_uploads_then_files_once_each(uploads: int, files: int, page_size: int) -> None:
    upload_ids = [f"upload:{n}" for n in range(uploads)]
    file_ids = [f"f{n}" for n in range(files)]
    source = CompositeSessionSource(ListSource(file_ids), Uploads(upload_ids))

    first = source.list_sessions(1, page_size)
    seen: list[tuple[str, str | None]] = []
    for page in range(1, first.total_pages + 1):
        seen += [(s.session_id, s.source) for s in source.list_sessions(page, page_size).items]

    assert first.total_items == uploads + files
    assert seen == [(i, "upload") for i in upload_ids] + [(i, "file") for i in file_ids]
    assert first.skipped[0].origin == "bad.json"


def test_ids_are_routed_by_prefix_and_marked_with_their_source() -> None:
    source = CompositeSessionSource(ListSource(["f1"]), Uploads([]))

    assert source.get_session("upload:abc").source == "upload"
    assert source.get_session("f1").source == "file"
    with pytest.raises(SessionNotFoundError):
        source.get_session("upload-like-but-not:1")


def test_an_outline_of_an_upload_comes_from_the_uploads_and_of_another_session_from_the_whole_session() -> None:
    class StagedSource(ListSource):
        def get_session(self, session_id: str) -> Session:
            stages = [Stage(name="triage"), Stage(name="investigate", agent="KubernetesAgent")]
            return super().get_session(session_id).model_copy(update={"stages": stages})

    uploads = Uploads([])
    source = CompositeSessionSource(StagedSource(["f1"]), uploads)

    assert source.outline("upload:abc").facts.source == "upload"
    assert uploads.outlined == ["upload:abc"]
    outline = source.outline("f1")
    assert (outline.status, outline.facts.stages, outline.facts.agent, outline.facts.source) == (
        "completed",
        2,
        "KubernetesAgent",
        "file",
    )
    with pytest.raises(SessionNotFoundError):
        source.outline("f2")
