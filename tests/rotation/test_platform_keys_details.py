"""
What an operator on call reads when a rotation stops at the revoke of the old key or at a malformed key answer
(the error's fields and whole text, which keys stay valid), and what the targets make of what they read and write.
In-process against the emulator, with the helpers of ``test_failure_points.py``: after the emulator's reset the
seeded key is 1 and the target's key 2, so the rotation's keys are 3, 4, ...
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from messaging_platform_provider.client import CreateOnce
from messaging_platform_provider.rotation import (
    AirflowConnectionTarget,
    ApiKeyRotation,
    CallableTarget,
    Credential,
    FileTarget,
    InMemoryLease,
    InMemoryTarget,
    RotationError,
)
from messaging_platform_provider.rotation.airflow_api import AirflowApiError
from tests.rotation.test_failure_points import (
    ALL_CHECKPOINTS,
    NEW_LABEL,
    OLD,
    OTHER,
    RESUMED,
    SEEDED,
    TARGET,
    TOKEN,
    Account,
    Failed,
    Inject,
    Manager,
    ManagerProxy,
    Point,
    Store,
    assert_no_secret,
    drive,
    lease_kept,
    new,
    outcome_of,
    rotated,
    workload,
)
from tests.support.airflow_versions import secrets_masker

# -- the revoke of the old key: never while the target may use it ------------------------------------------------

STORED_VERIFIED = ("old_key_recorded", "new_key_created", "new_key_verified", "stored", "stored_verified")


def test_another_key_written_after_the_read_back_stops_the_revoke_and_says_what_the_target_holds(
    platform: Any, account: Account
) -> None:
    """
    Another rotation writes its key 4 between the read-back and the revoke (the target's 4th read): the old key 2
    is not revoked, the rotation's unused key 3 is, and the error names the step, both ids, what the target holds
    and that a retry cannot help; the retry then stops at once, changing nothing.
    """
    drive(
        platform,
        account,
        Point(
            Inject(other_before_read=4),
            Failed(
                "revoke_old_key",
                "API key rotation stopped at step 'revoke_old_key': the old key 2 was not revoked: the target changed "
                "after the read-back (it holds another key (not this rotation's)); 1 unused key(s) of this rotation "
                "revoked. The target holds another key (not this rotation's). A retry cannot help.",
                "another key (not this rotation's)",
                2,
                3,
                retry_cannot_help=True,
            ),
            STORED_VERIFIED,
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
    )


def test_the_old_key_put_back_after_the_read_back_is_not_revoked(platform: Any, account: Account) -> None:
    """Someone restores the old credential after the read-back: the old key stays valid, the new one is revoked."""
    old, target = workload(account)

    def someone_restores_the_old_key(step: str) -> None:
        if step == "stored_verified":
            target.write(old)

    rotation = ApiKeyRotation(
        account.manager(), target, once=CreateOnce(TOKEN, Store()), on_step=someone_restores_the_old_key
    )
    expected = Failed(
        "revoke_old_key",
        "API key rotation stopped at step 'revoke_old_key': the old key 2 was not revoked: the target changed after "
        "the read-back (it holds the old key 2); 1 unused key(s) of this rotation revoked. The target holds the old "
        "key 2. A retry cannot help.",
        "the old key 2",
        2,
        3,
        retry_cannot_help=True,
    )
    assert outcome_of(rotation) == expected
    assert_no_secret(expected.message, account)
    assert account.held_key(target) == 2 and account.works(old)
    assert account.valid() == (SEEDED, OLD)
    assert lease_kept(target) is False


# -- a malformed answer to the create ---------------------------------------------------------------------------


class Answering(ManagerProxy):
    """
    The manager, whose create answers are ``alter``ed; ``made`` chooses how the platform makes the key: with the
    rotation's label (``"marked"``), under a label of its own that lost the run marker (``"unmarked"``), or not at
    all (``"nothing"``: a 200 answer without a key behind it).
    """

    def __init__(self, manager: Manager, alter: Callable[[dict[str, Any]], None], made: str = "marked") -> None:
        super().__init__(manager)
        self._alter = alter
        self._made = made

    def create_api_key(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if self._made == "nothing":
            answer: dict[str, Any] = {"Label": NEW_LABEL}
        elif self._made == "unmarked":
            answer = dict(self._manager.create_api_key("Renamed by the platform", account_id=kwargs["account_id"]))
        else:
            answer = dict(self._manager.create_api_key(*args, **kwargs))
        self._alter(answer)
        return answer


def drop(*fields: str) -> Callable[[dict[str, Any]], None]:
    def alter(answer: dict[str, Any]) -> None:
        for name in fields:
            answer.pop(name, None)

    return alter


MALFORMED = "API key rotation stopped at step 'create_new_key': the platform answered the create with a malformed key"
UNCHANGED = "The target holds the old key 2, unchanged. A retry cannot help."


@pytest.mark.parametrize(
    ("alter", "made", "message", "new_key_id"),
    [
        pytest.param(
            drop("Secret"),
            "marked",
            f"{MALFORMED} (no valid Secret); 1 unused key(s) of this rotation revoked; the new key 3 is not used. "
            f"{UNCHANGED}",
            3,
            id="no Secret: the key named by its id",
        ),
        pytest.param(
            drop("Id", "Secret"),
            "marked",
            f"{MALFORMED} (no valid Id, Secret); 1 unused key(s) of this rotation revoked; the new key is not used. "
            f"{UNCHANGED}",
            None,
            id="no Id, no Secret: each field named",
        ),
        pytest.param(
            drop("Secret"),
            "unmarked",
            f"{MALFORMED} (no valid Secret); 1 unused key(s) of this rotation revoked; the new key 3 is not used. "
            f"{UNCHANGED}",
            3,
            id="the marker lost: the key revoked by its id",
        ),
        pytest.param(
            drop(),
            "nothing",
            f"{MALFORMED} (no valid Id, Key, Secret); no key of this rotation was found to revoke; the new key is not "
            f"used. {UNCHANGED}",
            None,
            id="no key made: nothing to revoke, and it says so",
        ),
    ],
)
def test_a_malformed_key_answer_names_the_key_and_leaves_no_key_of_the_rotation_valid(
    platform: Any,
    account: Account,
    alter: Callable[[dict[str, Any]], None],
    made: str,
    message: str,
    new_key_id: int | None,
) -> None:
    _, target = workload(account)
    manager: Any = Answering(account.manager(), alter, made)  # the manager's methods, through __getattr__
    rotation = ApiKeyRotation(manager, target, once=CreateOnce(TOKEN, Store()))
    expected = Failed("create_new_key", message, "the old key 2, unchanged", None, new_key_id, retry_cannot_help=True)
    assert outcome_of(rotation) == expected
    assert_no_secret(expected.message, account)
    assert account.held_key(target) == 2 and target.writes == 0
    assert account.valid() == (SEEDED, OLD)
    assert lease_kept(target) is False


# -- what a callable target reads -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param({"key": "kd-key", "secret": "kd-5ec-a1"}, ("kd-key", "kd-5ec-a1"), id="key and secret"),
        pytest.param({"login": "kd-login", "password": "kd-5ec-b2"}, ("kd-login", "kd-5ec-b2"), id="login, password"),
        pytest.param(("kd-pair", "kd-5ec-c3"), ("kd-pair", "kd-5ec-c3"), id="a pair"),
        pytest.param(["kd-list", "kd-5ec-d4"], ("kd-list", "kd-5ec-d4"), id="a list of two"),
        pytest.param({"login": "kd-login"}, None, id="a login without a password"),
        pytest.param({"password": "kd-5ec-e5"}, None, id="a password without a login"),
        pytest.param(("kd-pair", ""), None, id="an empty secret"),
        pytest.param(("", "kd-5ec-f6"), None, id="an empty key"),
        pytest.param(None, None, id="nothing"),
    ],
)
def test_a_callable_target_reads_what_its_function_returns(value: Any, expected: Any) -> None:
    target = CallableTarget(lambda: value, lambda c: None)
    assert target.read() == (None if expected is None else Credential(*expected))


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        pytest.param("kd", "str", id="a string of two characters"),
        pytest.param(("kd-a", "kd-b", "kd-c"), "tuple", id="a triple"),
        pytest.param(["kd-a"], "list", id="a list of one"),
    ],
)
def test_a_callable_target_that_returns_something_else_says_what_it_returned(value: Any, kind: str) -> None:
    target = CallableTarget(lambda: value, lambda c: None)
    expected = f"a target must return a Credential, a (key, secret) pair or a mapping, not <class '{kind}'>"
    with pytest.raises(TypeError) as caught:
        target.read()
    assert str(caught.value) == expected


def test_an_unreadable_callable_target_is_named_callable_in_the_error(platform: Any, account: Account) -> None:
    def unreadable() -> Credential:
        raise RuntimeError("the vault did not answer")

    rotation = ApiKeyRotation(
        account.manager(), CallableTarget(unreadable, lambda c: None), once=CreateOnce(TOKEN, Store())
    )
    with pytest.raises(RotationError) as caught:
        rotation.run()
    assert str(caught.value) == (
        "API key rotation stopped at step 'read_target': reading callable failed: RuntimeError: the vault did not "
        "answer. The target holds what it held before (nothing was changed)."
    )


def test_a_callable_target_with_a_lease_keeps_a_second_rotation_out(platform: Any, account: Account) -> None:
    old, _ = workload(account)
    lease = InMemoryLease()
    lease.acquire("af:another", 60)
    target = CallableTarget(lambda: old, lambda c: None, lease=lease)
    with pytest.raises(RotationError) as caught:
        ApiKeyRotation(account.manager(), target, once=CreateOnce(TOKEN, Store())).run()
    assert caught.value.step == "acquire_lease" and caught.value.retry_cannot_help
    assert "another rotation holds the lease (owner af:another)" in str(caught.value)
    assert account.valid() == (SEEDED, OLD)


# -- a file target ------------------------------------------------------------------------------------------------


def test_a_file_target_creates_missing_directories(tmp_path: Path) -> None:
    target = FileTarget(tmp_path / "etc" / "messaging" / "key.json")
    target.write(Credential("kd-file-key", "kd-5ec-file-1"))
    assert target.read() == Credential("kd-file-key", "kd-5ec-file-1")


def test_a_file_target_writes_beside_the_file_not_in_the_temporary_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new file is made next to the old one and renamed over it: no other file system, no shared /tmp."""
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "no such directory"))
    target = FileTarget(tmp_path / "key.json")
    target.write(Credential("kd-file-key", "kd-5ec-file-2"))
    assert target.read() == Credential("kd-file-key", "kd-5ec-file-2")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["key.json"]


