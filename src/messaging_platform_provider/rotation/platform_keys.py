"""
A rotation's calls on the platform's API keys (``PlatformKeys``): find the key the target holds, create the new key
retry-safely (a lost answer is found again by the run marker; a malformed answer is revoked), verify a credential
with a real call, revoke the old key once the target is seen to hold the new one, and revoke the keys this run made
that the target does not hold.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.api import ApiMethods
from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.rotation.credentials import Credential, mask
from messaging_platform_provider.rotation.results import (
    CHECK_TARGET,
    CREATE_NEW_KEY,
    FIND_OLD_KEY,
    REVOKE_OLD_KEY,
    RotationError,
    Unknown,
)

if TYPE_CHECKING:
    from messaging_platform_provider.rotation.rotate import ApiKeyRotation

log = logging.getLogger(__name__)


@dataclass
class NewKey:
    """The key this rotation created: its id, its label (with the run marker) and its credential."""

    id: int
    label: str
    credential: Credential

    @property
    def key(self) -> str:
        return self.credential.key


def verify_by_listing_campaigns(client: MessagingPlatformClient) -> None:
    """The default verification: the call ``test_connection`` makes, which any key of the account may make."""
    client.list_campaigns(only_mine=True)


def key_id(value: Any) -> int | None:
    """A key's ``Id`` as the platform should send it (a whole number, or its digits), else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip() if isinstance(value, str) else ""
    return int(text) if text.isascii() and text.isdigit() else None  # not "²": a digit to isdigit(), not to int()


