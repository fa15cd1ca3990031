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
from collections.abc import Mapping

from messaging_platform_provider.rotation.key_steps import KeySteps
from messaging_platform_provider.rotation.lease import LeaseHeld
from messaging_platform_provider.rotation.outcome import (
    ACQUIRE_LEASE,
    CHECK_TARGET,
    FIND_OLD_KEY,
    READ_TARGET,
    RotationError,
    RotationResult,
)
from messaging_platform_provider.rotation.target_steps import TargetSteps
from messaging_platform_provider.rotation.targets import TargetNotConfigured

log = logging.getLogger(__name__)


class ApiKeyRotation(KeySteps, TargetSteps):
    """
    One rotation of the API key a target holds.

    :param manager: the hook (or client) used to list, create, read and revoke keys; its base URL, account,
        timeouts and retry policy are also used to verify credentials. When its own key is the key being retired
        (a connection rotating itself), the old key is revoked with the new credential.
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

    def run(self) -> RotationResult:
        unchanged = "what it held before (nothing was changed)"
        try:
            self._choose_lease()
            self._take_lease()
        except LeaseHeld as exc:
            raise RotationError(ACQUIRE_LEASE, str(exc), target_holds=unchanged, retry_cannot_help=True) from None
        except Exception as exc:
            problem = f"taking the lease of {self.target.name} failed: {self._text(exc)}"
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
        current = self._read_or_fail(READ_TARGET, "what it held before (nothing was changed)")
        self._check_not_shadowed(current)
        if self.state.get("old_key_id") is None:
            if current is None:
                raise RotationError(READ_TARGET, f"{self.target.name} holds no credential", target_holds="nothing")
            old = self._find_old_key(current)
            self._save(old_key_id=int(old["Id"]), old_key=str(old["Key"]), phase="old_key_recorded")
            log.info("Rotating the API key of %s: old key id %s recorded.", self.target.name, old["Id"])
            self._checkpoint("old_key_recorded")
        else:
            log.info("Resuming the rotation of %s: old key id %s.", self.target.name, self.state["old_key_id"])
        self._old_id = int(self.state["old_key_id"])
        self._old_key = str(self.state["old_key"])
        if current is not None and current.key == self._old_key:
            self._old_credential = current
        elif current is None or not self._is_ours(self._key_info(current)):
            # A retry finds the target on a key neither old nor ours: another rotation owns it now.
            note = self._discard_marked_keys()
            raise RotationError(
                CHECK_TARGET,
                "another rotation changed the target since this one began" + note,
                target_holds="nothing" if current is None else "another key (not this rotation's)",
                old_key_id=self._old_id,
                retry_cannot_help=True,
            )

        new = self._create_new_key()
        self._save(new_key_id=new.id)
        log.info("New key id %s (%s) ready.", new.id, new.label)
        self._checkpoint("new_key_created")
        if new.id == self._old_id:
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
            if current is None or current.key != self._old_key:
                changed = "another rotation changed the target since this one began"
                raise self._abort(CHECK_TARGET, changed, new, retry_cannot_help=True)
            self._verify_new_key(new)
            self._checkpoint("new_key_verified")
            self._store(new)
            self._save(phase="stored")
            self._checkpoint("stored")
        self._check_stored(new)
        self._checkpoint("stored_verified")
        revoked = False
        if self.revoke_old:
            self._revoke_old_key(new)
            revoked = True
            self._save(phase="old_key_revoked")
            self._checkpoint("old_key_revoked")
        self._confirm_target(new, revoked)
        self._save(phase="done")
        log.info(
            "Rotation of %s done: new key id %s in place%s.",
            self.target.name,
            new.id,
            f", old key id {self._old_id} revoked" if revoked else f", old key id {self._old_id} left valid",
        )
        return RotationResult(
            target=self.target.name,
            old_key_id=self._old_id,
            new_key_id=new.id,
            new_key_label=new.label,
            old_key_revoked=revoked,
            resumed=resumed,
            notes=tuple(self.notes),
        )


__all__ = ["ApiKeyRotation"]
