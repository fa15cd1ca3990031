"""
The steps on the target in detail (``TargetUpdate`` in ``rotation/target_update.py``), in-process against the
emulator as in ``test_failure_points.py``, whose checks these reuse: a lease that fails to renew before the write, a
write that fails while the target ends up on something else, a read-back that shows nothing, another key or the new
key with another secret, and a target written by someone else after the last check (old key revoked or kept). Each
checks the error an operator reads (step, flags, key ids, what the target holds, the whole message), which key the
target holds and that it works, and which keys stay valid: a rotation never reports success unless the target holds
the verified new key, and never leaves a valid key of its own that the target does not hold.

Key ids as there: after the emulator's reset the seeded key is 1, the target's key 2, the rotation's key 3; a key
"another rotation" writes is made when it writes, so it is 4.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from messaging_platform_provider.client import CreateOnce
from messaging_platform_provider.rotation import (
    ApiKeyRotation,
    Credential,
    InMemoryTarget,
    RotationError,
    RotationLease,
    TargetNotConfigured,
)
from tests.rotation.test_failure_points import (
    NEW_LABEL,
    OLD,
    OTHER,
    SEEDED,
    TARGET,
    TOKEN,
    Account,
    Failed,
    Store,
    assert_no_secret,
    lease_kept,
    new,
    outcome_of,
    rotated,
)

ANOTHER = "another key (not this rotation's)"
OLD_BACK = "the old key 2 again, verified"


class Wrapped:
    """
    An ``InMemoryTarget`` seen through hooks: ``before_read(n)`` runs before its n-th read (from 1), ``shown(n,
    held)`` turns what that read returns into what consumers see, ``on_write(n, credential)`` replaces its n-th
    write, and ``lease`` replaces its lease.
    """

    def __init__(
        self,
        inner: InMemoryTarget,
        *,
        before_read: Callable[[int], None] | None = None,
        shown: Callable[[int, Credential | None], Credential | None] | None = None,
        on_write: Callable[[int, Credential], None] | None = None,
        lease: RotationLease | None = None,
    ) -> None:
        self.inner = inner
        self.before_read = before_read
        self.shown = shown
        self.on_write = on_write
        self._lease = lease
        self.reads = 0
        self.writes = 0

    @property
    def name(self) -> str:
        return self.inner.name

    def lease(self) -> RotationLease:
        return self._lease if self._lease is not None else self.inner.lease()

    def read(self) -> Credential | None:
        self.reads += 1
        if self.before_read is not None:
            self.before_read(self.reads)
        held = self.inner.read()
        return self.shown(self.reads, held) if self.shown is not None else held

    def write(self, credential: Credential) -> None:
        self.writes += 1
        if self.on_write is not None:
            self.on_write(self.writes, credential)
        else:
            self.inner.write(credential)


class RenewalFails:
    """The target's own lease, whose second acquire (the renewal before the write) fails with an error."""

    def __init__(self, inner: RotationLease) -> None:
        self.inner = inner
        self.acquired = 0

    def acquire(self, owner: str, seconds: float) -> None:
        self.acquired += 1
        if self.acquired == 2:
            raise RuntimeError("the lease table did not answer")
        self.inner.acquire(owner, seconds)

    def release(self, owner: str) -> None:
        self.inner.release(owner)


def workload(account: Account) -> InMemoryTarget:
    """The target, on a fresh key 2 of the account."""
    with account.manager() as manager:
        old = manager.create_api_key("Workload")
    assert old["Id"] == 2
    return InMemoryTarget(Credential(old["Key"], old["Secret"]), name=TARGET)


def other_key(account: Account) -> Credential:
    """Another rotation's key, made now."""
    with account.manager() as manager:
        other = manager.create_api_key("Other")
    return Credential(other["Key"], other["Secret"])


def rotation(account: Account, target: Any, store: Store, **kwargs: Any) -> ApiKeyRotation:
    return ApiKeyRotation(account.manager(), target, once=CreateOnce(TOKEN, store), **kwargs)