class PlatformKeys:
    """
    The calls one rotation makes on the platform's API keys, with ``hook`` (the hook or client that manages keys)
    or, when the hook signs with the key at stake (a connection rotating itself), with a client on another
    credential. What the rotation knows (the old key, the secrets it has seen, its notes) and the reads of its
    target are ``rotation``'s; the other parameters are ``ApiKeyRotation``'s.
    """

    def __init__(
        self,
        rotation: ApiKeyRotation,
        hook: ApiMethods,
        *,
        account_id: int | None,
        key_label: str,
        key_type: int | str,
        valid_to: Any,
        verify: Callable[[MessagingPlatformClient], Any],
    ) -> None:
        self.rotation = rotation
        self.hook = hook
        self.account_id = account_id
        self.key_label = key_label
        self.key_type = key_type
        self.valid_to = valid_to
        self._verify_call = verify

    def find_old_key(self, current: Credential) -> dict[str, Any]:
        """The account's key (no secret) that the target's credential ``current`` uses."""
        try:
            keys = self.hook.list_api_keys(account_id=self.account_id)
        except MessagingPlatformApiError as exc:
            raise RotationError(
                FIND_OLD_KEY, f"listing the API keys failed: {exc}", target_holds=self.rotation.unchanged()
            ) from None
        for key in keys:
            if key.get("Key") == current.key:
                return key
        raise RotationError(
            FIND_OLD_KEY,
            f"the key {self.rotation.target.name} holds is not one of the account's API keys (revoked, or another "
            "account)",
            target_holds=self.rotation.unchanged(),
        )

    def key_info(self, credential: Credential) -> dict[str, Any]:
        """The account's key (no secret) that ``credential`` uses, or ``{}``."""
        try:
            keys = self.hook.list_api_keys(account_id=self.account_id)
        except MessagingPlatformApiError as exc:
            raise RotationError(
                CHECK_TARGET, f"listing the API keys failed: {exc}", target_holds="what it held before"
            ) from None
        return next((k for k in keys if k.get("Key") == credential.key), {})

    def is_ours(self, key: Mapping[str, Any]) -> bool:
        """Whether ``key`` carries this run's marker in its ``Label``."""
        return self.rotation.once.marker in str(key.get("Label") or "")

    def create_new_key(self) -> NewKey:
        try:
            created = self._create_once()
        except MessagingPlatformApiError as exc:
            if exc.status is not None and exc.status < 500:
                raise RotationError(CREATE_NEW_KEY, str(exc), target_holds=self.rotation.unchanged()) from None
            # The platform may have made the key: a create with the same run marker looks for it before sending.
            log.warning("Creating the new key failed (%s); looking for it by its run marker.", exc)
            try:
                created = self._create_once()
            except MessagingPlatformApiError as again:
                note = self.discard_marked_keys()
                raise RotationError(
                    CREATE_NEW_KEY, f"{exc}; then {again}{note}", target_holds=self.rotation.unchanged()
                ) from None
            self.rotation.notes.append(
                "the first create failed or lost its answer; the second looked for the key by its marker first"
            )
        new_id, key, secret = key_id(created.get("Id")), created.get("Key"), created.get("Secret")
        if secret:
            mask(str(secret))
            self.rotation.secrets.append(str(secret))
        if new_id is None or not key or not secret:
            raise self._malformed(new_id, [f for f, ok in (("Id", new_id), ("Key", key), ("Secret", secret)) if not ok])
        return NewKey(new_id, str(created.get("Label") or ""), Credential(str(key), str(secret)))

    def _create_once(self) -> dict[str, Any]:
        return self.hook.create_api_key(
            self.key_label,
            key_type=self.key_type,
            valid_to=self.valid_to,
            once=self.rotation.once,
            account_id=self.account_id,
        )

    def _malformed(self, new_id: int | None, fields: list[str]) -> RotationError:
        """The platform made a key but its answer lacks what a rotation needs: revoke that key (by Id or marker)."""
        note = self.discard_marked_keys(new_id)
        if not note:
            note = "; no key of this rotation was found to revoke"
        named = f"the new key {new_id}" if new_id is not None else "the new key"
        return RotationError(
            CREATE_NEW_KEY,
            f"the platform answered the create with a malformed key (no valid {', '.join(fields)}){note}; "
            f"{named} is not used",
            target_holds=self.rotation.unchanged(),
            new_key_id=new_id,
            retry_cannot_help=True,
        )

    def read_old_credential(self) -> Credential:
        """The old key's secret, re-read from the platform (single-key GET), for a try that never saw it."""
        assert self.rotation.old_key_id is not None
        key = self.hook.get_api_key(self.rotation.old_key_id, account_id=self.account_id)
        credential = Credential(str(key["Key"]), str(key["Secret"]))
        self.rotation.secrets.append(credential.secret)
        return credential

    def verify(self, credential: Credential) -> None:
        """Make the verification call (``verify``) with ``credential``; raises if it does not work."""
        with self._client_for(credential) as client:
            self._verify_call(client)

    def revoke_old_key(self, new: NewKey) -> None:
        """Revoke the old key, after reading the target once more and seeing it holds the new key."""
        old_id, old_key = self.rotation.old_key_id, self.rotation.old_key
        assert old_id is not None and old_key is not None
        now = self.rotation.read_target()
        if isinstance(now, Unknown):
            raise RotationError(
                REVOKE_OLD_KEY,
                f"the old key {old_id} was not revoked: reading {self.rotation.target.name} failed: {now.reason}",
                target_holds=self.rotation.describe(now, new),
                old_key_id=old_id,
                new_key_id=new.id,
            )
        if now is None or now.key != new.key:
            # Someone wrote the target after the read-back: the old key may be in use again, ours is not.
            holds = self.rotation.describe(now, new)
            note = self.discard_marked_keys()
            raise RotationError(
                REVOKE_OLD_KEY,
                f"the old key {old_id} was not revoked: the target changed after the read-back (it holds "
                f"{holds}){note}",
                target_holds=holds,
                old_key_id=old_id,
                new_key_id=new.id,
                retry_cannot_help=True,
            )
        with self._client_not_using(old_key, new.credential) as client:
            try:
                gone = client.revoke_api_key(old_id, missing_ok=True, account_id=self.account_id)
            except MessagingPlatformApiError as exc:
                raise RotationError(
                    REVOKE_OLD_KEY,
                    f"revoking the old key {old_id} failed: {exc}. It stays valid until a retry of this task "
                    "revokes it",
                    target_holds=f"the new key {new.id}, verified",
                    old_key_id=old_id,
                    new_key_id=new.id,
                ) from None
        log.info("Old key id %s %s.", old_id, "revoked" if gone else "was already revoked")

    def revoke_unused(self, new: NewKey) -> str:
        """Revoke our new key, which the caller has just seen is not in the target; a note for the error text."""
        with self._client_not_using(new.key, self.rotation.old_credential) as client:
            try:
                client.revoke_api_key(new.id, missing_ok=True, account_id=self.account_id)
            except Exception as exc:
                return (
                    f"; the unused new key {new.id} could not be revoked ({self.rotation.error_text(exc)}): a retry "
                    "reuses it"
                )
        return f"; the unused new key {new.id} was revoked"

    def discard_marked_keys(self, made_id: int | None = None) -> str:
        """
        Revoke the keys with this run's marker (and the key ``made_id``, which this run made) that the target, read
        just now, does not hold; never the old key. A note for the error text.
        """
        now = self.rotation.read_target()
        if isinstance(now, Unknown):
            return f"; keys this rotation may have made were kept (the target could not be read: {now.reason})"
        old_key = self.rotation.old_key
        try:
            # a connection rotating itself may have revoked the key the hook signs with: use the target's then
            with self._client_not_using(old_key or "", now) as client:
                keys = client.list_api_keys(account_id=self.account_id)
                found = [k for k in keys if self.is_ours(k) or (made_id is not None and k.get("Id") == made_id)]
                unused = [k for k in found if (now is None or k.get("Key") != now.key) and k.get("Key") != old_key]
                for key in unused:
                    client.revoke_api_key(key["Id"], missing_ok=True, account_id=self.account_id)
        except Exception as exc:
            return (
                f"; looking for keys it may have made failed too ({self.rotation.error_text(exc)}): a key of this "
                f"rotation left valid has its run marker {self.rotation.once.marker} in its Label"
            )
        return f"; {len(unused)} unused key(s) of this rotation revoked" if unused else ""

    def _platform(self) -> MessagingPlatformClient:
        client = getattr(self.hook, "client", self.hook)
        if not isinstance(client, MessagingPlatformClient):  # pragma: no cover - a wiring mistake
            raise TypeError("the hook must be a MessagingPlatformHook or a MessagingPlatformClient")
        return client

    def _client_for(self, credential: Credential) -> MessagingPlatformClient:
        base = self._platform()
        return MessagingPlatformClient(
            base.base_url,
            credential.key,
            credential.secret,
            account_id=self.account_id if self.account_id is not None else base.account_id,
            timeout=base.timeout,
            retry_policy=base.retry_policy,
            platform_timezone=base.platform_timezone,
            allow_insecure_http=base.allow_insecure_http,
        )

    @contextmanager
    def _client_not_using(self, key: str, other: Credential | None) -> Iterator[ApiMethods]:
        """
        The hook, unless the hook authenticates with ``key`` (a connection rotating itself): then a client
        on ``other``, closed when done, since a key cannot be revoked with itself.
        """
        auth = getattr(self._platform().session, "auth", None)
        hook_key = auth[0] if isinstance(auth, tuple) else None
        if hook_key != key or other is None:
            yield self.hook
            return
        with self._client_for(other) as client:
            yield client
