"""Where a route's blocking service call runs: on the request's own thread inside a Lambda invocation (one request
per event loop, no worker thread to start), in a worker thread under a server that multiplexes requests; and so are
the chunks of a streamed answer."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

from functions.api.blocking import iterate_blocking, one_request_per_loop, run_blocking

T = TypeVar("T")


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run on a loop of its own, never the thread's: asyncio.run would leave the main thread without one, which
    Mangum (tests that invoke the Lambda handler later in the run) asks for."""
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.close()


def _thread_of_call() -> int:
    return _run(run_blocking(threading.get_ident))


def test_a_lambda_invocation_runs_the_call_on_its_own_thread() -> None:
    with one_request_per_loop():
        assert _thread_of_call() == threading.get_ident()


def test_elsewhere_the_call_goes_to_a_worker_thread() -> None:
    assert _thread_of_call() != threading.get_ident()
    with one_request_per_loop():
        pass
    assert _thread_of_call() != threading.get_ident()  # the Lambda mode ends with its block


def _threads_of_streamed_items() -> set[int]:
    def items() -> Iterator[int]:
        for _ in range(3):
            yield threading.get_ident()

    async def read() -> list[int]:
        return [item async for item in iterate_blocking(items())]

    return set(_run(read()))


def test_a_streamed_answer_is_read_as_the_call_is() -> None:
    with one_request_per_loop():
        assert _threads_of_streamed_items() == {threading.get_ident()}
    assert threading.get_ident() not in _threads_of_streamed_items()