def test_a_file_target_whose_write_fails_leaves_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "key.json").mkdir()  # the file's place is taken: the rename fails
    target = FileTarget(tmp_path / "key.json")
    with pytest.raises(OSError) as caught:
        target.write(Credential("kd-file-key", "kd-5ec-file-3"))
    assert isinstance(caught.value, (IsADirectoryError, PermissionError)), caught.value
    assert sorted(p.name for p in tmp_path.iterdir()) == ["key.json"]


def test_a_file_target_whose_rename_landed_then_failed_raises_that_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A network file system may report an error after the rename landed: that error, not a missing temp file."""
    replace = os.replace

    def lands_then_fails(source: str, destination: Path) -> None:
        replace(source, destination)
        raise OSError("the answer to the rename was lost")

    monkeypatch.setattr(os, "replace", lands_then_fails)
    target = FileTarget(tmp_path / "key.json")
    with pytest.raises(OSError, match="the answer to the rename was lost"):
        target.write(Credential("kd-file-key", "kd-5ec-file-4"))
    assert json.loads((tmp_path / "key.json").read_text()) == {"key": "kd-file-key", "secret": "kd-5ec-file-4"}


def test_a_file_target_is_never_seen_half_written_under_a_name_a_reader_would_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """
    While the new file is written (or after a worker killed meanwhile), the directory holds a hidden file named after
    the key file: a reader loading the directory's files does not pick it up, an operator sees whose it is.
    """
    replace = os.replace
    seen: list[str] = []

    def looks_then_replaces(source: str, destination: Path) -> None:
        seen.extend(sorted(p.name for p in tmp_path.iterdir()))
        replace(source, destination)

    monkeypatch.setattr(os, "replace", looks_then_replaces)
    FileTarget(tmp_path / "key.json").write(Credential("kd-file-key", "kd-5ec-file-5"))
    assert len(seen) == 1 and seen[0].startswith(".key.json."), seen


# -- an Airflow connection target -------------------------------------------------------------------------------

CONN_ID = "messaging_platform_kd_details"


@pytest.mark.parametrize(
    ("connection", "expected"),
    [
        pytest.param(
            {"login": "kd-conn-key", "password": "kd-5ec-conn-1"}, ("kd-conn-key", "kd-5ec-conn-1"), id="both"
        ),
        pytest.param({"login": "kd-conn-key"}, None, id="no password"),
        pytest.param({"password": "kd-5ec-conn-2"}, None, id="no login"),
    ],
)
def test_an_airflow_connection_target_reads_login_and_password(
    monkeypatch: pytest.MonkeyPatch, connection: dict[str, Any], expected: Any
) -> None:
    monkeypatch.setenv(f"AIRFLOW_CONN_{CONN_ID.upper()}", json.dumps({"conn_type": "generic", **connection}))
    read = AirflowConnectionTarget(CONN_ID).read()
    assert read == (None if expected is None else Credential(*expected))


class RestApi:
    """Airflow's REST API as ``shadowed_by`` and ``lease`` use it: the connections the metadata database holds."""

    def __init__(self, connections: dict[str, dict[str, Any]], status: int | None = 404) -> None:
        self.connections = connections
        self.status = status

    def get_connection(self, conn_id: str) -> dict[str, Any]:
        if conn_id not in self.connections:
            raise AirflowApiError("GET", f"/api/v2/connections/{conn_id}", self.status)
        return self.connections[conn_id]


