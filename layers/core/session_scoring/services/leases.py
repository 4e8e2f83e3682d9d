"""The leases of the claims a scorer process is working on: renewed while it works, given back when it stops.

A claim's lease is short (``SCORING_LEASE_SECONDS``) so that a dead scorer holds its attempt only that long. A live
scorer keeps its claims with a heartbeat thread that renews every held lease in one statement conditioned on the claim
token; a claim the statement does not return is lost, and its job stores nothing. A failed renewal is retried at the
next beat. On a clean shutdown :meth:`LeaseKeeper.release_all` gives every held claim back. See docs/resilience.md.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Protocol

from session_scoring.errors import DatabaseUnavailableError
from session_scoring.log import logger

RENEWALS_PER_LEASE = 3
"""A lease is renewed this many times per lease length: a renewal may fail (the database away for one or two beats)
and the claim is still held."""


@dataclass
class Hold:
    """One claim this process is working on. ``lost`` is set (with ``reason``) once the claim is no longer ours:
    the job must not write after that."""

    score_id: uuid.UUID
    token: uuid.UUID
    reason: str = ""
    released: bool = False
    """The claim was given back by this process (a clean shutdown): the attempt is pending again."""
    _lost: threading.Event = field(default_factory=threading.Event)

    @property
    def lost(self) -> bool:
        return self._lost.is_set()

    def lose(self, reason: str, *, released: bool = False) -> None:
        if not self.lost:
            self.reason = reason
            self.released = released
            self._lost.set()


class LeaseStore(Protocol):
    """The claims' leases (``repositories.scores``)."""

    def release(self, score_id: uuid.UUID, claim_token: uuid.UUID, message: str) -> bool: ...
    def renew_leases(self, claims: Sequence[tuple[uuid.UUID, uuid.UUID]], lease_seconds: int) -> set[uuid.UUID]: ...


class LeaseKeeper:
    """Renews the leases of the claims held by this process on one daemon thread, and releases them on shutdown."""

    def __init__(self, repository: LeaseStore, lease_seconds: int, interval_seconds: float | None = None) -> None:
        """``interval_seconds``: the heartbeat's period, a third of the lease unless given (a test that drives the
        beats itself with :meth:`renew` sets it out of reach)."""
        self._repository = repository
        self._lease_seconds = lease_seconds
        self._interval_seconds = interval_seconds or lease_seconds / RENEWALS_PER_LEASE
        self._held: dict[uuid.UUID, Hold] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @contextmanager
    def holding(self, score_id: uuid.UUID, token: uuid.UUID) -> Iterator[Hold]:
        """Keep the claim's lease renewed while the block runs."""
        hold = Hold(score_id, token)
        with self._lock:
            self._held[token] = hold
            if self._thread is None:
                # A daemon, so it never holds up the process's exit; in Lambda it is frozen with the execution
                # environment between invocations.
                self._thread = threading.Thread(target=self._beat, name="lease-heartbeat", daemon=True)
                self._thread.start()
        try:
            yield hold
        finally:
            with self._lock:
                self._held.pop(token, None)

    def held(self) -> list[Hold]:
        with self._lock:
            return list(self._held.values())

    def renew(self) -> int:
        """One heartbeat: push every held lease ``lease_seconds`` from now; mark the claims no longer held as lost.
        Returns how many were renewed. Never raises: a failure is logged and the next beat tries again."""
        holds = self.held()
        if not holds:
            return 0
        try:
            kept = self._repository.renew_leases([(hold.score_id, hold.token) for hold in holds], self._lease_seconds)
        except DatabaseUnavailableError as exc:
            logger.warning(
                "could not renew the leases; the next beat tries again",
                extra={"claims": len(holds), "error": exc.message},
            )
            return 0
        except Exception:  # noqa: BLE001 - the heartbeat must outlive any failure; the lease decides the rest
            logger.exception("could not renew the leases; the next beat tries again", extra={"claims": len(holds)})
            return 0
        for hold in holds:
            if hold.token not in kept:
                hold.lose("the claim was lost: another scorer took the attempt over after its lease expired")
                logger.warning(
                    "claim lost; this scorer will not store its verdict", extra={"score_id": str(hold.score_id)}
                )
        return len(kept)

    def release_all(self, reason: str) -> int:
        """Give every held claim back (the attempt returns to ``pending`` with ``reason``): a clean shutdown. Each
        job is marked lost first, so it stores nothing after. Returns how many were released; a claim that cannot be
        released (the database away) keeps its lease until it runs out."""
        released = 0
        for hold in self.held():
            hold.lose(reason, released=True)
            try:
                if self._repository.release(hold.score_id, hold.token, reason):
                    released += 1
            except DatabaseUnavailableError as exc:
                logger.warning(
                    "could not release the claim; it expires with its lease",
                    extra={"score_id": str(hold.score_id), "error": exc.message},
                )
        return released

    def _beat(self) -> None:
        """Renew every interval while anything is held; the thread ends when nothing is (the next claim
        starts another)."""
        while True:
            time.sleep(self._interval_seconds)
            with self._lock:
                if not self._held:
                    self._thread = None
                    return
            self.renew()
