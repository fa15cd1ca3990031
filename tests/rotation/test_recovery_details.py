"""
What a rotation's recovery (``Recovery`` in ``rotation/target_update.py``) does at the failure points the table of
``test_failure_points.py`` does not reach: a write that lands late, a target read that fails while stopping, another
rotation's key seen at the read-back, a rollback the target does not take, a retry after the store whose create
fails, and a revoke whose answer is lost. Each checks the whole error an operator reads, which keys of the account
stay valid and that the key the target holds works. After the emulator's reset, the seeded key is 1 and the target's
key 2, so the rotation's keys are 3, 4, ...
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any

import pytest

from messaging_platform_provider.client import CreateOnce, RetryPolicy
from messaging_platform_provider.rotation import (
    ApiKeyRotation,
    Credential,
    InMemoryLease,
    InMemoryTarget,
    rotate as rotate_module,
)
from tests.rotation.test_failure_points import (
    CAMPAIGN_401,
    OLD,
    OTHER,
    RESUMED,
    SEEDED,
    TOKEN,
    Account,
    Died,
    Failed,
    Killed,
    Manager,
    ManagerProxy,
    Store,
    assert_no_secret,
    lease_kept,
    new,
    outcome_of,
    rotated,
    workload,
)

Action = Callable[["Scripted"], None]


class Scripted:
    """
    An ``InMemoryTarget`` (its lease too) whose n-th read (from 1) runs ``before_read[n]`` first and whose n-th
    write runs ``on_write[n]`` instead of writing. A retry of the task uses ``inner``, without the script.
    """

    def __init__(
        self,
        inner: InMemoryTarget,
        before_read: dict[int, Action] | None = None,
        on_write: dict[int, Callable[[Scripted, Credential], None]] | None = None,
    ) -> None:
        self.inner = inner
        self.before_read = before_read or {}
        self.on_write = on_write or {}
        self.reads = 0
        self.writes = 0
        self.pending: Credential | None = None

    @property
    def name(self) -> str:
        return self.inner.name

    def lease(self) -> Any:
        return self.inner.lease()

    def read(self) -> Credential | None:
        self.reads += 1
        action = self.before_read.get(self.reads)
        if action is not None:
            action(self)
        return self.inner.read()

    def write(self, credential: Credential) -> None:
        self.writes += 1
        action = self.on_write.get(self.writes)
        if action is None:
            self.inner.write(credential)
        else:
            action(self, credential)


def empty(target: Scripted) -> None:
    """Someone deletes the secret."""
    target.inner._credential = None  # noqa: SLF001 - InMemoryTarget has no delete


def late_write(target: Scripted, credential: Credential) -> None:
    """The backend answers an error, but applies the write a little later (``land``)."""
    target.pending = credential
    raise OSError("the secrets backend answered 503")


def land(target: Scripted) -> None:
    assert target.pending is not None
    target.inner.write(target.pending)


def dropped_write(target: Scripted, credential: Credential) -> None:
    """The backend answers success but keeps what it held (an eventually consistent replica, say)."""


def wiping_write(target: Scripted, credential: Credential) -> None:
    """The write fails half-way, leaving nothing."""
    empty(target)
    raise OSError("the secrets backend lost the secret while writing")


def other_key(account: Account) -> Credential:
    """Another rotation's key (id 4 once the rotation made its key 3)."""
    with account.manager() as manager:
        other = manager.create_api_key("Other")
    return Credential(other["Key"], other["Secret"])


def run(account: Account, target: Any, store: Store, manager: Any = None, **options: Any) -> Any:
    manager = account.manager() if manager is None else manager
    return outcome_of(ApiKeyRotation(manager, target, once=CreateOnce(TOKEN, store), **options))


def die_at(checkpoint: str) -> Callable[[str], None]:
    def on_step(step: str) -> None:
        if step == checkpoint:
            raise Killed(step)

    return on_step


# -- stopping before the target took the new key (Recovery.abort) ------------------------------------------------------


