"""Lambda SnapStart hooks: before the snapshot, build everything a request needs and rehearse the handler's hot
path; after a restore, connect.

A handler module calls :func:`register_priming` at import. Only the Lambda runtime has ``snapshot_restore_py``, and it
runs the hooks only for a version published with SnapStart (the template's ``SnapStart`` parameter, which also sets
``SCORING_SNAPSTART``); with ``SCORING_SNAPSTART`` off neither hook does anything. As AWS advises, every connection is
closed before the snapshot (it keeps code that has run, never a socket a restored copy would share) and opened again
in the after-restore hook, which the invocation that caused the restore waits for anyway: the first request then runs
as a warm one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

RECONNECT_WAIT_SECONDS = 2.0
"""How long the after-restore hook waits for its connection before letting the restore finish (Lambda allows
after-restore hooks 10 s; the first request connects if this one could not)."""


REHEARSAL_RUNS = 8
"""How many times priming runs each rehearsal: CPython (3.11+) specialises code once it has run a few times, and the
specialised code, like every cache the runs fill, is what the snapshot keeps."""


def prime(*warm_ups: Callable[[], Any], rehearsals: tuple[Callable[[], Any], ...] = ()) -> bool:
    """With ``SCORING_SNAPSTART`` on: import and build the container's services, engine and queue client, run the
    handler's own ``warm_ups`` (what its first request would import or build, no I/O), then each of ``rehearsals``
    :data:`REHEARSAL_RUNS` times (its hot request, which reads the database), and close every connection.

    A rehearsal that fails (the database unreachable while the version is published) is logged and ends the
    rehearsing; priming still succeeds. Returns whether it primed.
    """
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
    """With ``SCORING_SNAPSTART`` on: run the handler's ``connect_ups`` (each opens what a first request would open
    and runs its statement) in a thread, waiting at most :data:`RECONNECT_WAIT_SECONDS`; a failure is logged, never
    raised (the first request then connects itself).

    Returns whether they finished in time without an error.
    """
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
