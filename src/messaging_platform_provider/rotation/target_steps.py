"""
The steps of a rotation on the target: check consumers read what is written (not shadowed), verify the new
credential with a real call before anything is stored, write it after renewing the lease and checking the target
still holds the old key, then read back what consumers see and verify that (any doubt rolls back: ``recovery``),
and at the very end confirm the target holds the new key.
"""

from __future__ import annotations

import logging

from messaging_platform_provider.rotation.base import NewKey, Unknown
from messaging_platform_provider.rotation.credentials import Credential
from messaging_platform_provider.rotation.lease import LeaseHeld
from messaging_platform_provider.rotation.outcome import (
    CHECK_TARGET,
    CONFIRM_TARGET,
    READ_BACK,
    READ_TARGET,
    STORE,
    VERIFY_NEW_KEY,
    VERIFY_STORED,
    RotationError,
)
from messaging_platform_provider.rotation.recovery import RotationRecovery
from messaging_platform_provider.rotation.targets import TargetNotConfigured

log = logging.getLogger(__name__)


class TargetSteps(RotationRecovery):
    """Verifying, storing and reading back the new credential."""

    def _check_not_shadowed(self, current: Credential | None) -> None:
        """Stop before any key is made when consumers would not see a write (the target's ``shadowed_by``)."""
        check = getattr(self.target, "shadowed_by", None)
        if not callable(check):
            return
        try:
            reason = check(current)
        except Exception as exc:
            raise RotationError(
                READ_TARGET,
                f"checking that consumers read what {self.target.name} stores failed: {self._text(exc)}",
                target_holds="what it held before (nothing was changed)",
                retry_cannot_help=isinstance(exc, TargetNotConfigured),
            ) from None
        if reason:
            raise RotationError(
                READ_TARGET,
                f"{self.target.name} is shadowed: {reason}, so consumers would not see a new key; none was made",
                target_holds="what it held before (nothing was changed)",
                retry_cannot_help=True,
            )

    def _verify_new_key(self, new: NewKey) -> None:
        try:
            self._verify(new.credential)
        except Exception as exc:
            problem = f"the new key {new.id} failed a platform call: {self._text(exc)}"
            raise self._abort(VERIFY_NEW_KEY, problem, new) from None

    def _store(self, new: NewKey) -> None:
        try:
            self._take_lease()
        except LeaseHeld as exc:
            problem = f"this rotation's lease expired and was taken over: {exc}; it stopped before writing"
            raise self._abort(CHECK_TARGET, problem, new, retry_cannot_help=True) from None
        except Exception as exc:
            problem = f"renewing the lease failed before writing: {self._text(exc)}"
            raise self._abort(CHECK_TARGET, problem, new) from None
        now = self._read()
        if isinstance(now, Unknown):
            raise self._abort(CHECK_TARGET, f"reading {self.target.name} before writing failed: {now.reason}", new)
        if now is None or now.key != self._old_key:
            changed = "another rotation changed the target since this one began"
            raise self._abort(CHECK_TARGET, changed, new, retry_cannot_help=True)
        try:
            self.target.write(new.credential)
        except Exception as exc:
            problem = f"writing to {self.target.name} failed: {self._text(exc)}"
            seen = self._read()
            if isinstance(seen, Unknown):
                raise RotationError(
                    STORE,
                    f"{problem}; reading it back failed too ({seen.reason}). No key was revoked: a retry of this "
                    "task resumes",
                    target_holds=f"the old key {self._old_id} or the new key {new.id}; both are valid",
                    old_key_id=self._old_id,
                    new_key_id=new.id,
                ) from None
            if seen == new.credential:
                log.warning("%s; yet the target holds the new credential: the write landed.", problem)
                self.notes.append("the store reported an error but had landed")
                return
            if seen is not None and seen == self._old_credential:
                raise self._abort(STORE, problem, new) from None
            raise self._roll_back(STORE, f"{problem}, and the target now holds something else", new, seen) from None
        log.info("New key id %s written to %s.", new.id, self.target.name)

    def _check_stored(self, new: NewKey) -> None:
        seen = self._read()
        if isinstance(seen, Unknown):
            raise RotationError(
                READ_BACK,
                f"reading {self.target.name} back failed: {seen.reason}. No key was revoked: a retry of this task "
                "resumes",
                target_holds=f"the new key {new.id} (written and verified before) or the old key; both are valid",
                old_key_id=self._old_id,
                new_key_id=new.id,
            )
        problem = ""
        shadowed = seen is not None and seen.key == self._old_key
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
                self._verify(seen)
            except Exception as exc:
                problem = f"the stored credential failed a platform call: {self._text(exc)}"
        if problem:
            raise self._roll_back(VERIFY_STORED, problem, new, seen, retry_cannot_help=shadowed)
        log.info("%s reads back the new key id %s, and it works.", self.target.name, new.id)

    def _confirm_target(self, new: NewKey, revoked: bool) -> None:
        """The last read: the target holds this rotation's key; else revoke the keys this run made that it does not."""
        now = self._read()
        if isinstance(now, Unknown):
            raise RotationError(
                CONFIRM_TARGET,
                f"reading {self.target.name} at the end failed: {now.reason}. A retry of this task confirms it",
                target_holds=f"the new key {new.id} (read back and verified before)",
                old_key_id=self._old_id,
                new_key_id=new.id,
            )
        if now is not None and now.key == new.key:
            return
        holds = self._describe(now, new)
        note = self._discard_marked_keys()
        old = f"the old key {self._old_id} was revoked" if revoked else f"the old key {self._old_id} is valid"
        raise RotationError(
            CONFIRM_TARGET,
            f"the target changed at the end (someone wrote it after this rotation's checks); {old}{note}",
            target_holds=holds,
            old_key_id=self._old_id,
            new_key_id=new.id,
            retry_cannot_help=True,
        )
