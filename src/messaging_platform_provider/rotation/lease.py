"""
At most one rotation of a target at a time: a lease that a crashed rotation cannot hold forever.

A rotation acquires its target's lease before it reads the target, renews it just before it writes, and releases it
when it is done. The owner is the rotation's run token (``CreateOnce.token``, the same for every try of one task
instance), so a retry of the same task instance gets its own lease back; any other rotation is refused
(``LeaseHeld``) until the lease is released or has expired.

- ``InMemoryLease``: in this process (threads), for ``InMemoryTarget``.
- ``FileLease``: an exclusive ``flock`` on a ``.lock`` file beside the target's file; the kernel releases it when the
  holding process ends (no expiry while it lives), for ``FileTarget``.
- ``AirflowConnectionLease``: connections ``<conn_id>.rotation-lease.<n>`` in Airflow's metadata database, written
  through the REST API, for ``AirflowConnectionTarget``. Only a create is atomic there (``POST`` answers 409 for an
  existing id; ``PATCH`` and ``DELETE`` are unconditional), so every acquisition, a renewal too, creates the next
  generation, and the highest generation is the lease.

Nothing here imports Airflow or ``requests``.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from messaging_platform_provider.rotation.airflow_api import AirflowRestApi


class LeaseHeld(Exception):
    """Another rotation holds the lease; ``holder`` is its run token, ``until`` when the lease expires (words)."""

    def __init__(self, holder: str, until: str) -> None:
        self.holder = holder
        self.until = until
        super().__init__(f"another rotation holds the lease (owner {holder}) until {until}")


@runtime_checkable
class RotationLease(Protocol):
    """What a rotation needs to keep other rotations of its target out."""

    def acquire(self, owner: str, seconds: float) -> None:
        """Hold the lease for ``seconds`` from now (renewing it if ``owner`` holds it); else raise ``LeaseHeld``."""
        ...

    def release(self, owner: str) -> None:
        """Give the lease up if ``owner`` holds it; otherwise do nothing."""
        ...


class InMemoryLease:
    """A lease in this process; ``clock`` (seconds, monotonic) decides when it has expired."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._owner: str | None = None
        self._until = 0.0

    def acquire(self, owner: str, seconds: float) -> None:
        with self._lock:
            now = self._clock()
            if self._owner not in (None, owner) and now < self._until:
                raise LeaseHeld(self._owner or "", f"{self._until - now:.0f} s from now")
            self._owner, self._until = owner, now + seconds

    def release(self, owner: str) -> None:
        with self._lock:
            if self._owner == owner:
                self._owner = None


# The lock files this process holds, by path: the owner and the open descriptor that carries the lock. Two opens
# of one file conflict under flock even in one process, so a second FileLease for the same owner finds it here.
_HELD: dict[str, tuple[str, int]] = {}
_HELD_LOCK = threading.Lock()