def test_a_write_that_lands_after_its_error_keeps_the_new_key_the_target_now_holds(
    platform: Any, account: Account
) -> None:
    """
    The write answers an error and the target still reads the old key, but the write lands before the stop reads
    the target again: the new key is in use then and must not be revoked.
    """
    old, inner = workload(account)
    target = Scripted(inner, before_read={4: land}, on_write={1: late_write})
    store = Store()
    assert run(account, target, store) == Failed(
        "store",
        "API key rotation stopped at step 'store': writing to vault kv messaging failed: OSError: the secrets backend "
        "answered 503; the new key 3 was kept: the target holds it. The target holds the new key 3.",
        "the new key 3",
        2,
        3,
    )
    assert account.held_key(inner) == 3
    assert account.valid() == (SEEDED, OLD, new(3))
    assert lease_kept(inner)

    assert run(account, inner, store) == rotated(3, *RESUMED, resumed=True)
    assert account.held_key(inner) == 3 and account.valid() == (SEEDED, new(3))


def test_a_stop_that_cannot_read_the_target_keeps_the_new_key_for_the_retry(platform: Any, account: Account) -> None:
    """The new key fails its check; the target cannot be read then: nothing is revoked, the retry reuses the key."""
    old, inner = workload(account)

    def unreadable(target: Scripted) -> None:
        raise RuntimeError("the secrets backend did not answer")

    target = Scripted(inner, before_read={2: unreadable})
    platform.control.add_fault(kind="status", status=401, method="GET", path="/campaign$")
    store = Store()
    assert run(account, target, store) == Failed(
        "verify_new_key",
        f"API key rotation stopped at step 'verify_new_key': the new key 3 failed a platform call: {CAMPAIGN_401}; "
        "the new key 3 was kept (the target could not be read): a retry of this task reuses it. The target holds "
        "unknown (RuntimeError: the secrets backend did not answer); the old key 2 and the new key 3 are both valid.",
        "unknown (RuntimeError: the secrets backend did not answer); the old key 2 and the new key 3 are both valid",
        2,
        3,
    )
    assert account.held_key(inner) == 2
    assert account.valid() == (SEEDED, OLD, new(3))

    assert run(account, inner, store) == rotated(3)
    assert account.held_key(inner) == 3 and account.valid() == (SEEDED, new(3))
    assert account.works(old) is False


# -- rolling back (Recovery.roll_back) ---------------------------------------------------------------------------------


def test_another_rotations_key_seen_at_the_read_back_is_left_alone(platform: Any, account: Account) -> None:
    """Another rotation wrote between the store and the read-back: no rollback over its key; ours is revoked."""
    old, inner = workload(account)

    def another_rotation(target: Scripted) -> None:
        target.inner.write(other_key(account))

    target = Scripted(inner, before_read={3: another_rotation})
    store = Store()
    assert run(account, target, store) == Failed(
        "verify_stored",
        "API key rotation stopped at step 'verify_stored': consumers see another key: another rotation wrote "
        "meanwhile; the target holds another rotation's key, so it was left alone; the unused new key 3 was revoked. "
        "The target holds another key (not this rotation's). A retry cannot help.",
        "another key (not this rotation's)",
        2,
        3,
        retry_cannot_help=True,
    )
    assert account.held_key(inner) == 4
    assert account.valid() == (SEEDED, OLD, OTHER)
    assert target.writes == 1  # ours only: the old key was not written over the other rotation's
    assert not lease_kept(inner)


def test_a_write_that_fails_and_leaves_the_target_empty_is_rolled_back_and_a_retry_can_help(
    platform: Any, account: Account
) -> None:
    old, inner = workload(account)
    target = Scripted(inner, on_write={1: wiping_write})
    store = Store()
    assert run(account, target, store) == Failed(
        "store",
        "API key rotation rolled back at step 'store': writing to vault kv messaging failed: OSError: the secrets "
        "backend lost the secret while writing, and the target now holds something else; rolled back to the old key "
        "2; the unused new key 3 was revoked. The target holds the old key 2 again, verified.",
        "the old key 2 again, verified",
        2,
        3,
        rolled_back=True,
    )
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD)
    assert lease_kept(inner)  # a retry can help: the lease is kept for it

    assert run(account, inner, store) == rotated(4)
    assert account.held_key(inner) == 4 and account.valid() == (SEEDED, new(4))


