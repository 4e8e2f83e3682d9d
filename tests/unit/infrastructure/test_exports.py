"""The exporter's streaming file: S3's transfer manager reads it in parts while the export is still being made."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from session_scoring.errors import ConfigurationError
from session_scoring.infrastructure.exports import SqsExportQueue, StreamReader


def test_the_reader_hands_out_every_byte_in_order_across_chunk_boundaries_and_counts_them() -> None:
    lines = [f'{{"n": {i}, "text": "{"é" * i}"}}\n'.encode() for i in range(50)]
    reader = StreamReader(iter(lines))

    parts = []
    while part := reader.read(7):  # smaller than most lines, so reads cross chunk boundaries
        parts.append(part)

    assert b"".join(parts) == b"".join(lines)
    assert {len(part) for part in parts[:-1]} == {7}  # every read but the last is full: S3 refuses small parts
    assert reader.bytes_read == sum(len(line) for line in lines)
    assert not reader.seekable()  # the transfer manager must not seek back: the export is made once


def test_the_reader_pulls_no_more_of_the_export_than_it_was_asked_for() -> None:
    made: list[int] = []

    def lines() -> Iterator[bytes]:
        for i in range(1000):
            made.append(i)
            yield b"x" * 100

    reader = StreamReader(lines())
    assert len(reader.read(250)) == 250

    assert len(made) == 3  # bounded memory: only the chunks that read needed were made


def test_an_error_made_by_the_export_comes_out_of_the_read() -> None:
    def lines() -> Iterator[bytes]:
        yield b"first\n"
        raise RuntimeError("the source went away")

    reader = StreamReader(lines())
    assert reader.read(6) == b"first\n"
    with pytest.raises(RuntimeError, match="source went away"):
        reader.read(6)


def test_jobs_without_their_queue_name_the_setting() -> None:
    with pytest.raises(ConfigurationError, match="SCORING_EXPORTS_QUEUE_URL"):
        SqsExportQueue(object(), "")
