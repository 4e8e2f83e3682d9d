"""Lambda SnapStart priming: build everything a request needs, except connections, before the snapshot is taken.

A handler module calls :func:`register_priming` at import. Only the Lambda runtime has ``snapshot_restore_py``
(outside it nothing is registered), and it runs before-snapshot hooks only when the function version is published
with SnapStart (the template's ``SnapStart`` parameter, which also sets ``SCORING_SNAPSTART``). With
``SCORING_SNAPSTART`` off the hook primes nothing, so a snapshot taken anyway holds the imports alone. Nothing
connects before the snapshot: the engine's pool is empty in it, so a restored function opens fresh connections
instead of reusing stale sockets.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def prime(*warm_ups: Callable[[], Any]) -> bool:
    """With ``SCORING_SNAPSTART`` on: import and build the container's services, engine and queue client, then run
    the handler's own ``warm_ups`` (what its first request would import or build); open no connection.

    Returns whether it primed.
    """
    from session_scoring.container import get_container

    container = get_container()
    if not container.settings.snapstart:
        return False
    container.prime()
    for warm_up in warm_ups:
        warm_up()
    return True


def register_priming(*warm_ups: Callable[[], Any]) -> bool:
    """Register :func:`prime` (with ``warm_ups``) as a before-snapshot hook; False outside the Lambda runtime."""
    try:
        from snapshot_restore_py import register_before_snapshot  # type: ignore[import-not-found]
    except ImportError:
        return False
    register_before_snapshot(prime, *warm_ups)
    return True
