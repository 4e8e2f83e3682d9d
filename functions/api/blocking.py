"""Running a route's blocking service call: inline inside a Lambda invocation, in a worker thread elsewhere.

A ``def`` route runs in anyio's worker threads. Behind Mangum every invocation is a new root task, and anyio stops
a task's worker threads when that task ends, so each request would start (and join) a thread of its own: the largest
single cost of a warm request. A Lambda invocation serves exactly one request, so nothing else can be waiting on the
event loop and the service call may block it. Under a server that multiplexes requests (uvicorn in ``make run``) the
call keeps going to a worker thread. Every route is therefore ``async def`` and makes its service call through
:func:`run_blocking` (docs/architecture.md, "Routes").
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from itertools import islice
from typing import ParamSpec, TypeVar

from starlette.concurrency import run_in_threadpool

P = ParamSpec("P")
T = TypeVar("T")

_one_request_per_loop: ContextVar[bool] = ContextVar("one_request_per_loop", default=False)


@contextmanager
def one_request_per_loop() -> Iterator[None]:
    """Inside the block, the event loop serves a single request (a Lambda invocation): blocking calls run inline.

    Mangum creates the request's task inside the block, and a task copies the context it is created in.
    """
    token = _one_request_per_loop.set(True)
    try:
        yield
    finally:
        _one_request_per_loop.reset(token)


async def run_blocking(func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``func(*args, **kwargs)``: inline when the loop serves one request, else in a worker thread."""
    if _one_request_per_loop.get():
        return func(*args, **kwargs)
    return await run_in_threadpool(func, *args, **kwargs)


async def iterate_blocking(items: Iterator[T]) -> AsyncIterator[T]:
    """Each of ``items`` (an iterator that reads the database as it goes) read through :func:`run_blocking`: what a
    streamed answer iterates, where Starlette would read a plain iterator in a worker thread."""
    while item := await run_blocking(_next_one, items):
        yield item[0]


def _next_one(items: Iterator[T]) -> list[T]:
    """The next item as a one-item list, an empty list at the end (``StopIteration`` cannot cross an ``await``)."""
    return list(islice(items, 1))
