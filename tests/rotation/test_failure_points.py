"""
Every failure point of the API key rotation (``docs/reliability.md``, "API key rotation: zero lockouts"), fast: no
metadata database, no ``dag.test()``, no Airflow API server. The rotation runs in-process against the emulator with
an ``InMemoryTarget`` behind a scripted wrapper (its n-th read or write fails, another rotation writes before a read,
or consumers keep seeing the old credential); platform calls fail through emulator faults; a killed worker is an
exception raised at a checkpoint that nothing in the rotation catches.

For each point: the error exactly (step, flags, key ids, what the target holds in words, the whole message, with
no secret in it), what the target holds afterwards and that it works (a real platform call), exactly which keys of
the account stay valid, whether the lease is kept for the retry; then a second run with the same run token and
task state store (Airflow's retry of the task) and the same checks. Expected values are written out: after the
emulator's reset, the seeded key is 1 and the target's key 2, so the rotation's keys are 3, 4, ...

``tests/rotation/test_rotation_failures.py`` checks the same points through a DAG, an API server and the metadata
database; ``test_rotation_seams.py`` has the malformed key answers and the lease held by another rotation.
"""

from __future__ import annotations

import base64
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from messaging_platform_provider.client import CreateOnce, MessagingPlatformApiError, MessagingPlatformClient
from messaging_platform_provider.rotation import (
    ApiKeyRotation,
    Credential,
    InMemoryTarget,
    LeaseHeld,
    RotationError,
    RotationResult,
)
from messaging_platform_provider.rotation.platform_keys import key_id

TOKEN = "f00df00df00df00d"
NEW_LABEL = "Rotated by Airflow [af:f00df00df00df00d]"
TARGET = "vault kv messaging"
SEEDED = (1, "Seeded key")
OLD = (2, "Workload")
OTHER = (4, "Other")
ALL_CHECKPOINTS = (
    "old_key_recorded",
    "new_key_created",
    "new_key_verified",
    "stored",
    "stored_verified",
    "old_key_revoked",
)
RESUMED = ("an earlier try had stored the new key; resumed at the read-back",)
LIST_500 = "GET /account/1001/api-key failed with HTTP 500: Injected fault: HTTP 500. (code 0)"
CAMPAIGN_401 = "GET /account/1001/campaign failed with HTTP 401: Injected fault: HTTP 401. (code 0)"
UNREADABLE = "RuntimeError: the secrets backend did not answer (its cache: ***)"


def new(key_id: int) -> tuple[int, str]:
    """A key this rotation made, as the listing shows it."""
    return (key_id, NEW_LABEL)


def rotated(new_key_id: int, *notes: str, resumed: bool = False, account: int = 1001) -> RotationResult:
    """A finished rotation of the target's key 2 (of account 1001; of the other account, its key 3)."""
    return RotationResult(
        target=TARGET,
        old_key_id=2 if account == 1001 else 3,
        new_key_id=new_key_id,
        new_key_label=NEW_LABEL,
        old_key_revoked=True,
        resumed=resumed,
        notes=notes,
    )


class Store(dict[str, Any]):
    """Stands in for the task state store."""

    def set(self, key: str, value: Any) -> None:
        self[key] = value


class Killed(BaseException):
    """The worker dies between two steps: nothing of the rotation catches it, so nothing is cleaned up."""


