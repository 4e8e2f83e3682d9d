"""Where a route's blocking service call runs: on the request's own thread inside a Lambda invocation (one request
per event loop, no worker thread to start), in a worker thread under a server that multiplexes requests."""

from __future__ import annotations

import asyncio
import threading

from functions.api.blocking import one_request_per_loop, run_blocking


def _thread_of_call() -> int:
    return asyncio.run(run_blocking(threading.get_ident))


def test_a_lambda_invocation_runs_the_call_on_its_own_thread() -> None:
    with one_request_per_loop():
        assert _thread_of_call() == threading.get_ident()


def test_elsewhere_the_call_goes_to_a_worker_thread() -> None:
    assert _thread_of_call() != threading.get_ident()
    with one_request_per_loop():
        pass
    assert _thread_of_call() != threading.get_ident()  # the Lambda mode ends with its block