def test_a_rollback_the_target_does_not_take_revokes_nothing(platform: Any, account: Account) -> None:
    """The stored key fails its check; the target answers the rollback's write but still reads the new key."""
    old, inner = workload(account)
    platform.control.add_fault(kind="delay", delay=0, method="GET", path="/campaign$")
    platform.control.add_fault(kind="status", status=401, method="GET", path="/campaign$")
    target = Scripted(inner, on_write={2: dropped_write})
    store = Store()
    expected = Failed(
        "roll_back",
        f"API key rotation stopped at step 'roll_back': the stored credential failed a platform call: {CAMPAIGN_401}"
        "; rolling back failed: ValueError: the target does not read back the old credential. No key was revoked: "
        "the old key 2 and the new key 3 are both valid. The target holds the new key 3.",
        "the new key 3",
        2,
        3,
    )
    assert run(account, target, store) == expected
    assert_no_secret(expected.message, account)
    assert account.held_key(inner) == 3
    assert account.valid() == (SEEDED, OLD, new(3))

    assert run(account, inner, store) == rotated(3, *RESUMED, resumed=True)
    assert account.held_key(inner) == 3 and account.valid() == (SEEDED, new(3))


def test_a_retry_after_the_revoke_whose_stored_key_fails_names_both_keys_and_what_the_target_holds(
    platform: Any, account: Account
) -> None:
    old, inner = workload(account)
    store = Store()
    assert run(account, inner, store, on_step=die_at("old_key_revoked")) == Died("old_key_revoked")
    platform.control.add_fault(kind="status", status=401, method="GET", path="/campaign$")
    assert run(account, inner, store) == Failed(
        "roll_back",
        f"API key rotation stopped at step 'roll_back': the stored credential failed a platform call: {CAMPAIGN_401}"
        "; the old key 2 was revoked already, so there is nothing to roll back to: the new key 3 stays valid. The "
        "target holds the new key 3.",
        "the new key 3",
        2,
        3,
    )
    assert inner.read() is not None and inner.writes == 1
    assert account.valid() == (SEEDED, new(3))


def test_a_retry_that_rolls_back_scrubs_the_old_secret_it_read_from_the_platform(
    platform: Any, account: Account
) -> None:
    """A retry after the store never saw the old secret: the one it re-reads is scrubbed from its error text too."""
    old, inner = workload(account)
    store = Store()
    assert run(account, inner, store, on_step=die_at("stored")) == Died("stored")

    def echoing_write(target: Scripted, credential: Credential) -> None:
        raise OSError(f"the secrets backend answered 503 to the secret {credential.secret}")

    platform.control.add_fault(kind="status", status=401, method="GET", path="/campaign$")
    failed = run(account, Scripted(inner, on_write={1: echoing_write}), store)
    assert failed == Failed(
        "roll_back",
        f"API key rotation stopped at step 'roll_back': the stored credential failed a platform call: {CAMPAIGN_401}"
        "; rolling back failed: OSError: the secrets backend answered 503 to the secret ***. No key was revoked: the "
        "old key 2 and the new key 3 are both valid. The target holds the new key 3.",
        "the new key 3",
        2,
        3,
    )
    assert old.secret not in failed.message
    assert_no_secret(failed.message, account)
    assert account.held_key(inner) == 3 and account.valid() == (SEEDED, OLD, new(3))


# -- revoking the keys this run made (PlatformKeys.revoke_unused, PlatformKeys.discard_marked_keys) --------------------


