"""
The steps of a rotation on the platform's API keys: find the key the target holds, create the new key
retry-safely (a lost answer is found again by the run marker), and revoke the old key once the target is seen not
to hold it.
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
        secret = created.get("Secret")
        if not secret or not created.get("Key"):
            raise RotationError(
                CREATE_NEW_KEY,
                f"the secret of the new key {created.get('Id')} could not be read",
                target_holds=self._unchanged(),
                new_key_id=created.get("Id"),
            )
        mask(str(secret))
        self._secrets.append(str(secret))
        return NewKey(int(created["Id"]), str(created.get("Label") or ""), Credential(str(created["Key"]), secret))

    def _revoke_old_key(self, new: NewKey) -> None:
        assert self._old_id is not None and self._old_key is not None
        now = self._read()
        if isinstance(now, Unknown) or now is None or now.key == self._old_key:
            if isinstance(now, Unknown):
                why = f"reading {self.target.name} failed: {now.reason}"
            else:
                why = "the target holds it again" if now is not None else "the target reads back empty"
            raise RotationError(
                REVOKE_OLD_KEY,
                f"the old key {self._old_id} was not revoked: {why}",
                target_holds=self._describe(now, new),
                old_key_id=self._old_id,
                new_key_id=new.id,
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
