"""
API key rotation that keeps a working credential in the target at every instant (``docs/rotation.md``).

On this platform a key's secret cannot be changed in place without breaking every holder at once (``PUT`` makes a
new secret and the old one fails immediately), so a rotation *adds* a key and retires the old one:

1. read the target and record the old key's id in the task state store (a retry then knows which key was the old
   one even when the target already holds the new one);
2. create the new key retry-safely (``CreateOnce``: run marker in ``Label``; a lost answer is found again and its
   secret re-read with the single-key GET);
3. verify the new credential with a real platform call, before anything is stored;
4. check the target still holds the old key (else another rotation got there first: stop, revoke only our unused
   key), then write the new credential;
5. read back what consumers see and verify *that* with a real call; on any doubt, roll back to the old credential;
6. only then revoke the old key (404: already revoked), after checking once more the target does not hold it.

A key is revoked only after reading the target and seeing it does not hold that key. Any failure leaves both keys
valid or the target on a verified key; the error says which. No secret is stored, logged or put in error text.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from messaging_platform_provider.client.api import ApiMethods
from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.client.once import CreateOnce, StateStore
from messaging_platform_provider.rotation.credentials import Credential, mask, scrub
from messaging_platform_provider.rotation.targets import CredentialTarget

log = logging.getLogger(__name__)

STATE_KEY_PREFIX = "messaging_platform:rotate_api_key:"

READ_TARGET = "read_target"
FIND_OLD_KEY = "find_old_key"
CREATE_NEW_KEY = "create_new_key"
VERIFY_NEW_KEY = "verify_new_key"
CHECK_TARGET = "check_target"
STORE = "store"
READ_BACK = "read_back"
VERIFY_STORED = "verify_stored"
ROLL_BACK = "roll_back"
REVOKE_OLD_KEY = "revoke_old_key"
#: The steps in order; a ``RotationError`` names the one that failed.
STEPS = (
    READ_TARGET,
    FIND_OLD_KEY,
    CREATE_NEW_KEY,
    VERIFY_NEW_KEY,
    CHECK_TARGET,
    STORE,
    READ_BACK,
    VERIFY_STORED,
    ROLL_BACK,
    REVOKE_OLD_KEY,
)
#: Points ``on_step`` is called at, each after the step named has completed (tests simulate a kill there).
CHECKPOINTS = (
    "old_key_recorded",
    "new_key_created",
    "new_key_verified",
    "stored",
    "stored_verified",
    "old_key_revoked",
)


class RotationError(Exception):
    """
    A rotation stopped. ``step`` is the step that failed, ``target_holds`` what the target holds afterwards (in
    words, never a secret), ``rolled_back`` whether the target was put back on the old key.
    """

    def __init__(
        self,
        step: str,
        problem: str,
        *,
        target_holds: str,
        old_key_id: int | None = None,
        new_key_id: int | None = None,
        rolled_back: bool = False,
    ) -> None:
        self.step = step
        self.problem = problem
        self.target_holds = target_holds
        self.old_key_id = old_key_id
        self.new_key_id = new_key_id
        self.rolled_back = rolled_back
        verb = "rolled back" if rolled_back else "stopped"
        super().__init__(f"API key rotation {verb} at step {step!r}: {problem}. The target holds {target_holds}.")

    def __reduce__(self) -> tuple[Any, ...]:  # keyword-only fields: pickle through a rebuilding function
        fields = {
            "target_holds": self.target_holds,
            "old_key_id": self.old_key_id,
            "new_key_id": self.new_key_id,
            "rolled_back": self.rolled_back,
        }
        return _rebuild_error, (self.step, self.problem, fields)


def _rebuild_error(step: str, problem: str, fields: dict[str, Any]) -> RotationError:
    return RotationError(step, problem, **fields)


@dataclass(frozen=True)
class RotationResult:
    """What a finished rotation did: ids and labels only, fit for XCom."""

    target: str
    old_key_id: int
    new_key_id: int
    new_key_label: str
    old_key_revoked: bool
    resumed: bool = False
    notes: tuple[str, ...] = ()

    def to_xcom(self) -> dict[str, Any]:
        return {
            "outcome": "rotated",
            "target": self.target,
            "old_key_id": self.old_key_id,
            "new_key_id": self.new_key_id,
            "new_key_label": self.new_key_label,
            "old_key_revoked": self.old_key_revoked,
            "resumed": self.resumed,
            "notes": list(self.notes),
        }


@dataclass
class _NewKey:
    id: int
    label: str
    credential: Credential

    @property
    def key(self) -> str:
        return self.credential.key


class _MemoryStore:
    """Used when no task state store is given: state lives as long as the rotation object."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def set(self, key: str, value: Any) -> None:
        self.data[key] = value


