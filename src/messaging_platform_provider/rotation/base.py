"""
What every step of an API key rotation uses (``rotate.ApiKeyRotation`` runs the steps): what the rotation knows
(the old key, the secrets it has seen, its notes and its saved state), its lease on the target, reading the target,
describing it in error text without a secret, and clients that authenticate with a candidate credential.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

from messaging_platform_provider.client.api import ApiMethods
from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.client.once import CreateOnce, MemoryStateStore, StateStore
from messaging_platform_provider.rotation.credentials import Credential, scrub
from messaging_platform_provider.rotation.lease import DEFAULT_LEASE_SECONDS, RotationLease
from messaging_platform_provider.rotation.outcome import CHECK_TARGET, RotationError
from messaging_platform_provider.rotation.targets import CredentialTarget, TargetNotConfigured

log = logging.getLogger(__name__)

STATE_KEY_PREFIX = "messaging_platform:rotate_api_key:"


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


@dataclass
class Unknown:
    """A target read that failed: what the target holds is not known; ``misconfigured``: ``TargetNotConfigured``."""

    reason: str
    misconfigured: bool = False


class RotationBase:
    """The state of one rotation and the helpers its steps share; the parameters are ``ApiKeyRotation``'s."""

    def __init__(
        self,
        manager: ApiMethods,
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
        self.manager = manager
        self.target = target
        self.account_id = account_id
        self.key_label = key_label
        self.key_type = key_type
        self.valid_to = valid_to
        self.revoke_old = revoke_old
        self._verify_call = verify
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
        self.state: dict[str, Any] = {}
        self.notes: list[str] = []
        self._old_id: int | None = None
        self._old_key: str | None = None
        self._old_credential: Credential | None = None
        self._secrets: list[str] = []

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

    def _take_lease(self) -> None:
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
                "Releasing the lease of %s failed (%s); it expires by itself.", self.target.name, self._text(exc)
            )

    def _key_info(self, credential: Credential) -> dict[str, Any]:
        """The account's key (no secret) that ``credential`` uses, or ``{}``."""
        try:
            keys = self.manager.list_api_keys(account_id=self.account_id)
        except MessagingPlatformApiError as exc:
            raise RotationError(
                CHECK_TARGET, f"listing the API keys failed: {exc}", target_holds="what it held before"
            ) from None
        return next((k for k in keys if k.get("Key") == credential.key), {})

    def _is_ours(self, key: Mapping[str, Any]) -> bool:
        return self.once.marker in str(key.get("Label") or "")

    def _checkpoint(self, name: str) -> None:
        if self._on_step is not None:
            self._on_step(name)

    def _save(self, **fields: Any) -> None:
        self.state.update(fields)
        self.store.set(self.state_key, dict(self.state))

    def _unchanged(self) -> str:
        return f"the old key {self._old_id}, unchanged" if self._old_id is not None else "what it held before"

    def _describe(self, now: Credential | None | Unknown, new: NewKey) -> str:
        if isinstance(now, Unknown):
            return f"unknown ({now.reason}); the old key {self._old_id} and the new key {new.id} are both valid"
        if now is None:
            return "nothing"
        if now.key == self._old_key:
            return f"the old key {self._old_id}"
        if now.key == new.key:
            return f"the new key {new.id}"
        return "another key (not this rotation's)"

    def _text(self, exc: BaseException) -> str:
        """An exception as text for an error message, with every secret this rotation knows replaced."""
        text = str(exc) if isinstance(exc, MessagingPlatformApiError) else f"{type(exc).__name__}: {exc}"
        return scrub(text, self._secrets)

    def _read(self) -> Credential | None | Unknown:
        try:
            found = self.target.read()
        except Exception as exc:
            return Unknown(self._text(exc), misconfigured=isinstance(exc, TargetNotConfigured))
        if found is not None and found.secret not in self._secrets:
            self._secrets.append(found.secret)
        return found

    def _read_or_fail(self, step: str, holds: str) -> Credential | None:
        found = self._read()
        if isinstance(found, Unknown):
            problem = f"reading {self.target.name} failed: {found.reason}"
            raise RotationError(step, problem, target_holds=holds, retry_cannot_help=found.misconfigured)
        return found

    def _read_old_credential(self) -> Credential:
        """The old key's secret, re-read from the platform (single-key GET) when this try never saw it."""
        assert self._old_id is not None
        key = self.manager.get_api_key(self._old_id, account_id=self.account_id)
        self._old_credential = Credential(str(key["Key"]), str(key["Secret"]))
        self._secrets.append(self._old_credential.secret)
        return self._old_credential

    def _platform(self) -> MessagingPlatformClient:
        client = getattr(self.manager, "client", self.manager)
        if not isinstance(client, MessagingPlatformClient):  # pragma: no cover - a wiring mistake
            raise TypeError("the manager must be a MessagingPlatformHook or a MessagingPlatformClient")
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
        The manager, unless the manager authenticates with ``key`` (a connection rotating itself): then a client
        on ``other``, closed when done, since a key cannot be revoked with itself.
        """
        auth = getattr(self._platform().session, "auth", None)
        manager_key = auth[0] if isinstance(auth, tuple) else None
        if manager_key != key or other is None:
            yield self.manager
            return
        with self._client_for(other) as client:
            yield client

    def _verify(self, credential: Credential) -> None:
        with self._client_for(credential) as client:
            self._verify_call(client)