def with_api(api: RestApi) -> AirflowConnectionTarget:
    target = AirflowConnectionTarget(CONN_ID)
    target.__dict__["api"] = api  # the cached REST client
    return target


KEY = Credential("kd-conn-key", "kd-5ec-conn-3")
NOT_IN_DATABASE = "the connection is not in the metadata database (a secrets backend or a variable provides it)"
ANOTHER_KEY = "consumers read another key than the metadata database holds (a secrets backend shadows it)"


@pytest.mark.parametrize(
    ("stored", "current", "expected"),
    [
        pytest.param({"login": KEY.key}, KEY, None, id="the same login: not shadowed"),
        pytest.param({"login": None}, None, None, id="no login, nothing read: not shadowed"),
        pytest.param({"login": "kd-elsewhere"}, KEY, ANOTHER_KEY, id="another login"),
        pytest.param({"login": KEY.key}, None, ANOTHER_KEY, id="a login where consumers read nothing"),
        pytest.param({"login": ""}, KEY, ANOTHER_KEY, id="no login where consumers read one"),
        pytest.param(None, KEY, NOT_IN_DATABASE, id="not in the database"),
    ],
)
def test_an_airflow_connection_is_shadowed_when_consumers_read_another_login(
    monkeypatch: pytest.MonkeyPatch, stored: dict[str, Any] | None, current: Credential | None, expected: Any
) -> None:
    monkeypatch.delenv(f"AIRFLOW_CONN_{CONN_ID.upper()}", raising=False)
    target = with_api(RestApi({} if stored is None else {CONN_ID: {"conn_type": "generic", **stored}}))
    assert target.shadowed_by(current) == expected


