"""
The steps of a rotation on the platform's API keys: find the key the target holds, create the new key
retry-safely (a lost answer is found again by the run marker; a malformed answer is revoked), and revoke the old key
once the target is seen to hold the new one.
"""

from __future__ import annotations

import logging
from typing import Any

from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.rotation.base import NewKey, Unknown
from messaging_platform_provider.rotation.credentials import Credential, mask
from messaging_platform_provider.rotation.outcome import CREATE_NEW_KEY, FIND_OLD_KEY, REVOKE_OLD_KEY, RotationError
from messaging_platform_provider.rotation.recovery import RotationRecovery

log = logging.getLogger(__name__)


def key_id(value: Any) -> int | None:
    """A key's ``Id`` as the platform should send it (a whole number, or its digits), else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip() if isinstance(value, str) else ""
    return int(text) if text.isascii() and text.isdigit() else None  # not "²": a digit to isdigit(), not to int()


class KeySteps(RotationRecovery):
    """Finding, creating and revoking keys."""

    def _find_old_key(self, current: Credential) -> dict[str, Any]:
        try:
            keys = self.manager.list_api_keys(account_id=self.account_id)
        except MessagingPlatformApiError as exc:
            raise RotationError(
                FIND_OLD_KEY, f"listing the API keys failed: {exc}", target_holds=self._unchanged()
            ) from None
        for key in keys:
            if key.get("Key") == current.key:
                return key
        raise RotationError(
            FIND_OLD_KEY,
            f"the key {self.target.name} holds is not one of the account's API keys (revoked, or another account)",
            target_holds=self._unchanged(),
        )

    def _create_once(self) -> dict[str, Any]:
        return self.manager.create_api_key(
            self.key_label, key_type=self.key_type, valid_to=self.valid_to, once=self.once, account_id=self.account_id
        )

    def _create_new_key(self) -> NewKey:
        try:
            created = self._create_once()
        except MessagingPlatformApiError as exc:
            if exc.status is not None and exc.status < 500:
                raise RotationError(CREATE_NEW_KEY, str(exc), target_holds=self._unchanged()) from None
            # The platform may have made the key: a create with the same run marker looks for it before sending.
            log.warning("Creating the new key failed (%s); looking for it by its run marker.", exc)
            try:
                created = self._create_once()
            except MessagingPlatformApiError as again:
                note = self._discard_marked_keys()
                raise RotationError(
                    CREATE_NEW_KEY, f"{exc}; then {again}{note}", target_holds=self._unchanged()
                ) from None
            self.notes.append(
                "the first create failed or lost its answer; the second looked for the key by its marker first"
            )
        new_id, key, secret = key_id(created.get("Id")), created.get("Key"), created.get("Secret")
        if secret:
            mask(str(secret))
            self._secrets.append(str(secret))
        if new_id is None or not key or not secret:
            raise self._malformed(new_id, [f for f, ok in (("Id", new_id), ("Key", key), ("Secret", secret)) if not ok])
        return NewKey(new_id, str(created.get("Label") or ""), Credential(str(key), str(secret)))

    def _malformed(self, new_id: int | None, fields: list[str]) -> RotationError:
        """The platform made a key but its answer lacks what a rotation needs: revoke that key (by Id or marker)."""
        note = self._discard_marked_keys(new_id)
        if not note:
            note = "; no key of this rotation was found to revoke"
        named = f"the new key {new_id}" if new_id is not None else "the new key"
        return RotationError(
            CREATE_NEW_KEY,
            f"the platform answered the create with a malformed key (no valid {', '.join(fields)}){note}; "
            f"{named} is not used",
            target_holds=self._unchanged(),
            new_key_id=new_id,
            retry_cannot_help=True,
        )

    def _revoke_old_key(self, new: NewKey) -> None:
        assert self._old_id is not None and self._old_key is not None
        now = self._read()
        if isinstance(now, Unknown):
            raise RotationError(
                REVOKE_OLD_KEY,
                f"the old key {self._old_id} was not revoked: reading {self.target.name} failed: {now.reason}",
                target_holds=self._describe(now, new),
                old_key_id=self._old_id,
                new_key_id=new.id,
            )
        if now is None or now.key != new.key:
            # Someone wrote the target after the read-back: the old key may be in use again, ours is not.
            holds = self._describe(now, new)
            note = self._discard_marked_keys()
            raise RotationError(
                REVOKE_OLD_KEY,
                f"the old key {self._old_id} was not revoked: the target changed after the read-back (it holds "
                f"{holds}){note}",
                target_holds=holds,
                old_key_id=self._old_id,
                new_key_id=new.id,
                retry_cannot_help=True,
            )
        with self._client_not_using(self._old_key, new.credential) as client:
            try:
                gone = client.revoke_api_key(self._old_id, missing_ok=True, account_id=self.account_id)
            except MessagingPlatformApiError as exc:
                raise RotationError(
                    REVOKE_OLD_KEY,
                    f"revoking the old key {self._old_id} failed: {exc}. It stays valid until a retry of this task "
                    "revokes it",
                    target_holds=f"the new key {new.id}, verified",
                    old_key_id=self._old_id,
                    new_key_id=new.id,
                ) from None
        log.info("Old key id %s %s.", self._old_id, "revoked" if gone else "was already revoked")
