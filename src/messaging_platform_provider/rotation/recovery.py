"""
What a rotation does when a step fails: stop before the target took the new key (revoking that key if the target
does not hold it), roll back to the old credential when the stored one is in doubt, and revoke the keys this run
made that the target does not hold. Each returns the ``RotationError`` to raise, or a note for its text.
"""

from __future__ import annotations

import logging

from messaging_platform_provider.rotation.base import NewKey, RotationBase, Unknown
from messaging_platform_provider.rotation.credentials import Credential
from messaging_platform_provider.rotation.outcome import ROLL_BACK, RotationError

log = logging.getLogger(__name__)


class RotationRecovery(RotationBase):
    """Failure handling, shared by the steps on the platform's keys and the steps on the target."""

    def _abort(self, step: str, problem: str, new: NewKey, *, retry_cannot_help: bool = False) -> RotationError:
        """Stop before the target took the new key: revoke that key if the target does not hold it."""
        now = self._read()
        if isinstance(now, Unknown):
            note = f"; the new key {new.id} was kept (the target could not be read): a retry of this task reuses it"
        elif now is not None and now.key == new.key:
            note = f"; the new key {new.id} was kept: the target holds it"
        else:
            note = self._revoke_unused(new)
        return RotationError(
            step,
            problem + note,
            target_holds=self._describe(now, new),
            old_key_id=self._old_id,
            new_key_id=new.id,
            retry_cannot_help=retry_cannot_help,
        )

    def _roll_back(
        self, step: str, problem: str, new: NewKey, seen: Credential | None, *, retry_cannot_help: bool = False
    ) -> RotationError:
        """
        The stored credential is in doubt: put the old one back (only over our own key), verify, then retire ours.
        ``retry_cannot_help`` marks the error of a completed rollback (a failed one is left to a retry).
        """
        both_valid = f"No key was revoked: the old key {self._old_id} and the new key {new.id} are both valid"
        if seen is not None and seen.key not in (new.key, self._old_key):
            note = self._revoke_unused(new)
            return RotationError(
                step,
                f"{problem}; the target holds another rotation's key, so it was left alone{note}",
                target_holds="another key (not this rotation's)",
                old_key_id=self._old_id,
                new_key_id=new.id,
                retry_cannot_help=True,
            )
        if self.state.get("phase") == "old_key_revoked":  # a retry after the revoke: there is no old key any more
            return RotationError(
                ROLL_BACK,
                f"{problem}; the old key {self._old_id} was revoked already, so there is nothing to roll back to: "
                f"the new key {new.id} stays valid",
                target_holds=self._describe(self._read(), new),
                old_key_id=self._old_id,
                new_key_id=new.id,
            )
        log.warning("%s: %s. Rolling back to the old key id %s.", self.target.name, problem, self._old_id)
        try:
            old = self._old_credential or self._read_old_credential()
            self.target.write(old)
            back = self.target.read()
            if back != old:
                raise ValueError("the target does not read back the old credential")
            self._verify(old)
        except Exception as exc:
            holds = self._describe(self._read(), new)
            return RotationError(
                ROLL_BACK,
                f"{problem}; rolling back failed: {self._text(exc)}. {both_valid}",
                target_holds=holds,
                old_key_id=self._old_id,
                new_key_id=new.id,
            )
        note = self._revoke_unused(new)
        return RotationError(
            step,
            f"{problem}; rolled back to the old key {self._old_id}{note}",
            target_holds=f"the old key {self._old_id} again, verified",
            old_key_id=self._old_id,
            new_key_id=new.id,
            rolled_back=True,
            retry_cannot_help=retry_cannot_help,
        )

    def _revoke_unused(self, new: NewKey) -> str:
        """Revoke our new key, which the caller has just seen is not in the target; a note for the error text."""
        with self._client_not_using(new.key, self._old_credential) as client:
            try:
                client.revoke_api_key(new.id, missing_ok=True, account_id=self.account_id)
            except Exception as exc:
                return f"; the unused new key {new.id} could not be revoked ({self._text(exc)}): a retry reuses it"
        return f"; the unused new key {new.id} was revoked"

    def _discard_marked_keys(self, key_id: int | None = None) -> str:
        """
        Revoke the keys with this run's marker (and the key ``key_id``, which this run made) that the target, read
        just now, does not hold; never the old key.
        """
        now = self._read()
        if isinstance(now, Unknown):
            return f"; keys this rotation may have made were kept (the target could not be read: {now.reason})"
        try:
            # a connection rotating itself may have revoked the key the manager signs with: use the target's then
            with self._client_not_using(self._old_key or "", now) as client:
                keys = client.list_api_keys(account_id=self.account_id)
                found = [k for k in keys if self._is_ours(k) or (key_id is not None and k.get("Id") == key_id)]
                unused = [
                    k for k in found if (now is None or k.get("Key") != now.key) and k.get("Key") != self._old_key
                ]
                for key in unused:
                    client.revoke_api_key(key["Id"], missing_ok=True, account_id=self.account_id)
        except Exception as exc:
            return (
                f"; looking for keys it may have made failed too ({self._text(exc)}): a key of this rotation left "
                f"valid has its run marker {self.once.marker} in its Label"
            )
        return f"; {len(unused)} unused key(s) of this rotation revoked" if unused else ""
