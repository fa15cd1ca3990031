"""
What a second rotation, a malformed key and a shadowed connection do (issue 34): each ends at once, without the
task's retries, naming its cause, and leaves no valid key that the target does not hold. In-process against the
emulator, but for the secrets backend test (the REST API's view of the connection: a real API server).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from messaging_platform_provider.client import CreateOnce
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators.rotation import MessagingPlatformRotateApiKeyOperator
from messaging_platform_provider.rotation import (
    AirflowConnectionTarget,
    ApiKeyRotation,
    CallableTarget,
    Credential,
    InMemoryLease,
    InMemoryTarget,
    RotationError,
)
from tests.rotation.test_lease import Clock
from tests.rotation.test_rotation import Store, fresh_key, works
from tests.support.airflow_api_harness import ROTATED_CONN_ID
from tests.support.operator_context import fails_without_retry, run

KEPT = ["Seeded key", "Workload"]  # the labels of the keys left valid when the rotation stopped cleanly


def labels(hook: MessagingPlatformHook) -> list[str]:
    """The labels of the account's valid keys, run markers cut off."""
    return [str(k["Label"]).split(" [af:")[0] for k in hook.list_api_keys()]


class AlteredCreate:
    """The hook, whose create answers are changed by ``alter`` after the platform made the key."""

    def __init__(self, hook: MessagingPlatformHook, alter: Callable[[dict[str, Any]], None]) -> None:
        self._hook = hook
        self._alter = alter

    def __getattr__(self, name: str) -> Any:
        return getattr(self._hook, name)

    def create_api_key(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        answer = dict(self._hook.create_api_key(*args, **kwargs))
        self._alter(answer)
        return answer


@pytest.mark.parametrize(
    "alter",
    [
        pytest.param(lambda a: a.pop("Secret"), id="no Secret"),
        pytest.param(lambda a: a.update(Secret=""), id="empty Secret"),
        pytest.param(lambda a: a.update(Key=""), id="empty Key"),
        pytest.param(lambda a: a.update(Id="k-17"), id="Id not a number"),
        pytest.param(lambda a: a.pop("Id") and a.pop("Secret"), id="no Id, no Secret"),
    ],
)
def test_a_malformed_new_key_is_revoked_and_fails_without_retry(platform, alter):
    hook = MessagingPlatformHook()
    old = fresh_key(hook)
    target = InMemoryTarget(old)
    with pytest.raises(RotationError) as caught:
        ApiKeyRotation(AlteredCreate(hook, alter), target, once=CreateOnce("ba5eba11ba5eba11", Store())).run()
    error = caught.value
    assert error.step == "create_new_key" and error.retry_cannot_help, error
    assert "malformed key" in str(error) and "unused key(s) of this rotation revoked" in str(error), error
    assert labels(hook) == KEPT  # the new key was revoked: no valid key beyond the old one
    assert target.read() == old and target.writes == 0 and works(platform, old)
    target.lease().acquire("af:next", 60)  # a stop a retry cannot help releases the lease


@pytest.mark.parametrize(
    ("point", "expected_step", "left"),
    [
        # someone puts the old key back after the read-back: the old key is not revoked, the new one is
        pytest.param("stored_verified", "revoke_old_key", ["Seeded key", "Workload", "Other"], id="old key back"),
        # someone writes another key after the revoke: the rotation's own key is revoked, not left valid
        pytest.param("old_key_revoked", "confirm_target", ["Seeded key", "Other"], id="another key at the end"),
    ],
)
def test_a_target_changed_at_the_end_leaves_no_unused_key_of_the_rotation(platform, point, expected_step, left):
    hook = MessagingPlatformHook()
    old = fresh_key(hook)
    target = InMemoryTarget(old)
    other = fresh_key(hook, "Other")

    def someone_writes(step: str) -> None:
        if step == point:
            target.write(old if point == "stored_verified" else other)

    once = CreateOnce("c4a11e9ec4a11e9e", Store())
    with pytest.raises(RotationError) as caught:
        ApiKeyRotation(hook, target, once=once, on_step=someone_writes).run()
    assert caught.value.step == expected_step and caught.value.retry_cannot_help, caught.value
    assert "unused key(s) of this rotation revoked" in str(caught.value)
    assert labels(hook) == left
    assert target.read() == (old if point == "stored_verified" else other)


def test_a_rotation_whose_lease_was_taken_over_stops_before_writing(platform):
    hook = MessagingPlatformHook()
    old = fresh_key(hook)
    target = InMemoryTarget(old)
    clock = Clock()
    lease = InMemoryLease(clock=clock)

    def stalls_then_another_takes_over(step: str) -> None:
        if step == "new_key_verified":
            clock.now += 61
            lease.acquire("af:another", 60)

    once = CreateOnce("5a11ed5a11ed5a11", Store())
    rotation = ApiKeyRotation(
        hook, target, once=once, lease=lease, lease_seconds=60, on_step=stalls_then_another_takes_over
    )
    with pytest.raises(RotationError, match=r"lease expired and was taken over.*owner af:another") as caught:
        rotation.run()
    assert caught.value.step == "check_target" and caught.value.retry_cannot_help
    assert target.writes == 0 and labels(hook) == KEPT


def test_a_retriable_failure_keeps_the_lease_for_the_retry(platform):
    """The first try fails at the revoke; another rotation is refused until the retry (same token) has finished."""
    hook = MessagingPlatformHook()
    old = fresh_key(hook)
    old_id = next(k["Id"] for k in hook.list_api_keys() if k["Key"] == old.key)
    target = InMemoryTarget(old)
    once = CreateOnce("4e7a1ed04e7a1ed0", Store())
    platform.control.add_fault(kind="status", status=500, method="DELETE", path=f"/api-key/{old_id}$", count=1)
    with pytest.raises(RotationError) as first:
        ApiKeyRotation(hook, target, once=once).run()
    assert first.value.step == "revoke_old_key" and not first.value.retry_cannot_help

    with pytest.raises(RotationError, match=r"another rotation holds the lease \(owner 4e7a1ed04e7a1ed0\)") as other:
        ApiKeyRotation(hook, target, once=CreateOnce("0e4e40e4e40e4e40", Store())).run()
    assert other.value.step == "acquire_lease" and other.value.retry_cannot_help

    retry = ApiKeyRotation(hook, target, once=once).run()
    assert retry.resumed and retry.old_key_revoked
    ApiKeyRotation(hook, target, once=CreateOnce("1a7e51a7e51a7e51", Store())).run()  # released: the next one runs
    assert labels(hook) == ["Seeded key", "Rotated by Airflow"]


# -- a shadowed connection: stopped before any key is made ------------------------------------------------------


def forget_secrets_backends(monkeypatch: pytest.MonkeyPatch) -> None:
    """Have the workers' secrets backends built again from the configuration, and forgotten after the test."""
    try:
        import airflow.sdk.configuration as sdk_configuration
    except ImportError:  # Airflow 3.0 and 3.1: built again for every read
        return
    if hasattr(sdk_configuration, "_secrets_backend_cache"):  # 3.3 keeps them once built; 3.2 builds them again
        monkeypatch.setattr(sdk_configuration, "_secrets_backend_cache", {})


def creates(platform: Any) -> int:
    return sum(1 for r in platform.control.requests() if r["method"] == "POST" and r["path"].endswith("/api-key"))


def test_a_connection_shadowed_by_an_environment_variable_fails_before_any_key_is_made(platform, monkeypatch):
    hook = MessagingPlatformHook()
    old = fresh_key(hook)
    variable = json.dumps({"conn_type": "messagingplatform", "login": old.key, "password": old.secret})
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_SHADOWED", variable)
    target = AirflowConnectionTarget("messaging_platform_shadowed")
    made = creates(platform)
    with pytest.raises(RotationError, match=r"AIRFLOW_CONN_MESSAGING_PLATFORM_SHADOWED shadows") as caught:
        ApiKeyRotation(hook, target, once=CreateOnce("5ad0dd5ad0dd5ad0", Store()), lease=InMemoryLease()).run()
    assert caught.value.step == "read_target" and caught.value.retry_cannot_help
    assert creates(platform) == made and labels(hook) == KEPT
    assert old.secret not in str(caught.value)


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_a_connection_shadowed_by_a_secrets_backend_fails_before_any_key_is_made(
    platform, airflow_api, rotation_example_connections, monkeypatch, tmp_path
):
    """Consumers read the connection from a secrets backend, the REST API writes the database: logins differ."""
    hook = MessagingPlatformHook()
    elsewhere = fresh_key(hook, "In the secrets backend")
    backend_file = tmp_path / "connections.json"
    backend_file.write_text(
        json.dumps({ROTATED_CONN_ID: {"conn_type": "generic", "login": elsewhere.key, "password": elsewhere.secret}})
    )
    forget_secrets_backends(monkeypatch)
    monkeypatch.setenv("AIRFLOW__SECRETS__BACKEND", "airflow.secrets.local_filesystem.LocalFilesystemBackend")
    monkeypatch.setenv("AIRFLOW__SECRETS__BACKEND_KWARGS", json.dumps({"connections_file_path": str(backend_file)}))
    target = AirflowConnectionTarget(ROTATED_CONN_ID)
    assert target.read() == elsewhere
    made = creates(platform)
    with pytest.raises(RotationError, match=r"consumers read another key than the metadata database") as caught:
        ApiKeyRotation(hook, target, once=CreateOnce("5ec2e75ec2e75ec2", Store())).run()
    assert caught.value.step == "read_target" and caught.value.retry_cannot_help
    assert creates(platform) == made
    assert labels(hook) == ["Seeded key", "Workload key", "In the secrets backend"]


# -- the operator ------------------------------------------------------------------------------------------------


def test_the_operator_fails_without_retry_only_when_a_retry_cannot_help(platform):
    hook = MessagingPlatformHook()
    target = InMemoryTarget(fresh_key(hook))
    target.lease().acquire("af:another", 60)
    op = MessagingPlatformRotateApiKeyOperator(task_id="rotate", target=target)
    with fails_without_retry(RotationError, r"another rotation holds the lease \(owner af:another\)"):
        run(op)

    def unreadable() -> Credential:
        raise RuntimeError("the secrets backend did not answer")

    flaky = MessagingPlatformRotateApiKeyOperator(
        task_id="rotate", target=CallableTarget(unreadable, lambda c: None, lease=InMemoryLease())
    )
    with pytest.raises(RotationError, match="did not answer") as caught:  # Airflow's retries are kept
        run(flaky)
    assert not caught.value.retry_cannot_help


# -- a connection that is not defined: a configuration error, not retried (issue 36) -------------------------------


@pytest.mark.parametrize(
    "api_connection",
    [
        pytest.param(None, id="airflow_api_default not defined"),
        pytest.param('{"conn_type": "http"}', id="airflow_api_default without a host"),
    ],
)
def test_an_unusable_airflow_api_connection_fails_the_task_at_once_without_retry(platform, monkeypatch, api_connection):
    """
    A test of a rotation DAG without an API server took 713 s: the rotation, unable to write without
    ``airflow_api_default``, was retried after Airflow's retry delay. Now the task fails at once, nothing made.
    """
    monkeypatch.delenv("AIRFLOW_CONN_AIRFLOW_API_DEFAULT", raising=False)
    if api_connection is not None:
        monkeypatch.setenv("AIRFLOW_CONN_AIRFLOW_API_DEFAULT", api_connection)
    made = creates(platform)
    op = MessagingPlatformRotateApiKeyOperator(task_id="rotate", target_conn_id=ROTATED_CONN_ID)
    with fails_without_retry(RotationError, r"'airflow_api_default' to Airflow's REST API.* is not usable") as caught:
        run(op)
    assert caught.value.step == "acquire_lease" and caught.value.retry_cannot_help
    assert str(caught.value).endswith("A retry cannot help.")
    assert creates(platform) == made and labels(MessagingPlatformHook()) == ["Seeded key"]


def test_a_rotated_connection_that_is_not_defined_fails_without_retry(platform):
    target = AirflowConnectionTarget("messaging_platform_nowhere")
    made = creates(platform)
    with pytest.raises(RotationError, match=r"'messaging_platform_nowhere' is not defined") as caught:
        ApiKeyRotation(MessagingPlatformHook(), target, once=CreateOnce("0def0def0def0def", Store()), lease=None).run()
    assert caught.value.step == "read_target" and caught.value.retry_cannot_help
    assert creates(platform) == made


def test_an_api_server_that_does_not_answer_keeps_the_retries(platform, monkeypatch, closed_port):
    """It may be restarting: unlike a connection that is not there, a retry can find it back."""
    monkeypatch.setenv("AIRFLOW_CONN_AIRFLOW_API_DEFAULT", f"http://127.0.0.1:{closed_port}")
    op = MessagingPlatformRotateApiKeyOperator(task_id="rotate", target_conn_id=ROTATED_CONN_ID)
    with pytest.raises(RotationError, match=r"taking the lease .* failed: AirflowApiError") as caught:
        run(op)
    assert caught.value.step == "acquire_lease" and not caught.value.retry_cannot_help
