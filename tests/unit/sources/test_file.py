"""The file session source lists a directory page by page and sees every change to it between listings."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from session_scoring.errors import SessionNotFoundError
from session_scoring.sources.file import FileSessionSource
from tests.conftest import SAMPLES, THOROUGH_ID

START = datetime(2026, 11, 1, tzinfo=UTC)


def session_document(session_id: str, minute: int, **changes: Any) -> dict[str, Any]:
    template = json.loads((SAMPLES / f"{THOROUGH_ID}.json").read_text())
    return {
        **template,
        "session_id": session_id,
        "status": "completed",
        "started_at": (START + timedelta(minutes=minute)).isoformat(),
        **changes,
    }


def write(directory: Path, name: str, document: dict[str, Any]) -> Path:
    path = directory / name
    path.write_text(json.dumps(document))
    return path


def listed(source: FileSessionSource, page_size: int = 10) -> list[str]:
    first = source.list_sessions(1, page_size)
    ids = [s.session_id for s in first.items]
    for page in range(2, first.total_pages + 1):
        ids += [s.session_id for s in source.list_sessions(page, page_size).items]
    return ids


def test_pages_list_every_session_once_newest_first(tmp_path: Path) -> None:
    for i in range(7):
        write(tmp_path, f"s{i}.json", session_document(f"s{i}", minute=i))
    source = FileSessionSource(tmp_path)

    assert listed(source, page_size=3) == ["s6", "s5", "s4", "s3", "s2", "s1", "s0"]
    assert source.list_sessions(3, 3).total_items == 7


def test_a_file_changed_between_listings_is_listed_as_it_is_now(tmp_path: Path) -> None:
    path = write(tmp_path, "a.json", session_document("a", minute=1, status="in_progress"))
    source = FileSessionSource(tmp_path)
    assert [s.status for s in source.list_sessions(1, 10).items] == ["in_progress"]

    path.write_text(json.dumps(session_document("a", minute=1, status="completed")))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))  # a clock too coarse to tell is not relied on

    assert [s.status for s in source.list_sessions(1, 10).items] == ["completed"]
    assert source.list_sessions(1, 10, statuses=["completed"]).total_items == 1


def test_files_added_and_removed_between_listings_are_seen(tmp_path: Path) -> None:
    old = write(tmp_path, "old.json", session_document("old", minute=1))
    source = FileSessionSource(tmp_path)
    assert listed(source) == ["old"]

    old.unlink()
    write(tmp_path, "new.json", session_document("new", minute=2))

    assert listed(source) == ["new"]
    with pytest.raises(SessionNotFoundError):
        source.get_session("old")


def test_a_file_skipped_as_unreadable_is_listed_once_it_is_mended(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    source = FileSessionSource(tmp_path)
    first = source.list_sessions(1, 10)
    assert first.items == []
    assert [s.origin for s in first.skipped] == ["broken.json"]

    broken.write_text(json.dumps(session_document("mended", minute=1)))

    mended = source.list_sessions(1, 10)
    assert [s.session_id for s in mended.items] == ["mended"]
    assert mended.skipped == []


def test_a_session_whose_file_name_is_not_its_id_is_found_by_its_id(tmp_path: Path) -> None:
    write(tmp_path, "export-2026-11-01.json", session_document("the-id", minute=1))
    source = FileSessionSource(tmp_path)
    listed(source)

    session = source.get_session("the-id")

    assert (session.session_id, session.source) == ("the-id", "file")
    assert session.tool_calls  # the whole session, not the listing's summary