class Manager(MessagingPlatformClient):
    """The manager's client, noting every secret the platform answers (for the secret checks of error text)."""

    seen: set[str]

    def _note(self, answer: dict[str, Any]) -> dict[str, Any]:
        if answer.get("Secret"):
            self.seen.add(str(answer["Secret"]))
        return answer

    def create_api_key(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return self._note(super().create_api_key(*args, **kwargs))

    def get_api_key(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return self._note(super().get_api_key(*args, **kwargs))


@dataclass(frozen=True)
class Inject:
    """
    What goes wrong: emulator ``faults``; the n-th ``reads``/``writes`` of the target (from 1) ``"fail"`` or, for a
    write, ``"land_then_fail"``; another rotation writes its key before read ``other_before_read``; the worker is
    ``kill``ed after that checkpoint; ``shadow``: consumers keep reading the credential the target held at first.
    """

    faults: tuple[dict[str, Any], ...] = ()
    reads: dict[int, str] = field(default_factory=dict)
    writes: dict[int, str] = field(default_factory=dict)
    other_before_read: int | None = None
    kill: str | None = None
    shadow: bool = False


class ScriptedTarget:
    """
    An ``InMemoryTarget`` (its lease too) whose reads and writes fail as ``Inject`` says. Its errors repeat the
    secret they concern, as a careless secrets backend might: the rotation must scrub it from its own error text.
    The first read names no secret (the rotation cannot know one before it has read the target).
    """

    def __init__(self, inner: InMemoryTarget, inject: Inject, other_rotation: Any) -> None:
        self.inner = inner
        self.inject = inject
        self.other_rotation = other_rotation
        self.shadow = inner.read() if inject.shadow else None
        self.reads = 0
        self.writes = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def lease(self) -> Any:
        return self.inner.lease()

    def read(self) -> Credential | None:
        self.reads += 1
        if self.inject.other_before_read == self.reads:
            self.other_rotation()
        if self.inject.reads.get(self.reads) == "fail":
            held = self.inner.read()
            if self.reads == 1 or held is None:
                raise RuntimeError("the secrets backend did not answer")
            raise RuntimeError(f"the secrets backend did not answer (its cache: {held.secret})")
        return self.shadow if self.shadow is not None else self.inner.read()

    def write(self, credential: Credential) -> None:
        self.writes += 1
        action = self.inject.writes.get(self.writes)
        if action == "fail":
            raise OSError(f"the secrets backend answered 503 to the secret {credential.secret}")
        self.inner.write(credential)
        if action == "land_then_fail":
            raise TimeoutError(f"the answer to the write of {credential.secret} was lost")


@dataclass(frozen=True)
class Failed:
    """A ``RotationError``, field by field, and its whole text."""

    step: str
    message: str
    target_holds: str
    old_key_id: int | None
    new_key_id: int | None
    rolled_back: bool = False
    retry_cannot_help: bool = False

    @classmethod
    def of(cls, error: RotationError) -> Failed:
        return cls(
            error.step,
            str(error),
            error.target_holds,
            error.old_key_id,
            error.new_key_id,
            error.rolled_back,
            error.retry_cannot_help,
        )


@dataclass(frozen=True)
class Died:
    """The worker was killed after this checkpoint."""

    checkpoint: str


Outcome = Failed | Died | RotationResult


@dataclass(frozen=True)
class Point:
    """A failure point: what is injected, then what the run and its retry must leave (key ids, labels, words)."""

    inject: Inject
    outcome: Outcome
    checkpoints: tuple[str, ...]  # passed by the first run
    holds: int  # the key the target holds after it
    keys: tuple[tuple[int, str], ...]  # the account's valid keys after it
    lease_kept: bool  # for the retry (same owner); released when done or when a retry cannot help
    retry: Failed | RotationResult
    retry_holds: int
    retry_keys: tuple[tuple[int, str], ...]


# -- the failure points of docs/reliability.md, in its order --------------------------------------------------------

POINTS: dict[str, Point] = {
    "read_target": Point(
        Inject(reads={1: "fail"}),
        Failed(
            "read_target",
            "API key rotation stopped at step 'read_target': reading vault kv messaging failed: RuntimeError: the "
            "secrets backend did not answer. The target holds what it held before (nothing was changed).",
            "what it held before (nothing was changed)",
            None,
            None,
        ),
        (),
        2,
        (SEEDED, OLD),
        True,
        rotated(3),
        3,
        (SEEDED, new(3)),
    ),
    "find_old_key": Point(
        Inject(faults=({"kind": "status", "status": 500, "method": "GET", "path": "/api-key$"},)),
        Failed(
            "find_old_key",
            f"API key rotation stopped at step 'find_old_key': listing the API keys failed: {LIST_500}. The target "
            "holds what it held before.",
            "what it held before",
            None,
            None,
        ),
        (),
        2,
        (SEEDED, OLD),
        True,
        rotated(3),
        3,
        (SEEDED, new(3)),
    ),
    "create_answer_lost": Point(
        Inject(faults=({"kind": "commit_then_drop", "method": "POST", "path": "/api-key$"},)),
        rotated(3, "the first create failed or lost its answer; the second looked for the key by its marker first"),
        ALL_CHECKPOINTS,
        3,
        (SEEDED, new(3)),
        False,
        rotated(3, *RESUMED, resumed=True),
        3,
        (SEEDED, new(3)),
    ),
    "create_failed": Point(
        Inject(faults=({"kind": "status", "status": 503, "method": "POST", "path": "/api-key$", "count": 2},)),
        Failed(
            "create_new_key",
            "API key rotation stopped at step 'create_new_key': POST /account/1001/api-key failed with HTTP 503: "
            "Injected fault: HTTP 503. (code 0); then POST /account/1001/api-key failed with HTTP 503: Injected "
            "fault: HTTP 503. (code 0). The target holds the old key 2, unchanged.",
            "the old key 2, unchanged",
            None,
            None,
        ),
        ("old_key_recorded",),
        2,
        (SEEDED, OLD),
        True,
        rotated(3),
        3,
        (SEEDED, new(3)),
    ),
    "create_lost_reread_failed": Point(
        Inject(
            faults=(
                {"kind": "commit_then_drop", "method": "POST", "path": "/api-key$"},
                {"kind": "status", "status": 500, "method": "GET", "path": "/api-key/[0-9]+$"},
            )
        ),
        Failed(
            "create_new_key",
            "API key rotation stopped at step 'create_new_key': POST /account/1001/api-key failed: no response "
            "(ConnectionError: connection lost after the request was sent); then GET /account/1001/api-key/3 failed "
            "with HTTP 500: Injected fault: HTTP 500. (code 0); 1 unused key(s) of this rotation revoked. The target "
            "holds the old key 2, unchanged.",
            "the old key 2, unchanged",
            None,
            None,
        ),
        ("old_key_recorded",),
        2,
        (SEEDED, OLD),
        True,
        rotated(4),
        4,
        (SEEDED, new(4)),
    ),
    "verify_new_key": Point(
        Inject(faults=({"kind": "status", "status": 401, "method": "GET", "path": "/campaign$"},)),
        Failed(
            "verify_new_key",
            f"API key rotation stopped at step 'verify_new_key': the new key 3 failed a platform call: {CAMPAIGN_401}"
            "; the unused new key 3 was revoked. The target holds the old key 2.",
            "the old key 2",
            2,
            3,
        ),
        ("old_key_recorded", "new_key_created"),
        2,
        (SEEDED, OLD),
        True,
        rotated(4),
        4,
        (SEEDED, new(4)),
    ),
    "concurrent_rotation": Point(
        Inject(other_before_read=2),
        Failed(
            "check_target",
            "API key rotation stopped at step 'check_target': another rotation changed the target since this one "
            "began; the unused new key 3 was revoked. The target holds another key (not this rotation's). A retry "
            "cannot help.",
            "another key (not this rotation's)",
            2,
            3,
            retry_cannot_help=True,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified"),
        4,
        (SEEDED, OLD, OTHER),
        False,
        Failed(
            "check_target",
            "API key rotation stopped at step 'check_target': another rotation changed the target since this one "
            "began. The target holds another key (not this rotation's). A retry cannot help.",
            "another key (not this rotation's)",
            2,
            None,
            retry_cannot_help=True,
        ),
        4,
        (SEEDED, OLD, OTHER),
    ),
    "store_failed": Point(
        Inject(writes={1: "fail"}),
        Failed(
            "store",
            "API key rotation stopped at step 'store': writing to vault kv messaging failed: OSError: the secrets "
            "backend answered 503 to the secret ***; the unused new key 3 was revoked. The target holds the old "
            "key 2.",
            "the old key 2",
            2,
            3,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified"),
        2,
        (SEEDED, OLD),
        True,
        rotated(4),
        4,
        (SEEDED, new(4)),
    ),
    "store_answer_lost": Point(
        Inject(writes={1: "land_then_fail"}),
        rotated(3, "the store reported an error but had landed"),
        ALL_CHECKPOINTS,
        3,
        (SEEDED, new(3)),
        False,
        rotated(3, *RESUMED, resumed=True),
        3,
        (SEEDED, new(3)),
    ),
    "store_unknown": Point(
        Inject(writes={1: "land_then_fail"}, reads={3: "fail"}),
        Failed(
            "store",
            "API key rotation stopped at step 'store': writing to vault kv messaging failed: TimeoutError: the "
            f"answer to the write of *** was lost; reading it back failed too ({UNREADABLE}). No key was revoked: a "
            "retry of this task resumes. The target holds the old key 2 or the new key 3; both are valid.",
            "the old key 2 or the new key 3; both are valid",
            2,
            3,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified"),
        3,
        (SEEDED, OLD, new(3)),
        True,
        rotated(3, *RESUMED, resumed=True),
        3,
        (SEEDED, new(3)),
    ),
    "read_back_failed": Point(
        Inject(reads={3: "fail"}),
        Failed(
            "read_back",
            f"API key rotation stopped at step 'read_back': reading vault kv messaging back failed: {UNREADABLE}. No "
            "key was revoked: a retry of this task resumes. The target holds the new key 3 (written and verified "
            "before) or the old key; both are valid.",
            "the new key 3 (written and verified before) or the old key; both are valid",
            2,
            3,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified", "stored"),
        3,
        (SEEDED, OLD, new(3)),
        True,
        rotated(3, *RESUMED, resumed=True),
        3,
        (SEEDED, new(3)),
    ),
    "shadowed_connection": Point(
        Inject(shadow=True),
        Failed(
            "verify_stored",
            "API key rotation rolled back at step 'verify_stored': consumers still see the old key: something "
            "shadows what was written (an AIRFLOW_CONN_ variable, a secrets backend or a cache?); rolled back to "
            "the old key 2; the unused new key 3 was revoked. The target holds the old key 2 again, verified. A "
            "retry cannot help.",
            "the old key 2 again, verified",
            2,
            3,
            rolled_back=True,
            retry_cannot_help=True,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified", "stored"),
        2,
        (SEEDED, OLD),
        False,
        rotated(4),  # the shadow gone (the variable removed), as in the DAG
        4,
        (SEEDED, new(4)),
    ),
    "verify_stored": Point(
        Inject(
            faults=(
                {"kind": "delay", "delay": 0, "method": "GET", "path": "/campaign$"},
                {"kind": "status", "status": 401, "method": "GET", "path": "/campaign$"},
            )
        ),
        Failed(
            "verify_stored",
            "API key rotation rolled back at step 'verify_stored': the stored credential failed a platform call: "
            f"{CAMPAIGN_401}; rolled back to the old key 2; the unused new key 3 was revoked. The target holds the "
            "old key 2 again, verified.",
            "the old key 2 again, verified",
            2,
            3,
            rolled_back=True,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified", "stored"),
        2,
        (SEEDED, OLD),
        True,
        rotated(4),
        4,
        (SEEDED, new(4)),
    ),
    "roll_back_failed": Point(
        Inject(
            faults=(
                {"kind": "delay", "delay": 0, "method": "GET", "path": "/campaign$"},
                {"kind": "status", "status": 401, "method": "GET", "path": "/campaign$"},
            ),
            writes={2: "fail"},
        ),
        Failed(
            "roll_back",
            "API key rotation stopped at step 'roll_back': the stored credential failed a platform call: "
            f"{CAMPAIGN_401}; rolling back failed: OSError: the secrets backend answered 503 to the secret ***. No "
            "key was revoked: the old key 2 and the new key 3 are both valid. The target holds the new key 3.",
            "the new key 3",
            2,
            3,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified", "stored"),
        3,
        (SEEDED, OLD, new(3)),
        True,
        rotated(3, *RESUMED, resumed=True),
        3,
        (SEEDED, new(3)),
    ),
    "revoke_old_key": Point(
        Inject(faults=({"kind": "status", "status": 500, "method": "DELETE", "path": "/api-key/[0-9]+$"},)),
        Failed(
            "revoke_old_key",
            "API key rotation stopped at step 'revoke_old_key': revoking the old key 2 failed: DELETE "
            "/account/1001/api-key/2 failed with HTTP 500: Injected fault: HTTP 500. (code 0). It stays valid until "
            "a retry of this task revokes it. The target holds the new key 3, verified.",
            "the new key 3, verified",
            2,
            3,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified", "stored", "stored_verified"),
        3,
        (SEEDED, OLD, new(3)),
        True,
        rotated(3, *RESUMED, resumed=True),
        3,
        (SEEDED, new(3)),
    ),
    "killed_after_old_key_recorded": Point(
        Inject(kill="old_key_recorded"),
        Died("old_key_recorded"),
        ("old_key_recorded",),
        2,
        (SEEDED, OLD),
        True,
        rotated(3),
        3,
        (SEEDED, new(3)),
    ),
    "killed_after_new_key_created": Point(
        Inject(kill="new_key_created"),
        Died("new_key_created"),
        ("old_key_recorded", "new_key_created"),
        2,
        (SEEDED, OLD, new(3)),
        True,
        rotated(3),  # the same key 3, found again by the run's state
        3,
        (SEEDED, new(3)),
    ),
    "killed_after_new_key_verified": Point(
        Inject(kill="new_key_verified"),
        Died("new_key_verified"),
        ("old_key_recorded", "new_key_created", "new_key_verified"),
        2,
        (SEEDED, OLD, new(3)),
        True,
        rotated(3),
        3,
        (SEEDED, new(3)),
    ),
    "killed_after_stored": Point(
        Inject(kill="stored"),
        Died("stored"),
        ("old_key_recorded", "new_key_created", "new_key_verified", "stored"),
        3,
        (SEEDED, OLD, new(3)),
        True,
        rotated(3, *RESUMED, resumed=True),
        3,
        (SEEDED, new(3)),
    ),
    "killed_after_stored_verified": Point(
        Inject(kill="stored_verified"),
        Died("stored_verified"),
        ("old_key_recorded", "new_key_created", "new_key_verified", "stored", "stored_verified"),
        3,
        (SEEDED, OLD, new(3)),
        True,
        rotated(3, *RESUMED, resumed=True),
        3,
        (SEEDED, new(3)),
    ),
    "killed_after_old_key_revoked": Point(
        Inject(kill="old_key_revoked"),
        Died("old_key_revoked"),
        ALL_CHECKPOINTS,
        3,
        (SEEDED, new(3)),
        True,
        rotated(3, *RESUMED, resumed=True),  # the revoke again: 404, already gone
        3,
        (SEEDED, new(3)),
    ),
}

# -- beyond the table: the target unreadable at each later read --------------------------------------------------

MORE_POINTS: dict[str, Point] = {
    "read_before_store_failed": Point(
        Inject(reads={2: "fail"}),
        Failed(
            "check_target",
            "API key rotation stopped at step 'check_target': reading vault kv messaging before writing failed: "
            f"{UNREADABLE}; the unused new key 3 was revoked. The target holds the old key 2.",
            "the old key 2",
            2,
            3,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified"),
        2,
        (SEEDED, OLD),
        True,
        rotated(4),
        4,
        (SEEDED, new(4)),
    ),
    "read_before_revoke_failed": Point(
        Inject(reads={4: "fail"}),
        Failed(
            "revoke_old_key",
            "API key rotation stopped at step 'revoke_old_key': the old key 2 was not revoked: reading vault kv "
            f"messaging failed: {UNREADABLE}. The target holds unknown ({UNREADABLE}); the old key 2 and the new "
            "key 3 are both valid.",
            f"unknown ({UNREADABLE}); the old key 2 and the new key 3 are both valid",
            2,
            3,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified", "stored", "stored_verified"),
        3,
        (SEEDED, OLD, new(3)),
        True,
        rotated(3, *RESUMED, resumed=True),
        3,
        (SEEDED, new(3)),
    ),
    "last_read_failed": Point(
        Inject(reads={5: "fail"}),
        Failed(
            "confirm_target",
            "API key rotation stopped at step 'confirm_target': reading vault kv messaging at the end failed: "
            f"{UNREADABLE}. A retry of this task confirms it. The target holds the new key 3 (read back and "
            "verified before).",
            "the new key 3 (read back and verified before)",
            2,
            3,
        ),
        ALL_CHECKPOINTS,
        3,
        (SEEDED, new(3)),
        True,
        rotated(3, *RESUMED, resumed=True),
        3,
        (SEEDED, new(3)),
    ),
}


# -- checks ----------------------------------------------------------------------------------------------------------


class Account:
    """One account of the emulator as the checks see it, through a client of its own (not the code under test)."""

    def __init__(
        self, platform: Any, account_id: int, key: str, secret: str, default_account: int, old_id: int
    ) -> None:
        self.platform = platform
        self.account_id = account_id
        self.old_id = old_id  # the id the target's key gets
        self.seen: set[str] = {secret}
        self.credentials = (key, secret, default_account)

    def manager(self) -> Manager:
        """A fresh manager, as each try of a task builds its hook: the account's key, its client's default account."""
        key, secret, default_account = self.credentials
        manager = Manager(self.platform.base_url, key, secret, account_id=default_account)
        manager.seen = self.seen
        return manager

    def manager_signing_with(self, credential: Credential) -> Manager:
        """A manager that signs with ``credential`` (a retry whose connection holds the rotated key)."""
        manager = Manager(self.platform.base_url, credential.key, credential.secret, account_id=self.credentials[2])
        manager.seen = self.seen
        return manager

    def keys(self) -> list[dict[str, Any]]:
        with self.manager() as manager:
            return manager.list_api_keys(account_id=self.account_id)

    def valid(self) -> tuple[tuple[int, str], ...]:
        """The account's keys that are not revoked: (id, label)."""
        return tuple((k["Id"], k["Label"]) for k in self.keys())

    def works(self, credential: Credential) -> bool:
        """A real platform call with ``credential``: False when the platform refuses it (401)."""
        client = MessagingPlatformClient(
            self.platform.base_url, credential.key, credential.secret, account_id=self.account_id
        )
        with client:
            try:
                client.list_campaigns(only_mine=True)
            except MessagingPlatformApiError as exc:
                assert exc.status == 401, exc
                return False
        return True

    def held_key(self, target: InMemoryTarget) -> int:
        """The id of the key ``target`` holds, after checking its secret is that key's and that it works."""
        held = target.read()
        assert held is not None, "the target holds nothing"
        (found,) = [k["Id"] for k in self.keys() if k["Key"] == held.key]
        with self.manager() as manager:
            assert manager.get_api_key(found, account_id=self.account_id)["Secret"] == held.secret
        assert self.works(held), "lockout: the target's credential does not work"
        return int(found)

    def secrets(self) -> set[str]:
        """Every secret seen so far: answered to the managers, or sent by anyone (HTTP Basic)."""
        return self.seen | wire_secrets(self.platform)


def wire_secrets(platform: Any) -> set[str]:
    """The passwords of the HTTP Basic headers of every request the emulator recorded."""

    found = set()
    for record in platform.control.requests():
        auth = {k.lower(): v for k, v in (record.get("headers") or {}).items()}.get("authorization", "")
        if auth.startswith("Basic "):
            found.add(base64.b64decode(auth[6:]).decode().split(":", 1)[1])
    return {s for s in found if s}


def assert_no_secret(text: str, account: Account) -> None:
    secrets = account.secrets()
    assert len(secrets) >= 2
    assert [s for s in secrets if s in text] == []


def lease_kept(target: InMemoryTarget) -> bool:
    """Whether a rotation with another run token is refused (then nothing is changed)."""
    try:
        target.lease().acquire("af:somebody-else", 60)
    except LeaseHeld:
        return True
    target.lease().release("af:somebody-else")
    return False


def outcome_of(rotation: ApiKeyRotation) -> Outcome:
    try:
        return rotation.run()
    except RotationError as exc:
        again = pickle.loads(pickle.dumps(exc))  # an error crosses process boundaries (Airflow's task runner)
        assert Failed.of(again) == Failed.of(exc)
        return Failed.of(exc)
    except Killed as exc:
        return Died(str(exc))


def drive(platform: Any, account: Account, point: Point, *, rotation_account: int | None = None) -> None:
    """Run ``point``'s failure, check what it left, run the retry, check again."""
    with account.manager() as manager:
        old = manager.create_api_key("Workload", account_id=account.account_id)
    assert old["Id"] == account.old_id
    old_credential = Credential(old["Key"], old["Secret"])
    inner = InMemoryTarget(old_credential, name=TARGET)

    def other_rotation() -> None:
        with account.manager() as other_manager:
            other = other_manager.create_api_key("Other", account_id=account.account_id)
        inner.write(Credential(other["Key"], other["Secret"]))

    passed: list[str] = []

    def on_step(step: str) -> None:
        passed.append(step)
        if step == point.inject.kill:
            raise Killed(step)

    for rule in point.inject.faults:
        platform.control.add_fault(**rule)
    store = Store()
    target = ScriptedTarget(inner, point.inject, other_rotation)
    first = ApiKeyRotation(
        account.manager(), target, once=CreateOnce(TOKEN, store), account_id=rotation_account, on_step=on_step
    )
    assert outcome_of(first) == point.outcome
    assert platform.control.faults() == [], "a fault was not used: the point was not reached"
    assert tuple(passed) == point.checkpoints
    if isinstance(point.outcome, Failed):
        assert_no_secret(point.outcome.message, account)
    assert account.held_key(inner) == point.holds
    assert account.valid() == point.keys
    assert account.works(old_credential) is (account.old_id in dict(point.keys))
    assert lease_kept(inner) is point.lease_kept

    # Airflow's retry of the task: a new try (a new manager), the same run token and task state store, no fault.
    retry = ApiKeyRotation(account.manager(), inner, once=CreateOnce(TOKEN, store), account_id=rotation_account)
    outcome = outcome_of(retry)
    assert outcome == point.retry
    if isinstance(outcome, Failed):
        assert_no_secret(outcome.message, account)
    assert account.held_key(inner) == point.retry_holds
    assert account.valid() == point.retry_keys
    assert account.works(old_credential) is (account.old_id in dict(point.retry_keys))
    assert lease_kept(inner) is False  # done, or stopped for good: released


def workload(account: Account) -> tuple[Credential, InMemoryTarget]:
    """The target's key 2 (made now) and a target holding it."""
    with account.manager() as manager:
        old = manager.create_api_key("Workload")
    assert old["Id"] == 2
    credential = Credential(old["Key"], old["Secret"])
    return credential, InMemoryTarget(credential, name=TARGET)


@pytest.mark.parametrize("name", list(POINTS))
def test_a_failure_point_leaves_a_working_key_and_the_retry_finishes(platform, account, name):
    drive(platform, account, POINTS[name])


@pytest.mark.parametrize("name", list(MORE_POINTS))
def test_an_unreadable_target_at_a_later_read_leaves_a_working_key(platform, account, name):
    drive(platform, account, MORE_POINTS[name])


def test_the_table_has_every_failure_point_of_the_reliability_docs():
    assert list(POINTS) == [
        "read_target",
        "find_old_key",
        "create_answer_lost",
        "create_failed",
        "create_lost_reread_failed",
        "verify_new_key",
        "concurrent_rotation",
        "store_failed",
        "store_answer_lost",
        "store_unknown",
        "read_back_failed",
        "shadowed_connection",
        "verify_stored",
        "roll_back_failed",
        "revoke_old_key",
        *(f"killed_after_{checkpoint}" for checkpoint in ALL_CHECKPOINTS),
    ]


# -- another account than the manager's default ------------------------------------------------------------------
#
# The emulator makes other accounts (``POST /_emulator/accounts``; the NewAccount event takes a parent), but a key
# reaches its own account only (``services/access.can_access``: no sub-account access), so the account id is passed
# through to the path. The manager here is a client of account 1002's key whose default account is 1001: any call
# that drops ``account_id=`` goes to /account/1001/ and is refused (404), and the request record shows the paths.
# After the reset, account 1002's own key is 2, the target's key 3, so the rotation's keys are 4, 5, ...

TENANT_KEY = (2, "Tenant key")
TENANT_OLD = (3, "Workload")

TENANT_POINTS: dict[str, Point] = {
    "rotated": Point(
        Inject(),
        rotated(4, account=1002),
        ALL_CHECKPOINTS,
        4,
        (TENANT_KEY, new(4)),
        False,
        rotated(4, *RESUMED, resumed=True, account=1002),
        4,
        (TENANT_KEY, new(4)),
    ),
    "verify_new_key": Point(  # the unused new key revoked (recovery._revoke_unused)
        Inject(faults=({"kind": "status", "status": 401, "method": "GET", "path": "/campaign$"},)),
        Failed(
            "verify_new_key",
            "API key rotation stopped at step 'verify_new_key': the new key 4 failed a platform call: GET "
            "/account/1002/campaign failed with HTTP 401: Injected fault: HTTP 401. (code 0); the unused new key 4 "
            "was revoked. The target holds the old key 3.",
            "the old key 3",
            3,
            4,
        ),
        ("old_key_recorded", "new_key_created"),
        3,
        (TENANT_KEY, TENANT_OLD),
        True,
        rotated(5, account=1002),
        5,
        (TENANT_KEY, new(5)),
    ),
    "create_lost_reread_failed": Point(  # the marked keys looked for and revoked (recovery._discard_marked_keys)
        POINTS["create_lost_reread_failed"].inject,
        Failed(
            "create_new_key",
            "API key rotation stopped at step 'create_new_key': POST /account/1002/api-key failed: no response "
            "(ConnectionError: connection lost after the request was sent); then GET /account/1002/api-key/4 failed "
            "with HTTP 500: Injected fault: HTTP 500. (code 0); 1 unused key(s) of this rotation revoked. The target "
            "holds the old key 3, unchanged.",
            "the old key 3, unchanged",
            None,
            None,
        ),
        ("old_key_recorded",),
        3,
        (TENANT_KEY, TENANT_OLD),
        True,
        rotated(5, account=1002),
        5,
        (TENANT_KEY, new(5)),
    ),
    "concurrent_rotation": Point(  # the retry looks the target's key up (base._key_info)
        Inject(other_before_read=2),
        Failed(
            "check_target",
            "API key rotation stopped at step 'check_target': another rotation changed the target since this one "
            "began; the unused new key 4 was revoked. The target holds another key (not this rotation's). A retry "
            "cannot help.",
            "another key (not this rotation's)",
            3,
            4,
            retry_cannot_help=True,
        ),
        ("old_key_recorded", "new_key_created", "new_key_verified"),
        5,
        (TENANT_KEY, TENANT_OLD, (5, "Other")),
        False,
        Failed(
            "check_target",
            "API key rotation stopped at step 'check_target': another rotation changed the target since this one "
            "began. The target holds another key (not this rotation's). A retry cannot help.",
            "another key (not this rotation's)",
            3,
            None,
            retry_cannot_help=True,
        ),
        5,
        (TENANT_KEY, TENANT_OLD, (5, "Other")),
    ),
    "killed_after_stored": Point(  # the retry resumes: the target's key looked up, the old key revoked
        Inject(kill="stored"),
        Died("stored"),
        ("old_key_recorded", "new_key_created", "new_key_verified", "stored"),
        4,
        (TENANT_KEY, TENANT_OLD, new(4)),
        True,
        rotated(4, *RESUMED, resumed=True, account=1002),
        4,
        (TENANT_KEY, new(4)),
    ),
}


@pytest.fixture
def tenant(platform: Any) -> Account:
    """Account 1002 through its own key, in a client whose default account is the seeded 1001."""
    made = platform.control.create_account("Tenant")
    assert (made["account_id"], made["api_key_id"]) == (1002, 2)
    return Account(platform, 1002, made["api_key"], made["api_secret"], 1001, old_id=3)


def assert_all_requests_went_to(platform: Any, account_id: int) -> None:
    paths = [r["path"] for r in platform.control.requests()]
    assert len(paths) > 5
    assert [p for p in paths if not p.startswith(f"/api/v2.1/account/{account_id}/")] == []


@pytest.mark.parametrize("name", list(TENANT_POINTS))
def test_a_rotation_on_another_account_than_the_managers_default(platform, tenant, name):
    drive(platform, tenant, TENANT_POINTS[name], rotation_account=1002)
    assert_all_requests_went_to(platform, 1002)


def test_a_retry_whose_stored_key_fails_rolls_back_with_the_old_secret_read_from_the_platform(platform, tenant):
    """
    A retry after the worker died past the store never saw the old secret: to roll back it re-reads it (single-key
    GET, on the rotation's account), puts it back, verifies it and revokes the new key.
    """
    with tenant.manager() as manager:
        old = manager.create_api_key("Workload", account_id=1002)
    old_credential = Credential(old["Key"], old["Secret"])
    target = InMemoryTarget(old_credential, name=TARGET)
    store = Store()

    def die_after_store(step: str) -> None:
        if step == "stored":
            raise Killed(step)

    first = ApiKeyRotation(
        tenant.manager(), target, once=CreateOnce(TOKEN, store), account_id=1002, on_step=die_after_store
    )
    assert outcome_of(first) == Died("stored")
    platform.control.add_fault(kind="status", status=401, method="GET", path="/campaign$")
    retry = ApiKeyRotation(tenant.manager(), target, once=CreateOnce(TOKEN, store), account_id=1002)
    expected = Failed(
        "verify_stored",
        "API key rotation rolled back at step 'verify_stored': the stored credential failed a platform call: GET "
        "/account/1002/campaign failed with HTTP 401: Injected fault: HTTP 401. (code 0); rolled back to the old key "
        "3; the unused new key 4 was revoked. The target holds the old key 3 again, verified.",
        "the old key 3 again, verified",
        3,
        4,
        rolled_back=True,
    )
    assert outcome_of(retry) == expected
    assert_no_secret(expected.message, tenant)
    assert platform.control.faults() == []
    assert [r["path"] for r in platform.control.requests() if r["method"] == "GET" and "/api-key/" in r["path"]][
        -1:
    ] == ["/api/v2.1/account/1002/api-key/3"]  # the old secret, re-read
    assert target.read() == old_credential and target.writes == 2  # the new key, then the old one back
    assert tenant.held_key(target) == 3
    assert tenant.valid() == (TENANT_KEY, TENANT_OLD)
    assert_all_requests_went_to(platform, 1002)

    third = ApiKeyRotation(tenant.manager(), target, once=CreateOnce(TOKEN, store), account_id=1002)
    assert outcome_of(third) == rotated(5, account=1002)
    assert tenant.held_key(target) == 5 and tenant.valid() == (TENANT_KEY, new(5))
    assert tenant.works(old_credential) is False


def test_a_connection_of_another_account_rotating_its_own_key(platform, tenant):
    """The manager's own key is the old key: verified and revoked with clients on the rotation's account."""
    key, secret, _ = tenant.credentials
    target = InMemoryTarget(Credential(key, secret), name=TARGET)
    result = ApiKeyRotation(tenant.manager(), target, once=CreateOnce(TOKEN, Store()), account_id=1002).run()
    assert result == RotationResult(TARGET, 2, 3, NEW_LABEL, True)
    held = target.read()
    assert held is not None and tenant.works(held) and not tenant.works(Credential(key, secret))
    tenant.credentials = (held.key, held.secret, 1001)  # the checks' own client: the old key is gone
    assert tenant.held_key(target) == 3 and tenant.valid() == ((3, NEW_LABEL),)
    assert_all_requests_went_to(platform, 1002)


# -- revoke_old=False ------------------------------------------------------------------------------------------------


def test_without_revoking_the_old_key_stays_valid_and_its_id_is_returned(platform, account):
    with account.manager() as manager:
        old = manager.create_api_key("Workload")
    old_credential = Credential(old["Key"], old["Secret"])
    target = InMemoryTarget(old_credential, name=TARGET)
    passed: list[str] = []
    rotation = ApiKeyRotation(
        account.manager(), target, once=CreateOnce(TOKEN, Store()), revoke_old=False, on_step=passed.append
    )
    result = rotation.run()
    assert result == RotationResult(TARGET, 2, 3, NEW_LABEL, False)
    assert result.to_xcom() == {
        "outcome": "rotated",
        "target": TARGET,
        "old_key_id": 2,
        "new_key_id": 3,
        "new_key_label": NEW_LABEL,
        "old_key_revoked": False,
        "resumed": False,
        "notes": [],
    }
    assert passed == ["old_key_recorded", "new_key_created", "new_key_verified", "stored", "stored_verified"]
    assert account.held_key(target) == 3
    assert account.valid() == (SEEDED, OLD, new(3))
    assert account.works(old_credential) is True
    assert not [r for r in platform.control.requests() if r["method"] == "DELETE"]
    assert lease_kept(target) is False


# -- key ids the platform may send as text -------------------------------------------------------------------------


class ManagerProxy:
    """A manager that passes every call on to ``manager``; a subclass overrides the calls it changes."""

    def __init__(self, manager: Manager) -> None:
        self._manager = manager

    @property
    def client(self) -> Manager:
        return self._manager

    def __getattr__(self, name: str) -> Any:
        return getattr(self._manager, name)


class IdAs(ManagerProxy):
    """The manager, whose create answers carry the new key's ``Id`` as ``shown`` makes it (the key itself is made)."""

    def __init__(self, manager: Manager, shown: Any) -> None:
        super().__init__(manager)
        self._shown = shown

    def create_api_key(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        answer = dict(self._manager.create_api_key(*args, **kwargs))
        answer["Id"] = self._shown(answer["Id"])
        return answer


@pytest.mark.parametrize(
    "shown",
    [
        pytest.param(str, id="digits"),
        pytest.param(lambda i: f" {i}\n", id="digits with blanks"),
    ],
)
def test_a_key_id_sent_as_its_digits_is_a_whole_number(platform, account, shown):
    with account.manager() as manager:
        old = manager.create_api_key("Workload")
    target = InMemoryTarget(Credential(old["Key"], old["Secret"]), name=TARGET)
    result = ApiKeyRotation(IdAs(account.manager(), shown), target, once=CreateOnce(TOKEN, Store())).run()
    assert result == RotationResult(TARGET, 2, 3, NEW_LABEL, True)
    assert type(result.new_key_id) is int
    assert account.held_key(target) == 3 and account.valid() == (SEEDED, new(3))


def test_a_key_id_that_is_a_boolean_is_malformed(platform, account):
    """``True`` is an ``int`` to Python, not an id: the key made is revoked, a retry cannot help."""
    with account.manager() as manager:
        old = manager.create_api_key("Workload")
    target = InMemoryTarget(Credential(old["Key"], old["Secret"]), name=TARGET)
    rotation = ApiKeyRotation(IdAs(account.manager(), lambda i: True), target, once=CreateOnce(TOKEN, Store()))
    assert outcome_of(rotation) == Failed(
        "create_new_key",
        "API key rotation stopped at step 'create_new_key': the platform answered the create with a malformed key "
        "(no valid Id); 1 unused key(s) of this rotation revoked; the new key is not used. The target holds the old "
        "key 2, unchanged. A retry cannot help.",
        "the old key 2, unchanged",
        None,
        None,
        retry_cannot_help=True,
    )
    assert account.held_key(target) == 2 and account.valid() == (SEEDED, OLD)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (17, 17),
        ("17", 17),
        (" 17\n", 17),
        ("", None),
        ("  ", None),
        ("-17", None),
        ("+17", None),
        ("17.0", None),
        ("k-17", None),
        (17.0, None),
        (True, None),
        (False, None),
        (None, None),
        ([17], None),
    ],
)
def test_key_id(value, expected):
    assert key_id(value) == expected