def test_a_retry_after_the_store_whose_create_fails_revokes_nothing_the_target_holds(
    platform: Any, account: Account
) -> None:
    """
    The worker died after the store; the retry cannot re-read the new key's secret (its create fails twice) and
    looks for the keys of this run to revoke: the target holds the one it made, which stays valid.
    """
    old, inner = workload(account)
    store = Store()
    assert run(account, inner, store, on_step=die_at("stored")) == Died("stored")
    platform.control.add_fault(kind="status", status=500, method="GET", path="/api-key/[0-9]+$", count=2)
    failed = run(account, inner, store)
    assert isinstance(failed, Failed)
    assert (failed.step, failed.retry_cannot_help) == ("create_new_key", False)
    assert "revoked" not in failed.message, failed.message
    assert platform.control.faults() == []
    assert account.held_key(inner) == 3  # no lockout: the key the target holds works
    assert account.valid() == (SEEDED, OLD, new(3))
    assert lease_kept(inner)

    assert run(account, inner, store) == rotated(3, *RESUMED, resumed=True)
    assert account.held_key(inner) == 3 and account.valid() == (SEEDED, new(3))


def test_an_unused_new_key_that_cannot_be_revoked_is_named_with_the_platforms_answer(
    platform: Any, account: Account
) -> None:
    old, inner = workload(account)
    platform.control.add_fault(kind="status", status=401, method="GET", path="/campaign$")
    platform.control.add_fault(kind="status", status=500, method="DELETE", path="/api-key/[0-9]+$")
    store = Store()
    assert run(account, inner, store) == Failed(
        "verify_new_key",
        f"API key rotation stopped at step 'verify_new_key': the new key 3 failed a platform call: {CAMPAIGN_401}; "
        "the unused new key 3 could not be revoked (DELETE /account/1001/api-key/3 failed with HTTP 500: Injected "
        "fault: HTTP 500. (code 0)): a retry reuses it. The target holds the old key 2.",
        "the old key 2",
        2,
        3,
    )
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD, new(3))
    assert run(account, inner, store) == rotated(3)
    assert account.valid() == (SEEDED, new(3))


def test_a_lost_answer_to_the_revoke_of_the_unused_key_is_resent_and_its_404_counts_as_revoked(
    platform: Any, account: Account
) -> None:
    old, inner = workload(account)
    key, secret, default_account = account.credentials
    manager = Manager(platform.base_url, key, secret, account_id=default_account, retry_policy=RetryPolicy(2, 0))
    manager.seen = account.seen
    platform.control.add_fault(kind="status", status=401, method="GET", path="/campaign$")
    platform.control.add_fault(kind="commit_then_drop", method="DELETE", path="/api-key/[0-9]+$")
    assert run(account, inner, Store(), manager) == Failed(
        "verify_new_key",
        f"API key rotation stopped at step 'verify_new_key': the new key 3 failed a platform call: {CAMPAIGN_401}; "
        "the unused new key 3 was revoked. The target holds the old key 2.",
        "the old key 2",
        2,
        3,
    )
    assert platform.control.faults() == []
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD)


def test_the_keys_of_this_run_are_looked_for_with_the_platforms_answer_when_listing_fails(
    platform: Any, account: Account
) -> None:
    """The target changed at the end and listing the keys fails then: the error says why none was revoked."""
    old, inner = workload(account)

    def another_rotation_then_the_listing_fails(target: Scripted) -> None:
        target.inner.write(other_key(account))
        platform.control.add_fault(kind="status", status=500, method="GET", path="/api-key$")

    target = Scripted(inner, before_read={5: another_rotation_then_the_listing_fails})
    assert run(account, target, Store()) == Failed(
        "confirm_target",
        "API key rotation stopped at step 'confirm_target': the target changed at the end (someone wrote it after "
        "this rotation's checks); the old key 2 was revoked; looking for keys it may have made failed too (GET "
        "/account/1001/api-key failed with HTTP 500: Injected fault: HTTP 500. (code 0)): a key of this rotation "
        f"left valid has its run marker [af:{TOKEN}] in its Label. The target holds another key (not this "
        "rotation's). A retry cannot help.",
        "another key (not this rotation's)",
        2,
        3,
        retry_cannot_help=True,
    )
    assert platform.control.faults() == []
    assert account.held_key(inner) == 4 and account.valid() == (SEEDED, new(3), OTHER)


# -- what every step uses (rotation/rotate.py, rotation/platform_keys.py) ----------------------------------------------


