"""scripts/load_reference_root_causes.py: the CSV checked whole before anything is sent, a dry run that sends
nothing, and each row PUT with the API's answer reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scripts.load_reference_root_causes import main, read_rows


def _run(tmp_path: Path, text: str, *args: str, answers: dict[str, int] | None = None) -> tuple[int, list[str], list]:
    path = tmp_path / "truth.csv"
    path.write_text(text, encoding="utf-8")
    sent: list[tuple[str, dict[str, str | None]]] = []
    out: list[str] = []

    def send(session_id: str, body: dict[str, str | None]) -> tuple[int, str]:
        sent.append((session_id, body))
        status = (answers or {}).get(session_id, 200)
        if status == 200:
            return 200, json.dumps({"revision": 1})
        return status, json.dumps({"code": "session_not_found", "detail": f"session '{session_id}' was not found"})

    code = main([str(path), *args], send=send, out=out.append)
    return code, out, sent


def test_every_row_is_put_and_a_refused_one_is_reported(tmp_path: Path) -> None:
    csv = 'session_id,root_cause,remediation\nbench-1,"disk full, /var/lib",clean it\nbench-2,OOM at 512Mi,\n'

    code, out, sent = _run(tmp_path, csv, answers={"bench-2": 404})

    assert code == 1
    assert sent == [
        ("bench-1", {"reference_root_cause": "disk full, /var/lib", "reference_remediation": "clean it"}),
        ("bench-2", {"reference_root_cause": "OOM at 512Mi", "reference_remediation": None}),
    ]
    assert out == [
        "line 2: bench-1: reference set (revision 1)",
        "line 3: bench-2: refused (404): session 'bench-2' was not found",
        "1 reference(s) set, 1 refused",
    ]


def test_a_dry_run_checks_the_file_and_sends_nothing(tmp_path: Path) -> None:
    code, out, sent = _run(tmp_path, "session_id,root_cause\nbench-1,disk full\n", "--dry-run")

    assert (code, sent) == (0, [])
    assert out[-1] == "dry run: 1 reference(s) valid, nothing sent"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("session,cause\nx,y\n", "the header lacks session_id, root_cause; has unknown column(s) session, cause"),
        ("session_id,root_cause\nbad id,y\n", "line 2: session_id 'bad id' is not a session id"),
        ("session_id,root_cause\nb-1,\n", "line 2: root_cause is empty"),
        ("session_id,root_cause\nb-1," + "x" * 1001 + "\n", "line 2: root_cause is 1,001 characters; at most 1,000"),
        ("session_id,root_cause\nb-1,x\nb-1,y\n", "line 3: session b-1 is already on line 2"),
        ("session_id,root_cause\n", "the file has a header but no rows"),
    ],
)
def test_a_bad_file_sends_nothing_and_names_every_problem(tmp_path: Path, text: str, problem: str) -> None:
    code, out, sent = _run(tmp_path, text)

    assert sent == []
    assert code in (1, 2)
    assert any(line.startswith(f"  {problem}") for line in out), out


def test_only_an_http_api_is_accepted(tmp_path: Path) -> None:
    code, out, sent = _run(tmp_path, "session_id,root_cause\nb-1,x\n", "--api", "file:///etc/passwd")

    assert (code, sent) == (2, [])
    assert out == ["error: --api 'file:///etc/passwd' is not an http(s) URL"]


def test_rows_keep_their_lines_and_trim_their_values() -> None:
    rows, problems = read_rows("session_id, root_cause \n  b-1 ,  the cause  \n")

    assert problems == []
    assert [(r.line, r.session_id, r.root_cause, r.remediation) for r in rows] == [(2, "b-1", "the cause", None)]
