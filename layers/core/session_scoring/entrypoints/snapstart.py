"""Lambda SnapStart priming: build everything a request needs, except connections, before the snapshot is taken.

A handler module calls :func:`register_priming` at import when ``SCORING_SNAPSTART`` is on. Outside the Lambda
runtime (``snapshot_restore_py`` absent) it does nothing. Nothing connects before the snapshot: the engine's pool is
empty in the snapshot, so a restored function opens fresh connections instead of reusing stale sockets.
"""

from __future__ import annotations


def prime() -> None:
    """Import and build the container's services, engine and queue client; open no connection."""
    from session_scoring.container import get_container

    get_container().prime()


def register_priming() -> bool:
    """Register :func:`prime` as a before-snapshot hook; False when not running under the Lambda runtime."""
    try:
        from snapshot_restore_py import register_before_snapshot  # type: ignore[import-not-found]
    except ImportError:
        return False
    register_before_snapshot(prime)
    return True