# -- the check that consumers read what is written (TargetUpdate.check_not_shadowed) -----------------------------------


class Checked(Wrapped):
    """A target that can tell whether consumers read what it stores: ``check(current)``, as ``shadowed_by``."""

    def __init__(self, inner: InMemoryTarget, check: Callable[[Credential | None], str | None]) -> None:
        super().__init__(inner)
        self.check = check

    def shadowed_by(self, current: Credential | None) -> str | None:
        return self.check(current)


def test_the_shadow_check_is_given_the_credential_consumers_read(account: Account) -> None:
    """As a secrets backend's check does: consumers read the key it stores, so nothing shadows it."""
    inner = workload(account)
    stored = inner.read()
    assert stored is not None

    def shadowed_unless_consumers_read_the_stored_key(current: Credential | None) -> str | None:
        return None if current is not None and current.key == stored.key else "a cache serves another key"

    assert outcome_of(rotation(account, Checked(inner, shadowed_unless_consumers_read_the_stored_key), Store())) == (
        rotated(3)
    )
    assert account.held_key(inner) == 3 and account.valid() == (SEEDED, new(3))


@pytest.mark.parametrize(
    ("error", "cannot_help"),
    [
        pytest.param(RuntimeError("the connection API did not answer"), False, id="a retry may help"),
        pytest.param(TargetNotConfigured("the connection API did not answer"), True, id="not configured"),
    ],
)
def test_a_shadow_check_that_fails_stops_before_any_key_is_made(
    account: Account, error: Exception, cannot_help: bool
) -> None:
    inner = workload(account)

    def fails(current: Credential | None) -> str | None:
        raise error

    outcome = outcome_of(rotation(account, Checked(inner, fails), Store()))
    assert outcome == Failed(
        "read_target",
        "API key rotation stopped at step 'read_target': checking that consumers read what vault kv messaging stores "
        f"failed: {type(error).__name__}: the connection API did not answer. The target holds what it held before "
        f"(nothing was changed).{' A retry cannot help.' if cannot_help else ''}",
        "what it held before (nothing was changed)",
        None,
        None,
        retry_cannot_help=cannot_help,
    )
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD)
    assert lease_kept(inner) is not cannot_help


def test_a_shadowed_target_stops_before_any_key_is_made_and_a_retry_cannot_help(account: Account) -> None:
    inner = workload(account)
    outcome = outcome_of(rotation(account, Checked(inner, lambda current: "a cache serves another key"), Store()))
    assert outcome == Failed(
        "read_target",
        "API key rotation stopped at step 'read_target': vault kv messaging is shadowed: a cache serves another key, "
        "so consumers would not see a new key; none was made. The target holds what it held before (nothing was "
        "changed). A retry cannot help.",
        "what it held before (nothing was changed)",
        None,
        None,
        retry_cannot_help=True,
    )
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD)
    assert lease_kept(inner) is False


# -- the sequence (rotate._rotate) -------------------------------------------------------------------------------


class Killed(BaseException):
    """The worker dies at a checkpoint."""


def dies_at(checkpoint: str) -> Callable[[str], None]:
    def on_step(step: str) -> None:
        if step == checkpoint:
            raise Killed(step)

    return on_step


def test_an_empty_target_stops_at_once(account: Account) -> None:
    inner = InMemoryTarget(None, name=TARGET)
    assert outcome_of(rotation(account, inner, Store())) == Failed(
        "read_target",
        "API key rotation stopped at step 'read_target': vault kv messaging holds no credential. The target holds "
        "nothing.",
        "nothing",
        None,
        None,
    )
    assert account.valid() == (SEEDED,) and inner.writes == 0