def test_a_retry_that_cannot_list_the_keys_says_so_and_the_next_retry_finishes(platform: Any, account: Account) -> None:
    """A retry after the store looks up the key the target holds; the listing fails: it stops, changing nothing."""
    old, inner = workload(account)
    store = Store()
    assert run(account, inner, store, on_step=die_at("stored")) == Died("stored")
    platform.control.add_fault(kind="status", status=500, method="GET", path="/api-key$")
    assert run(account, inner, store) == Failed(
        "check_target",
        "API key rotation stopped at step 'check_target': listing the API keys failed: GET /account/1001/api-key "
        "failed with HTTP 500: Injected fault: HTTP 500. (code 0). The target holds what it held before.",
        "what it held before",
        None,
        None,
    )
    assert account.held_key(inner) == 3 and account.valid() == (SEEDED, OLD, new(3))
    assert run(account, inner, store) == rotated(3, *RESUMED, resumed=True)
    assert account.valid() == (SEEDED, new(3))


def test_a_retry_that_finds_a_key_of_no_key_of_the_account_in_the_target_stops_for_good(
    platform: Any, account: Account
) -> None:
    old, inner = workload(account)
    store = Store()
    assert run(account, inner, store, on_step=die_at("old_key_recorded")) == Died("old_key_recorded")
    inner.write(Credential("k-not-of-account-1001-7d3a", "s-not-of-account-1001-7d3a"))
    assert run(account, inner, store) == Failed(
        "check_target",
        "API key rotation stopped at step 'check_target': another rotation changed the target since this one began. "
        "The target holds another key (not this rotation's). A retry cannot help.",
        "another key (not this rotation's)",
        2,
        None,
        retry_cannot_help=True,
    )
    assert account.valid() == (SEEDED, OLD)
    assert not lease_kept(inner)


def test_a_target_emptied_before_the_revoke_keeps_the_old_key_and_says_it_holds_nothing(
    platform: Any, account: Account
) -> None:
    old, inner = workload(account)
    target = Scripted(inner, before_read={4: empty})
    assert run(account, target, Store()) == Failed(
        "revoke_old_key",
        "API key rotation stopped at step 'revoke_old_key': the old key 2 was not revoked: the target changed after "
        "the read-back (it holds nothing); 1 unused key(s) of this rotation revoked. The target holds nothing. A "
        "retry cannot help.",
        "nothing",
        2,
        3,
        retry_cannot_help=True,
    )
    assert inner.read() is None
    assert account.valid() == (SEEDED, OLD) and account.works(old)


def test_credentials_are_verified_with_the_managers_timeouts_and_retry_policy(platform: Any, account: Account) -> None:
    """The manager's read timeout, without retries: a verification that does not answer in time fails."""
    old, inner = workload(account)
    key, secret, default_account = account.credentials
    manager = Manager(
        platform.base_url, key, secret, account_id=default_account, timeout=(5.0, 0.5), retry_policy=RetryPolicy(1)
    )
    manager.seen = account.seen
    platform.control.add_fault(kind="delay", delay=3, method="GET", path="/campaign$")
    failed = run(account, inner, Store(), manager)
    assert isinstance(failed, Failed)
    assert (failed.step, failed.old_key_id, failed.new_key_id) == ("verify_new_key", 2, 3)
    assert "the unused new key 3 was revoked" in failed.message
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD)


def test_the_verify_call_gets_a_client_set_up_as_the_manager_on_the_candidate_key(
    platform: Any, account: Account
) -> None:
    """A custom ``verify`` reads dates in the manager's platform timezone, over the manager's transport choices."""
    old, inner = workload(account)
    key, secret, default_account = account.credentials
    manager = Manager(
        platform.base_url,
        key,
        secret,
        account_id=default_account,
        platform_timezone="Europe/Prague",
        allow_insecure_http=True,
    )
    manager.seen = account.seen
    clients: list[Any] = []

    def verify(client: Any) -> None:
        clients.append(client)
        client.list_campaigns(only_mine=True)

    assert run(account, inner, Store(), manager, verify=verify) == rotated(3)
    assert [(c.session.auth[0], c.platform_timezone, c.allow_insecure_http, c.base_url) for c in clients] == [
        (c.session.auth[0], "Europe/Prague", True, manager.base_url) for c in clients
    ]
    held = inner.read()
    assert held is not None and {c.session.auth[0] for c in clients} == {held.key}