def verify_by_listing_campaigns(client: MessagingPlatformClient) -> None:
    """The default verification: the call ``test_connection`` makes, which any key of the account may make."""
    client.list_campaigns(only_mine=True)


@dataclass
class _Unknown:
    """A target read that failed: what the target holds is not known."""

    reason: str


_UNREAD = _Unknown("not read")


class ApiKeyRotation:
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
    """

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
        store: StateStore
        if once.store is None:
            log.warning(
                "No task state store: a retry after the new key was stored cannot tell which key was the old one "
                "and will stop before revoking anything."
            )
            store = _MemoryStore()
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

    # -- the sequence ----------------------------------------------------------------------------------------

    def run(self) -> RotationResult:
        loaded = self.store.get(self.state_key)
        self.state = dict(loaded) if isinstance(loaded, Mapping) else {}
        current = self._read_or_fail(READ_TARGET, "what it held before (nothing was changed)")
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
                raise self._abort(CHECK_TARGET, "another rotation changed the target since this one began", new)
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
            self._checkpoint("old_key_revoked")
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

    # -- steps -----------------------------------------------------------------------------------------------

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

    def _create_new_key(self) -> _NewKey:
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
        return _NewKey(int(created["Id"]), str(created.get("Label") or ""), Credential(str(created["Key"]), secret))

    def _verify_new_key(self, new: _NewKey) -> None:
        try:
            self._verify(new.credential)
        except Exception as exc:
            problem = f"the new key {new.id} failed a platform call: {self._text(exc)}"
            raise self._abort(VERIFY_NEW_KEY, problem, new) from None

    def _store(self, new: _NewKey) -> None:
        now = self._read()
        if isinstance(now, _Unknown):
            raise self._abort(CHECK_TARGET, f"reading {self.target.name} before writing failed: {now.reason}", new)
        if now is None or now.key != self._old_key:
            raise self._abort(CHECK_TARGET, "another rotation changed the target since this one began", new)
        try:
            self.target.write(new.credential)
        except Exception as exc:
            problem = f"writing to {self.target.name} failed: {self._text(exc)}"
            seen = self._read()
            if isinstance(seen, _Unknown):
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

    def _check_stored(self, new: _NewKey) -> None:
        seen = self._read()
        if isinstance(seen, _Unknown):
            raise RotationError(
                READ_BACK,
                f"reading {self.target.name} back failed: {seen.reason}. No key was revoked: a retry of this task "
                "resumes",
                target_holds=f"the new key {new.id} (written and verified before) or the old key; both are valid",
                old_key_id=self._old_id,
                new_key_id=new.id,
            )
        problem = ""
        if seen is None:
            problem = "it reads back empty"
        elif seen.key == self._old_key:
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
            raise self._roll_back(VERIFY_STORED, problem, new, seen)
        log.info("%s reads back the new key id %s, and it works.", self.target.name, new.id)

    def _revoke_old_key(self, new: _NewKey) -> None:
        assert self._old_id is not None and self._old_key is not None
        now = self._read()
        if isinstance(now, _Unknown) or now is None or now.key == self._old_key:
            if isinstance(now, _Unknown):
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
        client = self._client_not_using(self._old_key, new.credential)
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
        finally:
            if client is not self.manager:
                client.close()  # type: ignore[attr-defined]
        log.info("Old key id %s %s.", self._old_id, "revoked" if gone else "was already revoked")

    # -- failure handling ------------------------------------------------------------------------------------

    def _abort(self, step: str, problem: str, new: _NewKey) -> RotationError:
        """Stop before the target took the new key: revoke that key if the target does not hold it."""
        now = self._read()
        if isinstance(now, _Unknown):
            note = f"; the new key {new.id} was kept (the target could not be read): a retry of this task reuses it"
        elif now is not None and now.key == new.key:
            note = f"; the new key {new.id} was kept: the target holds it"
        else:
            note = self._revoke_unused(new)
        return RotationError(
            step, problem + note, target_holds=self._describe(now, new), old_key_id=self._old_id, new_key_id=new.id
        )

    def _roll_back(self, step: str, problem: str, new: _NewKey, seen: Credential | None) -> RotationError:
        """The stored credential is in doubt: put the old one back (only over our own key), verify, then retire ours."""
        both_valid = f"No key was revoked: the old key {self._old_id} and the new key {new.id} are both valid"
        if seen is not None and seen.key not in (new.key, self._old_key):
            note = self._revoke_unused(new)
            return RotationError(
                step,
                f"{problem}; the target holds another rotation's key, so it was left alone{note}",
                target_holds="another key (not this rotation's)",
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
        )

    def _revoke_unused(self, new: _NewKey) -> str:
        """Revoke our new key, which the caller has just seen is not in the target; a note for the error text."""
        client = self._client_not_using(new.key, self._old_credential)
        try:
            client.revoke_api_key(new.id, missing_ok=True, account_id=self.account_id)
        except Exception as exc:
            return f"; the unused new key {new.id} could not be revoked ({self._text(exc)}): a retry reuses it"
        finally:
            if client is not self.manager:
                client.close()  # type: ignore[attr-defined]
        return f"; the unused new key {new.id} was revoked"

    def _discard_marked_keys(self) -> str:
        """Revoke the keys with this run's marker that the target, read just now, does not hold."""
        now = self._read()
        if isinstance(now, _Unknown):
            return f"; keys this rotation may have made were kept (the target could not be read: {now.reason})"
        try:
            found = [k for k in self.manager.list_api_keys(account_id=self.account_id) if self._is_ours(k)]
            unused = [k for k in found if now is None or k.get("Key") != now.key]
            for key in unused:
                self.manager.revoke_api_key(key["Id"], missing_ok=True, account_id=self.account_id)
        except Exception as exc:
            return f"; looking for a key it may have made failed too ({self._text(exc)}): a retry finds it"
        return f"; {len(unused)} unused key(s) of this rotation revoked" if unused else ""

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

    # -- helpers ---------------------------------------------------------------------------------------------

    def _checkpoint(self, name: str) -> None:
        if self._on_step is not None:
            self._on_step(name)

    def _save(self, **fields: Any) -> None:
        self.state.update(fields)
        self.store.set(self.state_key, dict(self.state))

    def _unchanged(self) -> str:
        return f"the old key {self._old_id}, unchanged" if self._old_id is not None else "what it held before"

    def _describe(self, now: Credential | None | _Unknown, new: _NewKey) -> str:
        if isinstance(now, _Unknown):
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

    def _read(self) -> Credential | None | _Unknown:
        try:
            found = self.target.read()
        except Exception as exc:
            return _Unknown(self._text(exc))
        if found is not None and found.secret not in self._secrets:
            self._secrets.append(found.secret)
        return found

    def _read_or_fail(self, step: str, holds: str) -> Credential | None:
        found = self._read()
        if isinstance(found, _Unknown):
            raise RotationError(step, f"reading {self.target.name} failed: {found.reason}", target_holds=holds)
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
        )

    def _client_not_using(self, key: str, other: Credential | None) -> ApiMethods:
        """The manager, unless the manager authenticates with ``key`` (a connection rotating itself)."""
        auth = getattr(self._platform().session, "auth", None)
        manager_key = auth[0] if isinstance(auth, tuple) else None
        if manager_key == key and other is not None:
            return self._client_for(other)
        return self.manager

    def _verify(self, credential: Credential) -> None:
        with self._client_for(credential) as client:
            self._verify_call(client)


__all__ = [
    "CHECKPOINTS",
    "STEPS",
    "ApiKeyRotation",
    "RotationError",
    "RotationResult",
]
