"""Splitting a run's Message Batches requests within the API's limits."""

from __future__ import annotations

from session_scoring.judge.batches import MAX_BATCH_REQUESTS, BatchRequest, chunk_requests


def requests(count: int, size: int = 100) -> list[BatchRequest]:
    return [BatchRequest(f"r{i}", {}, size) for i in range(count)]


def test_requests_are_chunked_by_count_in_order() -> None:
    chunks = chunk_requests(requests(25), max_requests=10)

    assert [len(c) for c in chunks] == [10, 10, 5]
    assert [r.custom_id for c in chunks for r in c] == [f"r{i}" for i in range(25)]


def test_requests_are_chunked_by_size() -> None:
    chunks = chunk_requests(requests(10, size=300), max_requests=100, max_bytes=1000)

    assert [len(c) for c in chunks] == [3, 3, 3, 1]
    assert all(sum(r.size_bytes for r in c) <= 1000 for c in chunks)


def test_a_request_above_the_size_limit_goes_alone() -> None:
    big = BatchRequest("big", {}, 5000)
    chunks = chunk_requests([*requests(2), big, *requests(1)], max_requests=100, max_bytes=1000)

    assert [[r.custom_id for r in c] for c in chunks] == [["r0", "r1"], ["big"], ["r0"]]


def test_the_count_never_passes_the_api_limit() -> None:
    chunks = chunk_requests(requests(MAX_BATCH_REQUESTS + 1, size=1), max_requests=10 * MAX_BATCH_REQUESTS)

    assert [len(c) for c in chunks] == [MAX_BATCH_REQUESTS, 1]


def test_no_requests_no_batches() -> None:
    assert chunk_requests([], max_requests=10) == []