def test_the_default_verification_is_the_call_test_connection_makes(platform: Any, account: Account) -> None:
    old, inner = workload(account)
    platform.control.clear_requests()
    assert run(account, inner, Store()) == rotated(3)
    held = inner.read()
    assert held is not None
    verifications = [
        (r["method"], r["path"], r["query"]) for r in platform.control.requests() if "campaign" in r["path"]
    ]
    assert verifications == [("GET", "/api/v2.1/account/1001/campaign", "onlyMine=true")] * 2


def test_a_connection_rotating_itself_revokes_its_unused_key_with_the_old_key_after_a_rollback(
    platform: Any, account: Account
) -> None:
    """
    The retry's manager signs with the key the target holds, the new one: after rolling back, that key is revoked
    with the old credential, since a key cannot be revoked with itself on the platform.
    """
    old, inner = workload(account)
    store = Store()

    first = ApiKeyRotation(
        account.manager_signing_with(old), inner, once=CreateOnce(TOKEN, store), on_step=die_at("stored")
    )
    assert outcome_of(first) == Died("stored")
    stored = inner.read()
    assert stored is not None and stored != old
    platform.control.add_fault(kind="status", status=401, method="GET", path="/campaign$")
    since = platform.control.requests()[-1]["seq"]
    retry = ApiKeyRotation(account.manager_signing_with(stored), inner, once=CreateOnce(TOKEN, store))
    assert outcome_of(retry) == Failed(
        "verify_stored",
        f"API key rotation rolled back at step 'verify_stored': the stored credential failed a platform call: "
        f"{CAMPAIGN_401}; rolled back to the old key 2; the unused new key 3 was revoked. The target holds the old "
        "key 2 again, verified.",
        "the old key 2 again, verified",
        2,
        3,
        rolled_back=True,
    )
    revokes = [r for r in platform.control.requests(since) if r["method"] == "DELETE"]
    assert [(r["path"], signed_by(r)) for r in revokes] == [("/api/v2.1/account/1001/api-key/3", old.key)]
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD)


def signed_by(record: dict[str, Any]) -> str:
    auth = {k.lower(): v for k, v in (record.get("headers") or {}).items()}["authorization"]
    return base64.b64decode(auth[6:]).decode().split(":", 1)[0]