@pytest.mark.parametrize("status", [500, 405, None])
def test_an_airflow_api_failure_while_checking_for_a_shadow_is_raised(
    monkeypatch: pytest.MonkeyPatch, status: int | None
) -> None:
    monkeypatch.delenv(f"AIRFLOW_CONN_{CONN_ID.upper()}", raising=False)
    with pytest.raises(AirflowApiError) as caught:
        with_api(RestApi({}, status)).shadowed_by(KEY)
    assert caught.value.status == status


def test_an_airflow_connections_lease_is_named_after_it() -> None:
    lease = with_api(RestApi({})).lease()
    assert lease.conn_id == CONN_ID and lease.lease_id(1) == f"{CONN_ID}.rotation-lease.1"


# -- creating the new key -----------------------------------------------------------------------------------------


def test_a_create_the_platform_refuses_stops_at_once_naming_the_refusal(platform: Any, account: Account) -> None:
    """A 4xx is not sent again (the platform would refuse it again); the target keeps the old key, a retry rotates."""
    refused = "POST /account/1001/api-key failed with HTTP 403: Injected fault: HTTP 403. (code 0)"
    drive(
        platform,
        account,
        Point(
            Inject(faults=({"kind": "status", "status": 403, "method": "POST", "path": "/api-key$", "count": 1},)),
            Failed(
                "create_new_key",
                f"API key rotation stopped at step 'create_new_key': {refused}. The target holds the old key 2, "
                "unchanged.",
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
    )


def test_a_create_answered_500_once_is_looked_for_and_sent_again(platform: Any, account: Account) -> None:
    drive(
        platform,
        account,
        Point(
            Inject(faults=({"kind": "status", "status": 500, "method": "POST", "path": "/api-key$", "count": 1},)),
            rotated(3, "the first create failed or lost its answer; the second looked for the key by its marker first"),
            ALL_CHECKPOINTS,
            3,
            (SEEDED, new(3)),
            False,
            rotated(3, *RESUMED, resumed=True),
            3,
            (SEEDED, new(3)),
        ),
    )


def test_a_target_holding_a_key_of_no_account_stops_before_any_key_is_made(platform: Any, account: Account) -> None:
    target = InMemoryTarget(Credential("kd-unknown-key", "kd-5ec-unknown-1"), name=TARGET)
    rotation = ApiKeyRotation(account.manager(), target, once=CreateOnce(TOKEN, Store()))
    assert outcome_of(rotation) == Failed(
        "find_old_key",
        "API key rotation stopped at step 'find_old_key': the key vault kv messaging holds is not one of the "
        "account's API keys (revoked, or another account). The target holds what it held before.",
        "what it held before",
        None,
        None,
    )
    assert account.valid() == (SEEDED,)


def test_a_temporary_new_key_gets_the_type_and_expiry_asked_for(platform: Any, account: Account) -> None:
    _, target = workload(account)
    result = ApiKeyRotation(
        account.manager(),
        target,
        once=CreateOnce(TOKEN, Store()),
        key_type="Temporary",
        valid_to="2099-01-01T00:00:00",
    ).run()
    assert result == rotated(3)
    (made,) = [k for k in account.keys() if k["Id"] == 3]
    assert (made["TypeId"], made["ValidTo"]) == (3, "2099-01-01T00:00:00")


def test_a_new_key_answered_without_a_label_has_an_empty_label_in_the_result(platform: Any, account: Account) -> None:
    _, target = workload(account)
    manager: Any = Answering(account.manager(), drop("Label"))
    result = ApiKeyRotation(manager, target, once=CreateOnce(TOKEN, Store())).run()
    assert (result.new_key_id, result.new_key_label) == (3, "")


def test_an_in_memory_target_is_named_memory_in_the_error(platform: Any, account: Account) -> None:
    rotation = ApiKeyRotation(account.manager(), InMemoryTarget(), once=CreateOnce(TOKEN, Store()))
    with pytest.raises(RotationError, match=r"^API key rotation stopped at step 'read_target': memory holds no"):
        rotation.run()


def test_a_credential_registers_its_secret_with_airflows_masker() -> None:
    """A secret the rotation reads from a target is masked in task logs from the moment it is a ``Credential``."""
    Credential("kd-masked-key", "kd-5ec-masked-7f3a91")
    assert secrets_masker().redact("read kd-5ec-masked-7f3a91 from the vault") == "read *** from the vault"
