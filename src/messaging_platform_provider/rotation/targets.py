"""
Where a rotated credential lives. A target is anything with ``read()`` and ``write(credential)``:

- ``read()`` returns the credential that consumers (workers, services) see *now*, or ``None`` when there is none.
  The rotation calls it to learn the old key, to check nobody else changed the target, and to read back what it
  stored, so it must read the same way consumers do (not a cache of its own).
- ``write(credential)`` stores key and secret. It may raise; the rotation then reads the target to learn whether
  the write landed.
- optionally ``lease()``: a ``RotationLease`` (``lease.py``) that keeps a second rotation of the target out, or
  ``None``; a rotation without a lease warns that rotations of the target must not overlap.
- optionally ``shadowed_by(current)``: why consumers would not see what ``write`` stores (``current`` is what
  ``read`` returned), or ``None``; the rotation stops before creating a key when there is a reason.
- any of them may raise ``TargetNotConfigured`` when the target cannot be used as configured (a connection it needs
  is not defined): the rotation then stops without the task's retries, which cannot change that.

``AirflowConnectionTarget`` (module ``airflow_target``) updates an Airflow connection through Airflow's REST API.
``CallableTarget`` adapts two functions, for secrets backends such as Vault or AWS Secrets Manager. ``FileTarget`` and
``InMemoryTarget`` are for local use and tests. Nothing here imports Airflow or ``requests``.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from messaging_platform_provider.rotation.credentials import Credential, as_credential
from messaging_platform_provider.rotation.lease import FileLease, InMemoryLease, RotationLease


class TargetNotConfigured(Exception):
    """The target cannot be used as configured (a connection it needs is not defined ...): a retry cannot help."""


@runtime_checkable
class CredentialTarget(Protocol):
    """The small interface a rotation needs from the place the credential is kept."""

    @property
    def name(self) -> str:
        """A short description for logs and error messages (never a secret)."""
        ...

    def read(self) -> Credential | None: ...

    def write(self, credential: Credential) -> None: ...


class CallableTarget:
    """
    A target made of two functions, for any secrets backend.

    :param read: returns what consumers see now: a ``Credential``, a ``(key, secret)`` pair, a mapping with
        ``key``/``secret`` (or ``login``/``password``), or ``None``.
    :param write: stores a ``Credential`` (its ``.key`` and ``.secret``).
    :param name: how the target is named in logs and errors.
    :param lease: keeps a second rotation of this target out (``lease.py``); without, rotations of the target must
        not overlap.

    For example, with ``hvac`` and a KV v2 secret holding ``key`` and ``secret``::

        CallableTarget(
            read=lambda: client.secrets.kv.v2.read_secret_version(path="messaging")["data"]["data"],
            write=lambda c: client.secrets.kv.v2.create_or_update_secret(
                path="messaging", secret={"key": c.key, "secret": c.secret}
            ),
            name="vault kv messaging",
        )
    """

    def __init__(
        self,
        read: Callable[[], Any],
        write: Callable[[Credential], Any],
        *,
        name: str = "callable",
        lease: RotationLease | None = None,
    ) -> None:
        self._read = read
        self._write = write
        self._name = name
        self._lease = lease

    def lease(self) -> RotationLease | None:
        return self._lease

    @property
    def name(self) -> str:
        return self._name

    def read(self) -> Credential | None:
        return as_credential(self._read())

    def write(self, credential: Credential) -> None:
        self._write(credential)


class InMemoryTarget:
    """A credential held in memory (tests, or a process that hands it to its own clients); its lease is too."""

    def __init__(self, credential: Credential | None = None, *, name: str = "memory") -> None:
        self._credential = credential
        self._name = name
        self._lock = threading.Lock()
        self._lease = InMemoryLease()
        self.writes = 0

    def lease(self) -> RotationLease:
        return self._lease

    @property
    def name(self) -> str:
        return self._name

    def read(self) -> Credential | None:
        with self._lock:
            return self._credential

    def write(self, credential: Credential) -> None:
        with self._lock:
            self._credential = credential
            self.writes += 1


class FileTarget:
    """
    A JSON file ``{"key": ..., "secret": ...}``, replaced atomically and readable by its owner only (mode 0600).
    Its lease is an exclusive lock on ``<file>.lock`` beside it, which the kernel releases if the process dies.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)

    @property
    def name(self) -> str:
        return f"file {self.path}"

    def lease(self) -> RotationLease:
        return FileLease(self.path.with_name(self.path.name + ".lock"))

    def read(self) -> Credential | None:
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return None
        return as_credential(data)

    def write(self, credential: Credential) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w") as out:  # mkstemp creates the file with mode 0600
                json.dump({"key": credential.key, "secret": credential.secret}, out)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
