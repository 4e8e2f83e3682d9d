"""Lambda SnapStart hooks: before the snapshot, build everything a request needs and rehearse the handler's hot
path, then close every connection (a restored copy must not share a socket); after a restore, connect again.

A handler module calls :func:`register_priming` at import; only the Lambda runtime has ``snapshot_restore_py``, and
with ``SCORING_SNAPSTART`` off (the template's ``SnapStart`` parameter sets it) neither hook does anything.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

RECONNECT_WAIT_SECONDS = 2.0
"""How long the after-restore hook waits for its connection (Lambda allows it 10 s; else the first request connects)."""

REHEARSAL_RUNS = 8
"""How many times priming runs each rehearsal: CPython specialises code that has run a few times, and the snapshot
keeps it."""


def prime(*warm_ups: Callable[[], Any], rehearsals: tuple[Callable[[], Any], ...] = ()) -> bool:
    """With ``SCORING_SNAPSTART`` on: build the container's services, run the handler's ``warm_ups`` (no I/O), then
    each of ``rehearsals`` :data:`REHEARSAL_RUNS` times (a failure is logged and ends the rehearsing), and close every
    connection. Returns whether it primed."""
    from session_scoring.container import get_container

    container = get_container()
    if not container.settings.snapstart:
        return False
    container.prime()
    for warm_up in warm_ups:
        warm_up()
    try:
        for rehearsal in rehearsals:
            for _ in range(REHEARSAL_RUNS):
                rehearsal()
    except Exception as exc:  # noqa: BLE001 - a snapshot without rehearsals is still a good snapshot
        from session_scoring.log import logger

        logger.warning("priming rehearsal failed; the snapshot is taken without it", extra={"error": str(exc)})
    finally:
        container.close_connections()  # no socket in the snapshot
    return True


def reconnect(*connect_ups: Callable[[], Any]) -> bool:
    """With ``SCORING_SNAPSTART`` on: run the handler's ``connect_ups`` in a thread, waiting at most
    :data:`RECONNECT_WAIT_SECONDS`; a failure is logged, never raised. Returns whether they ended in time, unfailed."""
    from session_scoring.container import get_container
    from session_scoring.log import logger

    if not get_container().settings.snapstart:
        return False
    failures: list[BaseException] = []

    def run() -> None:
        try:
            for connect_up in connect_ups:
                connect_up()
        except Exception as exc:  # noqa: BLE001 - the restore must succeed whatever the database does
            failures.append(exc)
            logger.warning("after-restore connection failed; the first request connects", extra={"error": str(exc)})

    worker = threading.Thread(target=run, name="after-restore-connect", daemon=True)
    worker.start()
    worker.join(RECONNECT_WAIT_SECONDS)
    return not worker.is_alive() and not failures


def register_priming(
    *warm_ups: Callable[[], Any],
    rehearsals: tuple[Callable[[], Any], ...] = (),
    connect_ups: tuple[Callable[[], Any], ...] = (),
) -> bool:
    """Register :func:`prime` (with ``warm_ups`` and ``rehearsals``) before the snapshot and :func:`reconnect` (with
    ``connect_ups``) after a restore; False outside the Lambda runtime."""
    try:
        from snapshot_restore_py import (  # type: ignore[import-not-found]
            register_after_restore,
            register_before_snapshot,
        )
    except ImportError:
        return False
    register_before_snapshot(prime, *warm_ups, rehearsals=rehearsals)
    register_after_restore(reconnect, *connect_ups)
    return True