class FileLease:
    """
    An exclusive ``flock`` on ``path`` (created with mode 0600, never removed: removing a lock file races with its
    next user). The kernel releases it when the holding process ends; ``seconds`` is not used.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    def _key(self) -> str:
        return str(self.path.absolute())

    def acquire(self, owner: str, seconds: float) -> None:
        with _HELD_LOCK:
            held = _HELD.get(self._key())
            if held is not None:
                if held[0] == owner:
                    return
                raise LeaseHeld(held[0], "it is released or its process ends")
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 200, 0).decode(errors="replace").strip() or "another process"
                os.close(fd)
                raise LeaseHeld(holder, "it is released or its process ends") from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, owner.encode(), 0)
            _HELD[self._key()] = (owner, fd)

    def release(self, owner: str) -> None:
        with _HELD_LOCK:
            held = _HELD.get(self._key())
            if held is None or held[0] != owner:
                return
            del _HELD[self._key()]
            os.ftruncate(held[1], 0)
            fcntl.flock(held[1], fcntl.LOCK_UN)
            os.close(held[1])


LEASE_INFIX = ".rotation-lease."
LEASE_CONN_TYPE = "generic"
_CONN_ID = re.compile(r"^[\w.-]+$")  # what POST /api/v2/connections accepts (ConnectionBody), up to 200 characters
_MAX_CONN_ID = 200
_ROUNDS = 4  # acquisitions lost to another rotation's create before giving up


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class Generation:
    """One lease connection: its number, its owner, when it expires (None: unreadable) and whether it was released."""

    number: int
    owner: str
    expires_at: datetime | None
    released: bool

    def free(self, now: datetime) -> bool:
        return self.released or self.expires_at is None or self.expires_at <= now

    @property
    def until(self) -> str:
        return self.expires_at.isoformat(timespec="seconds") if self.expires_at else "(unreadable)"


def _generation(number: int, extra: Any) -> Generation:
    try:
        data = json.loads(extra) if isinstance(extra, str) else {}
    except ValueError:
        data = {}
    data = data if isinstance(data, dict) else {}
    try:
        expires: datetime | None = datetime.fromisoformat(str(data["expires_at"]))
    except (KeyError, ValueError):
        expires = None
    if expires is not None and expires.tzinfo is None:
        expires = expires.replace(tzinfo=timezone.utc)
    return Generation(number, str(data.get("owner") or ""), expires, data.get("released") is True)


class AirflowConnectionLease:
    """
    The lease of an Airflow connection, kept beside it in the metadata database through the REST API: connections
    ``<conn_id>.rotation-lease.<n>`` (type ``generic``) whose extra is ``{"owner", "expires_at", "released"}``. The
    highest ``n`` is the lease. To acquire, a rotation creates ``n + 1`` when generation ``n`` is its own, released
    or expired (or ``1`` when there is none); a 409 means another rotation created it first. After creating, it
    lists again: a higher generation means it decided on a stale view, and it gives its own up. Generations below
    ``n - 1`` are deleted. Expiry compares ``expires_at`` with this machine's clock: the clocks of the workers must
    agree to well within the lease time.
    """

    def __init__(self, api: AirflowRestApi, conn_id: str, *, now: Callable[[], datetime] = _utc_now) -> None:
        self.api = api
        self.conn_id = conn_id
        self.prefix = f"{conn_id}{LEASE_INFIX}"
        if not _CONN_ID.match(self.prefix) or len(self.prefix) > _MAX_CONN_ID - 6:
            raise ValueError(f"no lease connection can be named after {conn_id!r} (letters, digits, _ . - only)")
        self._now = now

    def lease_id(self, number: int) -> str:
        return f"{self.prefix}{number}"

    def generations(self) -> dict[int, Generation]:
        """Every lease connection of this target, by number (the list filters by substring: exact prefix here)."""
        found: dict[int, Generation] = {}
        offset = 0
        while True:
            params = {"connection_id_pattern": self.prefix, "limit": 100, "offset": offset}
            page = self.api.get("/api/v2/connections", params=params)
            items = page.get("connections") or []
            for item in items:
                number = str(item.get("connection_id", "")).removeprefix(self.prefix)
                if str(item.get("connection_id", "")).startswith(self.prefix) and number.isdigit():
                    found[int(number)] = _generation(int(number), item.get("extra"))
            offset += len(items)
            if not items or offset >= int(page.get("total_entries") or 0):
                return found

    def _fields(self, owner: str, expires_at: str, released: bool) -> dict[str, Any]:
        state = "released" if released else f"held until {expires_at}"
        return {
            "description": f"Lease of the API key rotation of {self.conn_id}: {state}. To free it by hand, delete "
            f"the {self.prefix}* connections.",
            "extra": json.dumps({"owner": owner, "expires_at": expires_at, "released": released}),
        }

    def acquire(self, owner: str, seconds: float) -> None:
        from messaging_platform_provider.rotation.airflow_api import AirflowApiError

        last: Exception | None = None
        for _ in range(_ROUNDS):
            found = self.generations()
            top = max(found, default=0)
            if top and found[top].owner != owner and not found[top].free(self._now()):
                raise LeaseHeld(found[top].owner, found[top].until)
            mine = top + 1  # a renewal too: only a create cannot race with another rotation's takeover
            expires_at = (self._now() + timedelta(seconds=seconds)).isoformat(timespec="seconds")
            body = {"connection_id": self.lease_id(mine), "conn_type": LEASE_CONN_TYPE}
            try:
                self.api.create_connection({**body, **self._fields(owner, expires_at, False)})
            except AirflowApiError as exc:  # 409: another rotation made it first; else unknown: read and decide
                last = exc
                continue
            after = self.generations()
            highest = max(after, default=0)
            if highest != mine or after[mine].owner != owner:  # decided on a stale view: give it up
                with suppress(AirflowApiError):  # below the lease anyway
                    self._mark_released(mine, owner, expires_at)
                winner = after.get(highest)
                raise LeaseHeld(winner.owner if winner else "unknown", winner.until if winner else "unknown")
            for number in after:
                if number < mine - 1:
                    with suppress(AirflowApiError):  # collecting old generations is housekeeping
                        self.api.delete_connection(self.lease_id(number), missing_ok=True)
            return
        assert last is not None
        raise last

    def _mark_released(self, number: int, owner: str, expires_at: str) -> None:
        from messaging_platform_provider.rotation.airflow_api import AirflowApiError

        try:
            self.api.update_connection(
                self.lease_id(number), self._fields(owner, expires_at, True), conn_type=LEASE_CONN_TYPE
            )
        except AirflowApiError as exc:
            if exc.status != 404:  # deleted meanwhile: nothing left to release
                raise

    def release(self, owner: str) -> None:
        for number, generation in self.generations().items():
            if generation.owner == owner and not generation.released:
                self._mark_released(number, owner, generation.until)
