"""CSV the service writes, safe to open in a spreadsheet: every CSV goes through :func:`csv_chunks`.

A cell whose text starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is run by spreadsheets as a
formula, and session fields come from uploads and sources anyone may write: such a cell is prefixed with ``'``
(OWASP's CSV injection advice). The JSON answers carry every value unchanged.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")

CHUNK_CHARACTERS = 64_000
"""About how much CSV text each chunk of a streamed answer holds."""


def spreadsheet_safe(cell: Any) -> Any:
    """``cell``, or, when it is text a spreadsheet would run as a formula, that text prefixed with ``'``."""
    if isinstance(cell, str) and cell.startswith(FORMULA_PREFIXES):
        return "'" + cell
    return cell


def csv_chunks(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> Iterator[str]:
    """CSV text in chunks of about :data:`CHUNK_CHARACTERS`: the header, then each row, every cell neutralised."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow([spreadsheet_safe(name) for name in header])
    for row in rows:
        writer.writerow([spreadsheet_safe(cell) for cell in row])
        if buffer.tell() > CHUNK_CHARACTERS:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()