class Answers(ManagerProxy):
    """The manager, with the create's answer changed by ``create`` and the listing's by ``listing``."""

    def __init__(
        self,
        manager: Manager,
        create: Callable[[dict[str, Any]], None] = lambda answer: None,
        listing: Callable[[dict[str, Any]], None] = lambda key: None,
    ) -> None:
        super().__init__(manager)
        self._create = create
        self._listing = listing

    def create_api_key(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        answer = dict(self._manager.create_api_key(*args, **kwargs))
        self._create(answer)
        return answer

    def list_api_keys(self, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        keys = [dict(k) for k in self._manager.list_api_keys(*args, **kwargs)]
        for key in keys:
            self._listing(key)
        return keys


def test_a_malformed_new_key_whose_listed_label_lost_the_run_marker_is_revoked_by_its_id(
    platform: Any, account: Account
) -> None:
    """The create's answer has no secret, and the listing cuts labels short: the key is found by its Id."""
    old, inner = workload(account)

    def no_secret(answer: dict[str, Any]) -> None:
        answer.pop("Secret")

    def cut(key: dict[str, Any]) -> None:
        key["Label"] = str(key["Label"])[:18]

    manager = Answers(account.manager(), create=no_secret, listing=cut)
    assert run(account, inner, Store(), manager) == Failed(
        "create_new_key",
        "API key rotation stopped at step 'create_new_key': the platform answered the create with a malformed key "
        "(no valid Secret); 1 unused key(s) of this rotation revoked; the new key 3 is not used. The target holds "
        "the old key 2, unchanged. A retry cannot help.",
        "the old key 2, unchanged",
        None,
        3,
        retry_cannot_help=True,
    )
    assert account.held_key(inner) == 2 and account.valid() == (SEEDED, OLD)


def test_a_malformed_answer_naming_the_old_keys_id_never_revokes_the_old_key(platform: Any, account: Account) -> None:
    """Even when the platform's malformed answer names the old key's Id and the target no longer holds it."""
    old, inner = workload(account)

    def old_id_no_secret(answer: dict[str, Any]) -> None:
        answer.update(Id=2, Secret="")

    def another_rotation(target: Scripted) -> None:
        target.inner.write(other_key(account))

    target = Scripted(inner, before_read={2: another_rotation})
    manager = Answers(account.manager(), create=old_id_no_secret)
    failed = run(account, target, Store(), manager)
    assert isinstance(failed, Failed)
    assert (failed.step, failed.new_key_id, failed.retry_cannot_help) == ("create_new_key", 2, True)
    assert "; 1 unused key(s) of this rotation revoked; the new key 2 is not used" in failed.message, failed.message
    assert account.held_key(inner) == 4
    assert account.valid() == (SEEDED, OLD, OTHER)  # the rotation's key 3 revoked, never the old key 2


class Wrapped:
    """A manager wrapped by the caller without exposing its client (``.client``): a wiring mistake."""

    def __init__(self, manager: Manager) -> None:
        self._manager = manager

    def __getattr__(self, name: str) -> Any:
        if name == "client":
            raise AttributeError(name)
        return getattr(self._manager, name)


def test_a_manager_that_is_neither_a_hook_nor_a_client_is_named_as_the_mistake(platform: Any, account: Account) -> None:
    old, inner = workload(account)
    with pytest.raises(TypeError) as caught:
        run_it = ApiKeyRotation(Wrapped(account.manager()), inner, once=CreateOnce(TOKEN, Store()))  # type: ignore[arg-type]
        run_it.run()
    assert str(caught.value) == "the hook must be a MessagingPlatformHook or a MessagingPlatformClient"
    assert account.held_key(inner) == 2


def test_a_lost_answer_to_the_revoke_of_a_key_of_this_run_at_the_end_is_resent_and_counts_as_revoked(
    platform: Any, account: Account
) -> None:
    """The target changed at the end; the revoke of the rotation's key is answered 404 when resent: revoked."""
    old, inner = workload(account)
    key, secret, default_account = account.credentials
    manager = Manager(platform.base_url, key, secret, account_id=default_account, retry_policy=RetryPolicy(2, 0))
    manager.seen = account.seen

    def another_rotation_then_the_answer_is_lost(target: Scripted) -> None:
        target.inner.write(other_key(account))
        platform.control.add_fault(kind="commit_then_drop", method="DELETE", path="/api-key/[0-9]+$")

    target = Scripted(inner, before_read={5: another_rotation_then_the_answer_is_lost})
    failed = run(account, target, Store(), manager)
    assert isinstance(failed, Failed)
    assert failed.step == "confirm_target"
    assert "; 1 unused key(s) of this rotation revoked." in failed.message, failed.message
    assert platform.control.faults() == []
    assert account.held_key(inner) == 4 and account.valid() == (SEEDED, OTHER)


def test_a_temporary_key_is_made_with_the_valid_to_given(platform: Any, account: Account) -> None:
    old, inner = workload(account)
    rotation = ApiKeyRotation(
        account.manager(),
        inner,
        once=CreateOnce(TOKEN, Store()),
        key_type="Temporary",
        valid_to=datetime(2031, 1, 2, 3, 4, 5, tzinfo=timezone.utc),
    )
    assert outcome_of(rotation) == rotated(3)
    with account.manager() as manager:
        made = manager.get_api_key(3)
    assert str(made["ValidTo"]).startswith("2031-01-02"), made["ValidTo"]


class SlowLease:
    """An in-memory lease whose acquiring takes ``took`` seconds of the rotation's clock."""

    def __init__(self, clock: list[float], took: float) -> None:
        self.inner = InMemoryLease()
        self.clock = clock
        self.took = took

    def acquire(self, owner: str, seconds: float) -> None:
        self.clock[0] += self.took
        self.inner.acquire(owner, seconds)

    def release(self, owner: str) -> None:
        self.inner.release(owner)


@pytest.mark.parametrize("took", [4.0, 5.0, 6.0])
def test_taking_the_lease_may_use_up_to_half_of_its_time(
    platform: Any, account: Account, monkeypatch: pytest.MonkeyPatch, took: float
) -> None:
    clock = [1000.0]
    monkeypatch.setattr(rotate_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    old, inner = workload(account)
    lease = SlowLease(clock, took)
    outcome = run(account, inner, Store(), lease=lease, lease_seconds=10)
    if took <= 5:
        assert outcome == rotated(3)
        return
    assert outcome == Failed(
        "acquire_lease",
        "API key rotation stopped at step 'acquire_lease': taking the lease of vault kv messaging failed: "
        "TimeoutError: taking the lease took 6 s, more than half of its 10 s. The target holds what it held before "
        "(nothing was changed).",
        "what it held before (nothing was changed)",
        None,
        None,
    )
    assert account.valid() == (SEEDED, OLD)


class NoLease:
    """A target that offers no lease of its own."""

    def __init__(self, inner: InMemoryTarget) -> None:
        self.inner = inner
        self.name = inner.name
        self.read = inner.read
        self.write = inner.write


def test_a_target_without_a_lease_is_rotated_with_a_warning(
    platform: Any, account: Account, caplog: pytest.LogCaptureFixture
) -> None:
    old, inner = workload(account)
    with caplog.at_level("WARNING", logger="messaging_platform_provider.rotation"):
        assert run(account, NoLease(inner), Store()) == rotated(3)
        warned = [r.getMessage() for r in caplog.records if "lease" in r.getMessage()]
        assert warned == ["vault kv messaging has no lease: rotations of it must not overlap."]
    assert account.held_key(inner) == 3 and account.valid() == (SEEDED, new(3))


def test_the_state_of_a_rotation_is_kept_under_its_run_token(platform: Any, account: Account) -> None:
    old, inner = workload(account)
    store = Store()
    assert run(account, inner, store) == rotated(3)
    assert store[f"messaging_platform:rotate_api_key:{TOKEN}"]["phase"] == "done"


def test_without_a_task_state_store_a_lost_create_answer_is_found_again_within_the_try(
    platform: Any, account: Account
) -> None:
    old, inner = workload(account)
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/api-key$")
    rotation = ApiKeyRotation(account.manager(), inner, once=CreateOnce(TOKEN))
    assert outcome_of(rotation) == rotated(
        3, "the first create failed or lost its answer; the second looked for the key by its marker first"
    )
    assert account.held_key(inner) == 3 and account.valid() == (SEEDED, new(3))


def test_a_connection_rotating_itself_leaves_another_rotations_key_alone_on_a_retry(
    platform: Any, account: Account
) -> None:
    """The retry's manager signs with the new key and never saw the old secret; another rotation wrote meanwhile."""
    old, inner = workload(account)
    store = Store()

    first = ApiKeyRotation(
        account.manager_signing_with(old), inner, once=CreateOnce(TOKEN, store), on_step=die_at("stored")
    )
    assert outcome_of(first) == Died("stored")
    stored = inner.read()
    assert stored is not None

    def another_rotation(target: Scripted) -> None:
        target.inner.write(other_key(account))

    retry = ApiKeyRotation(
        account.manager_signing_with(stored),
        Scripted(inner, before_read={2: another_rotation}),
        once=CreateOnce(TOKEN, store),
    )
    failed = outcome_of(retry)
    assert isinstance(failed, Failed)
    assert (failed.step, failed.target_holds, failed.retry_cannot_help) == (
        "verify_stored",
        "another key (not this rotation's)",
        True,
    )
    assert account.held_key(inner) == 4
