"""
API key rotation that keeps a working credential in the target at every instant (``docs/rotation.md``).

On this platform a key's secret cannot be changed in place without breaking every holder at once (``PUT`` makes a
new secret and the old one fails immediately), so a rotation *adds* a key and retires the old one:

0. take the target's lease (``lease.py``): another rotation of the target holding it stops this one, which changes
   nothing; a retry of the same task instance gets its own lease back;
1. read the target (a shadowed target, whose writes consumers would not see, stops here) and record the old key's
   id in the task state store (a retry then knows which key was the old one even when the target already holds the
   new one);
2. create the new key retry-safely (``CreateOnce``: run marker in ``Label``; a lost answer is found again and its
   secret re-read with the single-key GET);
3. verify the new credential with a real platform call, before anything is stored;
4. renew the lease (a rotation that lost it stops here) and check the target still holds the old key (else another
   rotation got there first: stop, revoke only our unused key), then write the new credential;
5. read back what consumers see and verify *that* with a real call; on any doubt, roll back to the old credential;
6. only then revoke the old key (404: already revoked), after checking once more the target holds the new one;
7. read the target a last time: it must hold this rotation's key; the keys this run made that it does not hold are
   revoked. The lease is released at the end, and after any failure a retry cannot help; after another failure it
   is kept for the retry of the task (the same owner) and expires if none comes.

A key is revoked only after reading the target and seeing it does not hold that key. Any failure leaves both keys
valid or the target on a verified key; the error says which, and whether a retry can help (``retry_cannot_help``:
another rotation won, the platform answered a malformed key, the target is shadowed or not configured). No secret is
stored, logged or put in error text.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

from messaging_platform_provider.client.api import ApiMethods
from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.client.errors import MessagingPlatformApiError, scrub
from messaging_platform_provider.client.once import CreateOnce, MemoryStateStore, StateStore
from messaging_platform_provider.rotation import DEFAULT_LEASE_SECONDS
from messaging_platform_provider.rotation.credentials import Credential
from messaging_platform_provider.rotation.lease import LeaseHeld, RotationLease
from messaging_platform_provider.rotation.platform_keys import NewKey, PlatformKeys, verify_by_listing_campaigns
from messaging_platform_provider.rotation.results import (
    ACQUIRE_LEASE,
    CHECK_TARGET,
    FIND_OLD_KEY,
    READ_TARGET,
    RotationError,
    RotationResult,
    Unknown,
)
from messaging_platform_provider.rotation.target_update import Recovery, TargetUpdate
from messaging_platform_provider.rotation.targets import CredentialTarget, TargetNotConfigured

log = logging.getLogger(__name__)

STATE_KEY_PREFIX = "messaging_platform:rotate_api_key:"


class ApiKeyRotation:
    """
    One rotation of the API key a target holds: ``run`` goes through the steps listed at the top of this module. The
    rotation keeps what it knows (its saved state, the old key, the secrets it has seen, its notes) and its lease; the
    steps on the platform's keys are its attribute ``platform_keys`` (``PlatformKeys``, ``platform_keys.py``), the
    steps on the target ``target_update`` (``TargetUpdate``), and what a failed step leaves in the target
    ``recovery`` (``Recovery``; both in ``target_update.py``).

    :param hook: the hook (or a ``MessagingPlatformClient``) used to list, create, read and revoke keys; its base
        URL, account, timeouts and retry policy are also used to verify credentials. When its own key is the key being
        retired (a connection rotating itself), the old key is revoked with the new credential.
    :param target: where the credential lives (``CredentialTarget``).
    :param once: the run-scoped token and task state store of the task instance (``CreateOnce.for_task``); every
        try of one task instance must pass the same token and store.
    :param key_label: ``Label`` of the new key (the run marker is appended).
    :param key_type: Common or Temporary (then ``valid_to`` is required).
    :param revoke_old: revoke the old key at the end (default). Without, it stays valid and its id is returned.
    :param verify: a real platform call made with a candidate credential; raises if it does not work.
    :param on_step: called with each name of ``CHECKPOINTS`` as the sequence passes it.
    :param lease: keeps other rotations of the target out (``RotationLease``); by default the target's own
        (``target.lease()``), ``None`` for none (a warning says rotations of the target must not overlap).
    :param lease_seconds: how long the lease holds without a renewal: longer than a slow rotation and than the
        delay before a retry of the task.
    """

    def __init__(
        self,
        hook: ApiMethods,
        target: CredentialTarget,
        *,
        once: CreateOnce,
        account_id: int | None = None,
        key_label: str = "Rotated by Airflow",
        key_type: int | str = "Common",
        valid_to: Any = None,
        revoke_old: bool = True,
        verify: Callable[[MessagingPlatformClient], Any] = verify_by_listing_campaigns,
        on_step: Callable[[str], None] | None = None,
        lease: RotationLease | None | Literal["target"] = "target",
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
    ) -> None:
        self.target = target
        self.revoke_old = revoke_old
        self._on_step = on_step
        self._lease_choice = lease
        self.lease: RotationLease | None = None
        self.lease_seconds = lease_seconds
        store: StateStore
        if once.store is None:
            log.warning(
                "No task state store: a retry after the new key was stored cannot tell which key was the old one "
                "and will stop before revoking anything."
            )
            store = MemoryStateStore()
            once = CreateOnce(once.token, store)
        else:
            store = once.store
        self.once = once
        self.store = store
        self.state_key = STATE_KEY_PREFIX + once.token
        #: What is saved in the task state store for a retry: old_key_id, old_key, new_key_id, phase.
        self.state: dict[str, Any] = {}
        self.notes: list[str] = []
        #: The key the target held when the rotation began, and its credential once seen.
        self.old_key_id: int | None = None
        self.old_key: str | None = None
        self.old_credential: Credential | None = None
        #: Every secret this rotation has seen: replaced in error text.
        self.secrets: list[str] = []
        self.platform_keys = PlatformKeys(
            self,
            hook,
            account_id=account_id,
            key_label=key_label,
            key_type=key_type,
            valid_to=valid_to,
            verify=verify,
        )
        self.recovery = Recovery(self, self.platform_keys)
        self.target_update = TargetUpdate(self, self.platform_keys, self.recovery)

    def run(self) -> RotationResult:
        unchanged = "what it held before (nothing was changed)"
        try:
            self._choose_lease()
            self.take_lease()
        except LeaseHeld as exc:
            raise RotationError(ACQUIRE_LEASE, str(exc), target_holds=unchanged, retry_cannot_help=True) from None
        except Exception as exc:
            problem = f"taking the lease of {self.target.name} failed: {self.error_text(exc)}"
            cannot = isinstance(exc, TargetNotConfigured)
            raise RotationError(ACQUIRE_LEASE, problem, target_holds=unchanged, retry_cannot_help=cannot) from None
        try:
            result = self._rotate()
        except RotationError as exc:
            if exc.retry_cannot_help:
                self._release_lease()
            raise
        self._release_lease()
        return result

    def _rotate(self) -> RotationResult:
        loaded = self.store.get(self.state_key)
        self.state = dict(loaded) if isinstance(loaded, Mapping) else {}
        current = self._read_target_or_fail(READ_TARGET, "what it held before (nothing was changed)")
        self.target_update.check_not_shadowed(current)
        if self.state.get("old_key_id") is None:
            if current is None:
                raise RotationError(READ_TARGET, f"{self.target.name} holds no credential", target_holds="nothing")
            old = self.platform_keys.find_old_key(current)
            self._save(old_key_id=int(old["Id"]), old_key=str(old["Key"]), phase="old_key_recorded")
            log.info("Rotating the API key of %s: old key id %s recorded.", self.target.name, old["Id"])
            self._checkpoint("old_key_recorded")
        else:
            log.info("Resuming the rotation of %s: old key id %s.", self.target.name, self.state["old_key_id"])
        self.old_key_id = int(self.state["old_key_id"])
        self.old_key = str(self.state["old_key"])
        if current is not None and current.key == self.old_key:
            self.old_credential = current
        elif current is None or not self.platform_keys.is_ours(self.platform_keys.key_info(current)):
            # A retry finds the target on a key neither old nor ours: another rotation owns it now.
            note = self.platform_keys.discard_marked_keys()
            raise RotationError(
                CHECK_TARGET,
                "another rotation changed the target since this one began" + note,
                target_holds="nothing" if current is None else "another key (not this rotation's)",
                old_key_id=self.old_key_id,
                retry_cannot_help=True,
            )

        new = self.platform_keys.create_new_key()
        self._save(new_key_id=new.id)
        log.info("New key id %s (%s) ready.", new.id, new.label)
        self._checkpoint("new_key_created")
        if new.id == self.old_key_id:
            raise RotationError(
                FIND_OLD_KEY,
                f"the target already holds this rotation's key {new.id} and the old key's id was not recorded "
                "(no task state store); revoke the previous key by hand",
                target_holds=f"the new key {new.id}",
                new_key_id=new.id,
            )

        resumed = current is not None and current.key == new.key
        if resumed:
            self.notes.append("an earlier try had stored the new key; resumed at the read-back")
            log.info("%s already holds the new key %s: resuming at the read-back.", self.target.name, new.id)
        else:
            if current is None or current.key != self.old_key:
                changed = "another rotation changed the target since this one began"
                raise self.recovery.abort(CHECK_TARGET, changed, new, retry_cannot_help=True)
            self.target_update.verify_new_key(new)
            self._checkpoint("new_key_verified")
            self.target_update.store(new)
            self._save(phase="stored")
            self._checkpoint("stored")
        self.target_update.check_stored(new)
        self._checkpoint("stored_verified")
        revoked = False
        if self.revoke_old:
            self.platform_keys.revoke_old_key(new)
            revoked = True
            self._save(phase="old_key_revoked")
            self._checkpoint("old_key_revoked")
        self.target_update.confirm(new, revoked)
        self._save(phase="done")
        log.info(
            "Rotation of %s done: new key id %s in place%s.",
            self.target.name,
            new.id,
            f", old key id {self.old_key_id} revoked" if revoked else f", old key id {self.old_key_id} left valid",
        )
        return RotationResult(
            target=self.target.name,
            old_key_id=self.old_key_id,
            new_key_id=new.id,
            new_key_label=new.label,
            old_key_revoked=revoked,
            resumed=resumed,
            notes=tuple(self.notes),
        )

    def _choose_lease(self) -> None:
        """The lease given, or the target's (``lease()``); none: warn, since nothing then serialises rotations."""
        choice = self._lease_choice
        if isinstance(choice, str):  # "target"
            offered = getattr(self.target, "lease", None)
            self.lease = offered() if callable(offered) else None
        else:
            self.lease = choice
        if self.lease is None:
            log.warning("%s has no lease: rotations of it must not overlap.", self.target.name)

    def take_lease(self) -> None:
        """
        Acquire or renew this rotation's lease, with at least half its time left when this returns: raises
        ``LeaseHeld`` when another rotation holds it, ``TimeoutError`` when taking it used half its time.
        """
        if self.lease is None:
            return
        started = time.monotonic()
        self.lease.acquire(self.once.token, self.lease_seconds)
        took = time.monotonic() - started
        if took > self.lease_seconds / 2:
            raise TimeoutError(f"taking the lease took {took:.0f} s, more than half of its {self.lease_seconds:.0f} s")

    def _release_lease(self) -> None:
        if self.lease is None:
            return
        try:
            self.lease.release(self.once.token)
        except Exception as exc:  # it expires on its own
            log.warning(
                "Releasing the lease of %s failed (%s); it expires by itself.", self.target.name, self.error_text(exc)
            )

    def _checkpoint(self, name: str) -> None:
        if self._on_step is not None:
            self._on_step(name)

    def _save(self, **fields: Any) -> None:
        self.state.update(fields)
        self.store.set(self.state_key, dict(self.state))

    def read_target(self) -> Credential | None | Unknown:
        """What the target holds (its secret is then known to this rotation), or ``Unknown`` when the read fails."""
        try:
            found = self.target.read()
        except Exception as exc:
            return Unknown(self.error_text(exc), misconfigured=isinstance(exc, TargetNotConfigured))
        if found is not None and found.secret not in self.secrets:
            self.secrets.append(found.secret)
        return found

    def _read_target_or_fail(self, step: str, holds: str) -> Credential | None:
        found = self.read_target()
        if isinstance(found, Unknown):
            problem = f"reading {self.target.name} failed: {found.reason}"
            raise RotationError(step, problem, target_holds=holds, retry_cannot_help=found.misconfigured)
        return found

    def unchanged(self) -> str:
        """What the target holds while nothing was written yet, in words."""
        return f"the old key {self.old_key_id}, unchanged" if self.old_key_id is not None else "what it held before"

    def describe(self, now: Credential | None | Unknown, new: NewKey) -> str:
        """What the target holds (``now``, read just before), in words for ``RotationError.target_holds``."""
        if isinstance(now, Unknown):
            return f"unknown ({now.reason}); the old key {self.old_key_id} and the new key {new.id} are both valid"
        if now is None:
            return "nothing"
        if now.key == self.old_key:
            return f"the old key {self.old_key_id}"
        if now.key == new.key:
            return f"the new key {new.id}"
        return "another key (not this rotation's)"

    def error_text(self, exc: BaseException) -> str:
        """An exception as text for an error message, with every secret this rotation knows replaced."""
        text = str(exc) if isinstance(exc, MessagingPlatformApiError) else f"{type(exc).__name__}: {exc}"
        return scrub(text, self.secrets)


__all__ = ["ApiKeyRotation"]