@pytest.mark.parametrize(
    ("checkpoint", "phase", "new_key_id"),
    [
        ("old_key_recorded", "old_key_recorded", None),
        ("new_key_created", "old_key_recorded", 3),
        ("stored", "stored", 3),
        ("old_key_revoked", "old_key_revoked", 3),
        (None, "done", 3),
    ],
)
def test_the_task_state_store_holds_the_documented_fields(
    account: Account, checkpoint: str | None, phase: str, new_key_id: int | None
) -> None:
    """docs/rotation.md: ``old_key_id``, ``old_key``, ``new_key_id`` and ``phase``, what a retry resumes from."""
    inner = workload(account)
    old = inner.read()
    assert old is not None
    store = Store()
    try:
        rotation(account, inner, store, on_step=dies_at(checkpoint or "")).run()
    except Killed:
        assert checkpoint is not None
    expected: dict[str, Any] = {"old_key_id": 2, "old_key": old.key, "phase": phase}
    if new_key_id is not None:
        expected["new_key_id"] = new_key_id
    assert store[f"messaging_platform:rotate_api_key:{TOKEN}"] == expected


def test_a_retry_that_finds_another_key_of_this_run_in_the_target_stops_before_verifying(account: Account) -> None:
    """A key with the run's marker that is not the key this try made: written by someone else, left alone."""
    inner = workload(account)
    store = Store()
    with pytest.raises(Killed):
        rotation(account, inner, store, on_step=dies_at("new_key_created")).run()
    with account.manager() as manager:
        stray = manager.create_api_key(NEW_LABEL)
    inner.write(Credential(stray["Key"], stray["Secret"]))
    passed: list[str] = []
    outcome = outcome_of(rotation(account, inner, store, on_step=passed.append))
    assert outcome == Failed(
        "check_target",
        "API key rotation stopped at step 'check_target': another rotation changed the target since this one began; "
        "the unused new key 3 was revoked. The target holds another key (not this rotation's). A retry cannot help.",
        ANOTHER,
        2,
        3,
        retry_cannot_help=True,
    )
    assert passed == ["new_key_created"]  # not verified, not stored
    assert account.held_key(inner) == 4 and account.valid() == (SEEDED, OLD, new(4))
    assert lease_kept(inner) is False


def test_a_retry_that_finds_the_target_emptied_stops_and_revokes_its_unused_key(account: Account) -> None:
    inner = workload(account)
    store = Store()
    with pytest.raises(Killed):
        rotation(account, inner, store, on_step=dies_at("new_key_created")).run()
    inner.write(None)  # type: ignore[arg-type]  # someone deleted the credential between the tries
    assert outcome_of(rotation(account, inner, store)) == Failed(
        "check_target",
        "API key rotation stopped at step 'check_target': another rotation changed the target since this one began; "
        "1 unused key(s) of this rotation revoked. The target holds nothing. A retry cannot help.",
        "nothing",
        2,
        None,
        retry_cannot_help=True,
    )
    assert account.valid() == (SEEDED, OLD)


def test_without_a_task_state_store_a_retry_after_the_store_says_to_revoke_the_old_key_by_hand(
    account: Account,
) -> None:
    inner = workload(account)
    with pytest.raises(Killed):
        ApiKeyRotation(account.manager(), inner, once=CreateOnce(TOKEN, None), on_step=dies_at("stored")).run()
    retry = ApiKeyRotation(account.manager(), inner, once=CreateOnce(TOKEN, None))
    assert outcome_of(retry) == Failed(
        "find_old_key",
        "API key rotation stopped at step 'find_old_key': the target already holds this rotation's key 3 and the old "
        "key's id was not recorded (no task state store); revoke the previous key by hand. The target holds the new "
        "key 3.",
        "the new key 3",
        None,
        3,
    )
    assert account.held_key(inner) == 3 and account.valid() == (SEEDED, OLD, new(3))


# -- the store (TargetUpdate.store) ------------------------------------------------------------------------------------


