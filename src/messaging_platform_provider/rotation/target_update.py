"""
A rotation's work on its target. ``TargetUpdate``: check consumers read what is written (not shadowed), verify the
new credential with a real call before anything is stored, write it after renewing the lease and checking the
target still holds the old key, read back what consumers see and verify that, and at the very end confirm the
target holds the new key. ``Recovery``: what a failed step leaves in the target (the new key revoked when the target
does not hold it, or the old credential put back when the stored one is in doubt). Each ``Recovery`` method returns
the ``RotationError`` to raise.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from messaging_platform_provider.rotation.credentials import Credential
from messaging_platform_provider.rotation.lease import LeaseHeld
from messaging_platform_provider.rotation.platform_keys import NewKey, PlatformKeys
from messaging_platform_provider.rotation.results import (
    CHECK_TARGET,
    CONFIRM_TARGET,
    READ_BACK,
    READ_TARGET,
    ROLL_BACK,
    STORE,
    VERIFY_NEW_KEY,
    VERIFY_STORED,
    RotationError,
    Unknown,
)
from messaging_platform_provider.rotation.targets import TargetNotConfigured

if TYPE_CHECKING:
    from messaging_platform_provider.rotation.rotate import ApiKeyRotation

log = logging.getLogger(__name__)


class TargetUpdate:
    """
    Verifying, storing and reading back the new credential in ``rotation``'s target; platform calls go through
    ``platform_keys``, failures through ``recovery``.
    """

    def __init__(self, rotation: ApiKeyRotation, platform_keys: PlatformKeys, recovery: Recovery) -> None:
        self.rotation = rotation
        self.platform_keys = platform_keys
        self.recovery = recovery

    def check_not_shadowed(self, current: Credential | None) -> None:
        """Stop before any key is made when consumers would not see a write (the target's ``shadowed_by``)."""
        target = self.rotation.target
        check = getattr(target, "shadowed_by", None)
        if not callable(check):
            return
        try:
            reason = check(current)
        except Exception as exc:
            raise RotationError(
                READ_TARGET,
                f"checking that consumers read what {target.name} stores failed: {self.rotation.error_text(exc)}",
                target_holds="what it held before (nothing was changed)",
                retry_cannot_help=isinstance(exc, TargetNotConfigured),
            ) from None
        if reason:
            raise RotationError(
                READ_TARGET,
                f"{target.name} is shadowed: {reason}, so consumers would not see a new key; none was made",
                target_holds="what it held before (nothing was changed)",
                retry_cannot_help=True,
            )

    def verify_new_key(self, new: NewKey) -> None:
        try:
            self.platform_keys.verify(new.credential)
        except Exception as exc:
            problem = f"the new key {new.id} failed a platform call: {self.rotation.error_text(exc)}"
            raise self.recovery.abort(VERIFY_NEW_KEY, problem, new) from None

    def store(self, new: NewKey) -> None:
        """Renew the lease, check the target still holds the old key, then write the new credential."""
        rotation = self.rotation
        try:
            rotation.take_lease()
        except LeaseHeld as exc:
            problem = f"this rotation's lease expired and was taken over: {exc}; it stopped before writing"
            raise self.recovery.abort(CHECK_TARGET, problem, new, retry_cannot_help=True) from None
        except Exception as exc:
            problem = f"renewing the lease failed before writing: {rotation.error_text(exc)}"
            raise self.recovery.abort(CHECK_TARGET, problem, new) from None
        now = rotation.read_target()
        if isinstance(now, Unknown):
            problem = f"reading {rotation.target.name} before writing failed: {now.reason}"
            raise self.recovery.abort(CHECK_TARGET, problem, new)
        if now is None or now.key != rotation.old_key:
            changed = "another rotation changed the target since this one began"
            raise self.recovery.abort(CHECK_TARGET, changed, new, retry_cannot_help=True)
        try:
            rotation.target.write(new.credential)
        except Exception as exc:
            problem = f"writing to {rotation.target.name} failed: {rotation.error_text(exc)}"
            seen = rotation.read_target()
            if isinstance(seen, Unknown):
                raise RotationError(
                    STORE,
                    f"{problem}; reading it back failed too ({seen.reason}). No key was revoked: a retry of this "
                    "task resumes",
                    target_holds=f"the old key {rotation.old_key_id} or the new key {new.id}; both are valid",
                    old_key_id=rotation.old_key_id,
                    new_key_id=new.id,
                ) from None
            if seen == new.credential:
                log.warning("%s; yet the target holds the new credential: the write landed.", problem)
                rotation.notes.append("the store reported an error but had landed")
                return
            if seen is not None and seen == rotation.old_credential:
                raise self.recovery.abort(STORE, problem, new) from None
            problem = f"{problem}, and the target now holds something else"
            raise self.recovery.roll_back(STORE, problem, new, seen) from None
        log.info("New key id %s written to %s.", new.id, rotation.target.name)

    def check_stored(self, new: NewKey) -> None:
        """Read back what consumers see and verify it with a real call; any doubt rolls back to the old key."""
        rotation = self.rotation
        seen = rotation.read_target()
        if isinstance(seen, Unknown):
            raise RotationError(
                READ_BACK,
                f"reading {rotation.target.name} back failed: {seen.reason}. No key was revoked: a retry of this "
                "task resumes",
                target_holds=f"the new key {new.id} (written and verified before) or the old key; both are valid",
                old_key_id=rotation.old_key_id,
                new_key_id=new.id,
            )
        problem = ""
        shadowed = seen is not None and seen.key == rotation.old_key
        if seen is None:
            problem = "it reads back empty"
        elif shadowed:
            problem = (
                "consumers still see the old key: something shadows what was written "
                "(an AIRFLOW_CONN_ variable, a secrets backend or a cache?)"
            )
        elif seen.key != new.key:
            problem = "consumers see another key: another rotation wrote meanwhile"
        elif seen.secret != new.credential.secret:
            problem = "consumers see the new key with another secret"
        else:
            try:
                self.platform_keys.verify(seen)
            except Exception as exc:
                problem = f"the stored credential failed a platform call: {rotation.error_text(exc)}"
        if problem:
            raise self.recovery.roll_back(VERIFY_STORED, problem, new, seen, retry_cannot_help=shadowed)
        log.info("%s reads back the new key id %s, and it works.", rotation.target.name, new.id)

    def confirm(self, new: NewKey, revoked: bool) -> None:
        """The last read: the target holds this rotation's key; else revoke the keys this run made that it does not."""
        rotation = self.rotation
        now = rotation.read_target()
        if isinstance(now, Unknown):
            raise RotationError(
                CONFIRM_TARGET,
                f"reading {rotation.target.name} at the end failed: {now.reason}. A retry of this task confirms it",
                target_holds=f"the new key {new.id} (read back and verified before)",
                old_key_id=rotation.old_key_id,
                new_key_id=new.id,
            )
        if now is not None and now.key == new.key:
            return
        holds = rotation.describe(now, new)
        note = self.platform_keys.discard_marked_keys()
        old_id = rotation.old_key_id
        old = f"the old key {old_id} was revoked" if revoked else f"the old key {old_id} is valid"
        raise RotationError(
            CONFIRM_TARGET,
            f"the target changed at the end (someone wrote it after this rotation's checks); {old}{note}",
            target_holds=holds,
            old_key_id=old_id,
            new_key_id=new.id,
            retry_cannot_help=True,
        )


class Recovery:
    """What a failed step of ``rotation`` leaves in its target; the new key is revoked through ``platform_keys``."""

    def __init__(self, rotation: ApiKeyRotation, platform_keys: PlatformKeys) -> None:
        self.rotation = rotation
        self.platform_keys = platform_keys

    def abort(self, step: str, problem: str, new: NewKey, *, retry_cannot_help: bool = False) -> RotationError:
        """Stop before the target took the new key: revoke that key if the target does not hold it."""
        now = self.rotation.read_target()
        if isinstance(now, Unknown):
            note = f"; the new key {new.id} was kept (the target could not be read): a retry of this task reuses it"
        elif now is not None and now.key == new.key:
            note = f"; the new key {new.id} was kept: the target holds it"
        else:
            note = self.platform_keys.revoke_unused(new)
        return RotationError(
            step,
            problem + note,
            target_holds=self.rotation.describe(now, new),
            old_key_id=self.rotation.old_key_id,
            new_key_id=new.id,
            retry_cannot_help=retry_cannot_help,
        )

    def roll_back(
        self, step: str, problem: str, new: NewKey, seen: Credential | None, *, retry_cannot_help: bool = False
    ) -> RotationError:
        """
        The stored credential is in doubt: put the old one back (only over our own key), verify, then retire ours.
        ``retry_cannot_help`` marks the error of a completed rollback (a failed one is left to a retry).
        """
        rotation = self.rotation
        old_id = rotation.old_key_id
        both_valid = f"No key was revoked: the old key {old_id} and the new key {new.id} are both valid"
        if seen is not None and seen.key not in (new.key, rotation.old_key):
            note = self.platform_keys.revoke_unused(new)
            return RotationError(
                step,
                f"{problem}; the target holds another rotation's key, so it was left alone{note}",
                target_holds="another key (not this rotation's)",
                old_key_id=old_id,
                new_key_id=new.id,
                retry_cannot_help=True,
            )
        if rotation.state.get("phase") == "old_key_revoked":  # a retry after the revoke: there is no old key any more
            return RotationError(
                ROLL_BACK,
                f"{problem}; the old key {old_id} was revoked already, so there is nothing to roll back to: "
                f"the new key {new.id} stays valid",
                target_holds=rotation.describe(rotation.read_target(), new),
                old_key_id=old_id,
                new_key_id=new.id,
            )
        log.warning("%s: %s. Rolling back to the old key id %s.", rotation.target.name, problem, old_id)
        try:
            if rotation.old_credential is None:
                rotation.old_credential = self.platform_keys.read_old_credential()
            old = rotation.old_credential
            rotation.target.write(old)
            back = rotation.target.read()
            if back != old:
                raise ValueError("the target does not read back the old credential")
            self.platform_keys.verify(old)
        except Exception as exc:
            holds = rotation.describe(rotation.read_target(), new)
            return RotationError(
                ROLL_BACK,
                f"{problem}; rolling back failed: {rotation.error_text(exc)}. {both_valid}",
                target_holds=holds,
                old_key_id=old_id,
                new_key_id=new.id,
            )
        note = self.platform_keys.revoke_unused(new)
        return RotationError(
            step,
            f"{problem}; rolled back to the old key {old_id}{note}",
            target_holds=f"the old key {old_id} again, verified",
            old_key_id=old_id,
            new_key_id=new.id,
            rolled_back=True,
            retry_cannot_help=retry_cannot_help,
        )