def test_a_lease_renewal_that_fails_before_the_write_stops_and_the_retry_finishes(account: Account) -> None:
    inner = workload(account)
    old = inner.read()
    store = Store()
    target = Wrapped(inner, lease=RenewalFails(inner.lease()))
    outcome = outcome_of(rotation(account, target, store))
    assert outcome == Failed(
        "check_target",
        "API key rotation stopped at step 'check_target': renewing the lease failed before writing: RuntimeError: "
        "the lease table did not answer; the unused new key 3 was revoked. The target holds the old key 2.",
        "the old key 2",
        2,
        3,
    )
    assert_no_secret(outcome.message, account)
    assert inner.writes == 0
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD)
    assert lease_kept(inner) is True  # a retry can help: kept for it

    assert outcome_of(rotation(account, inner, store)) == rotated(4)
    assert account.held_key(inner) == 4 and account.valid() == (SEEDED, new(4))
    assert old is not None and account.works(old) is False


def test_a_failed_write_after_which_the_target_holds_another_rotations_key_leaves_that_key_alone(
    account: Account,
) -> None:
    """Neither the old key nor ours: not rolled back over the other rotation's key, and a retry cannot help."""
    inner = workload(account)

    def another_rotation_writes_then_the_write_fails(n: int, credential: Credential) -> None:
        inner.write(other_key(account))
        raise OSError("the secrets backend answered 409: a newer version exists")

    target = Wrapped(inner, on_write=another_rotation_writes_then_the_write_fails)
    outcome = outcome_of(rotation(account, target, Store()))
    assert outcome == Failed(
        "store",
        "API key rotation stopped at step 'store': writing to vault kv messaging failed: OSError: the secrets backend "
        "answered 409: a newer version exists, and the target now holds something else; the target holds another "
        "rotation's key, so it was left alone; the unused new key 3 was revoked. The target holds another key (not "
        "this rotation's). A retry cannot help.",
        ANOTHER,
        2,
        3,
        retry_cannot_help=True,
    )
    assert_no_secret(outcome.message, account)
    assert target.writes == 1  # no roll back over the other key
    assert account.held_key(inner) == 4 and account.valid() == (SEEDED, OLD, OTHER)
    assert lease_kept(inner) is False


def test_a_failed_write_that_left_the_target_empty_rolls_back_to_the_old_key(account: Account) -> None:
    inner = workload(account)
    old = inner.read()

    def empties_then_fails(n: int, credential: Credential) -> None:
        if n == 1:
            inner.write(None)  # type: ignore[arg-type]  # a backend that deleted before it failed to put
            raise OSError("the secrets backend answered 500 after deleting the entry")
        inner.write(credential)

    outcome = outcome_of(rotation(account, Wrapped(inner, on_write=empties_then_fails), Store()))
    assert outcome == Failed(
        "store",
        "API key rotation rolled back at step 'store': writing to vault kv messaging failed: OSError: the secrets "
        "backend answered 500 after deleting the entry, and the target now holds something else; rolled back to the "
        "old key 2; the unused new key 3 was revoked. The target holds the old key 2 again, verified.",
        OLD_BACK,
        2,
        3,
        rolled_back=True,
    )
    assert inner.read() == old
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD)


# -- the read-back (TargetUpdate.check_stored) -------------------------------------------------------------------------

READ_BACK = 3  # the rotation's reads: the target at first, before writing, then the read-back


def reads_back_empty(inner: InMemoryTarget, account: Account) -> Wrapped:
    return Wrapped(inner, shown=lambda n, held: None if n == READ_BACK else held)


def reads_back_another_key(inner: InMemoryTarget, account: Account) -> Wrapped:
    def another_rotation_writes(n: int) -> None:
        if n == READ_BACK:
            inner.write(other_key(account))

    return Wrapped(inner, before_read=another_rotation_writes)


def reads_back_another_secret(inner: InMemoryTarget, account: Account) -> Wrapped:
    def stale_secret(n: int, held: Credential | None) -> Credential | None:
        if n == READ_BACK and held is not None:
            return Credential(held.key, "a-secret-the-platform-never-issued-7c41d9")
        return held

    return Wrapped(inner, shown=stale_secret)


@pytest.mark.parametrize(
    ("make_target", "expected", "holds", "keys"),
    [
        pytest.param(
            reads_back_empty,
            Failed(
                "verify_stored",
                "API key rotation rolled back at step 'verify_stored': it reads back empty; rolled back to the old "
                "key 2; the unused new key 3 was revoked. The target holds the old key 2 again, verified.",
                OLD_BACK,
                2,
                3,
                rolled_back=True,
            ),
            2,
            (SEEDED, OLD),
            id="empty",
        ),
        pytest.param(
            reads_back_another_key,
            Failed(
                "verify_stored",
                "API key rotation stopped at step 'verify_stored': consumers see another key: another rotation wrote "
                "meanwhile; the target holds another rotation's key, so it was left alone; the unused new key 3 was "
                "revoked. The target holds another key (not this rotation's). A retry cannot help.",
                ANOTHER,
                2,
                3,
                retry_cannot_help=True,
            ),
            4,
            (SEEDED, OLD, OTHER),
            id="another key",
        ),
        pytest.param(
            reads_back_another_secret,
            Failed(
                "verify_stored",
                "API key rotation rolled back at step 'verify_stored': consumers see the new key with another "
                "secret; rolled back to the old key 2; the unused new key 3 was revoked. The target holds the old "
                "key 2 again, verified.",
                OLD_BACK,
                2,
                3,
                rolled_back=True,
            ),
            2,
            (SEEDED, OLD),
            id="the new key with another secret",
        ),
    ],
)
def test_a_read_back_that_is_not_the_new_credential_never_ends_in_success(
    account: Account,
    make_target: Callable[[InMemoryTarget, Account], Wrapped],
    expected: Failed,
    holds: int,
    keys: tuple[tuple[int, str], ...],
) -> None:
    inner = workload(account)
    outcome = outcome_of(rotation(account, make_target(inner, account), Store()))
    assert outcome == expected
    assert_no_secret(expected.message, account)
    assert account.held_key(inner) == holds and account.valid() == keys


# -- the last read (TargetUpdate.confirm) ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("revoke_old", "last_checkpoint", "old_key", "keys"),
    [
        pytest.param(True, "old_key_revoked", "the old key 2 was revoked", (SEEDED, OTHER), id="old key revoked"),
        pytest.param(False, "stored_verified", "the old key 2 is valid", (SEEDED, OLD, OTHER), id="old key kept"),
    ],
)
def test_a_target_written_by_someone_else_at_the_end_is_reported_with_what_it_holds(
    account: Account, revoke_old: bool, last_checkpoint: str, old_key: str, keys: tuple[tuple[int, str], ...]
) -> None:
    inner = workload(account)

    def someone_writes(step: str) -> None:
        if step == last_checkpoint:
            inner.write(other_key(account))

    outcome = outcome_of(rotation(account, inner, Store(), revoke_old=revoke_old, on_step=someone_writes))
    assert outcome == Failed(
        "confirm_target",
        "API key rotation stopped at step 'confirm_target': the target changed at the end (someone wrote it after "
        f"this rotation's checks); {old_key}; 1 unused key(s) of this rotation revoked. The target holds another key "
        "(not this rotation's). A retry cannot help.",
        ANOTHER,
        2,
        3,
        retry_cannot_help=True,
    )
    assert account.held_key(inner) == 4 and account.valid() == keys
    assert lease_kept(inner) is False


# -- the lease at the start (rotate.run) -------------------------------------------------------------------------


class FirstAcquireFails(RenewalFails):
    def acquire(self, owner: str, seconds: float) -> None:
        raise RuntimeError("the lease table did not answer")


@pytest.mark.parametrize("held_by_another", [True, False], ids=["held by another rotation", "taking it failed"])
def test_a_lease_not_taken_at_the_start_changes_nothing(account: Account, held_by_another: bool) -> None:
    inner = workload(account)
    if held_by_another:
        inner.lease().acquire("af:another", 60)
    lease = None if held_by_another else FirstAcquireFails(inner.lease())
    with pytest.raises(RotationError) as caught:
        rotation(account, Wrapped(inner, lease=lease), Store()).run()
    error = caught.value
    assert (error.step, error.target_holds, error.retry_cannot_help) == (
        "acquire_lease",
        "what it held before (nothing was changed)",
        held_by_another,
    )
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD)
