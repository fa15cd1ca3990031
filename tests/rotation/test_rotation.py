"""
API key rotation end to end: the emulator, a real Airflow API server on loopback sharing the test database, and the
operator run by ``dag.test()``, which reads connections the way workers do. Plus the pluggable targets, the
self-rotating connection and what error text may carry, run in-process.
"""

from __future__ import annotations

import base64
import pickle
import stat
from typing import Any

import pytest

from messaging_platform_provider.client import CreateOnce, MessagingPlatformApiError, MessagingPlatformClient
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators.rotation import MessagingPlatformRotateApiKeyOperator
from messaging_platform_provider.rotation import (
    AirflowApiError,
    ApiKeyRotation,
    CallableTarget,
    Credential,
    FileTarget,
    InMemoryTarget,
    RotationError,
)
from tests.support.airflow_api_harness import (
    ROTATED_CONN_ID,
    wire_secrets,
    xcom_value,
)
from tests.support.airflow_versions import airflow_logs_at_level, dag_bag
from tests.support.home_scan import HomeScan
from tests.support.paths import TEST_DAGS

#: The fixtures (one API server per session) come from the fixture module, registered as a plugin.

DAG_ID = "messaging_platform_test_rotation"


class Store(dict[str, Any]):
    """Stands in for the task state store."""

    def set(self, key: str, value: Any) -> None:
        self[key] = value


def stored_connection(conn_id: str = ROTATED_CONN_ID) -> Credential:
    """What the metadata database really holds (decrypted), read the privileged way only a test may."""
    from airflow.models import Connection
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        conn = session.scalar(select(Connection).where(Connection.conn_id == conn_id))
        assert conn is not None
        return Credential(conn.login, conn.password)


def works(platform: Any, credential: Credential) -> bool:
    client = MessagingPlatformClient(
        platform.base_url, credential.key, credential.secret, account_id=platform.seed.account_id
    )
    with client:
        try:
            client.list_campaigns(only_mine=True)
        except MessagingPlatformApiError as exc:
            assert exc.status == 401, exc
            return False
    return True


def run_test_dag() -> Any:
    with airflow_logs_at_level():
        return dag_bag(str(TEST_DAGS)).get_dag(DAG_ID).test()


def assert_no_secret_leaked(platform: Any, capfd: pytest.CaptureFixture[str], home_scan: HomeScan, *extra: str) -> None:
    secrets = wire_secrets(platform.control) | {s for s in extra if s}
    assert len(secrets) >= 2
    captured = capfd.readouterr()
    output = captured.out + captured.err
    assert not [s for s in secrets if s in output], "a secret reached the captured output"
    assert home_scan.leaks(secrets) == []


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_rotation_end_to_end(home_scan, platform, dag_runs, airflow_api, rotation_example_connections, capfd):
    old = stored_connection()
    assert works(platform, old)
    run = run_test_dag()
    assert run.state == "success"
    assert {ti.task_id: ti.try_number for ti in run.get_task_instances()} == {"rotate": 1, "use_rotated_connection": 1}

    result = xcom_value(airflow_api.api(), DAG_ID, run.run_id, "rotate")
    assert result["outcome"] == "rotated" and result["old_key_revoked"] and not result["resumed"]
    assert result["old_key_id"] == rotation_example_connections["Id"]
    assert set(result) == {
        "outcome",
        "target",
        "old_key_id",
        "new_key_id",
        "new_key_label",
        "old_key_revoked",
        "resumed",
        "notes",
    }
    new = stored_connection()
    hook = MessagingPlatformHook()
    (new_key,) = [k for k in hook.list_api_keys() if k["Label"].startswith("Test rotation")]
    assert new_key["Id"] == result["new_key_id"] and new.key == new_key["Key"] != old.key
    assert works(platform, new), "the connection's new secret does not work"
    assert not works(platform, old), "the old secret still works"
    assert hook.revoke_api_key(result["old_key_id"]) is False  # already gone: 404
    assert xcom_value(airflow_api.api(), DAG_ID, run.run_id, "use_rotated_connection")["works"] is True
    assert_no_secret_leaked(platform, capfd, home_scan, old.secret, new.secret)


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_a_retried_task_finishes_the_rotation_instead_of_starting_another(
    home_scan, platform, dag_runs, airflow_api, rotation_example_connections, capfd
):
    old = stored_connection()
    old_id = rotation_example_connections["Id"]
    platform.control.add_fault(kind="status", status=500, method="DELETE", path=f"/api-key/{old_id}$", count=1)
    run = run_test_dag()
    assert run.state == "success"
    tries = {ti.task_id: (ti.state, ti.try_number) for ti in run.get_task_instances()}
    assert tries["rotate"] == ("success", 2)  # the first try failed at the revoke, the retry finished

    result = xcom_value(airflow_api.api(), DAG_ID, run.run_id, "rotate")
    assert result["resumed"] is True and result["old_key_revoked"] is True
    records = platform.control.requests()
    creates = [r for r in records if r["method"] == "POST" and r["path"].endswith("/api-key")]
    assert [r["json"]["Label"].startswith("Test rotation") for r in creates] == [False, True]  # workload key, ours
    hook = MessagingPlatformHook()
    new_keys = [k for k in hook.list_api_keys() if k["Label"].startswith("Test rotation")]
    assert [k["Id"] for k in new_keys] == [result["new_key_id"]]
    new = stored_connection()
    assert new.key == new_keys[0]["Key"] and works(platform, new) and not works(platform, old)
    assert_no_secret_leaked(platform, capfd, home_scan, old.secret, new.secret)


# -- in-process: targets, self-rotation, error text ----------------------------------------------------------


def fresh_key(hook: MessagingPlatformHook, label: str = "Workload") -> Credential:
    key = hook.create_api_key(label)
    return Credential(key["Key"], key["Secret"])


def test_a_connection_rotating_its_own_key_revokes_the_old_key_with_the_new_one(platform):
    hook = MessagingPlatformHook()
    old = fresh_key(hook)
    target = InMemoryTarget(old)
    manager = MessagingPlatformClient(platform.base_url, old.key, old.secret, account_id=platform.seed.account_id)
    result = ApiKeyRotation(manager, target, once=CreateOnce("5e1f5e1f5e1f5e1f", Store())).run()
    new = target.read()
    assert new is not None and new.key != old.key and works(platform, new) and not works(platform, old)
    (delete,) = [r for r in platform.control.requests() if r["method"] == "DELETE"]
    assert delete["path"].endswith(f"/api-key/{result.old_key_id}")
    assert base64.b64decode(delete["headers"]["authorization"][6:]).decode().startswith(new.key + ":")


def test_callable_and_file_targets(platform, tmp_path):
    hook = MessagingPlatformHook()
    vault: dict[str, str] = {}
    old = fresh_key(hook)
    vault.update(key=old.key, secret=old.secret)
    writes: list[str] = []

    def write(credential: Credential) -> None:
        writes.append(credential.key)
        vault.update(key=credential.key, secret=credential.secret)

    target = CallableTarget(lambda: dict(vault), write, name="vault kv messaging")
    result = ApiKeyRotation(hook, target, once=CreateOnce("ca11ab1eca11ab1e", Store())).run()
    assert result.target == "vault kv messaging" and writes == [vault["key"]] != [old.key]
    assert works(platform, Credential(vault["key"], vault["secret"]))

    path = tmp_path / "credential.json"
    file_target = FileTarget(path)
    file_target.write(fresh_key(hook, "File workload"))
    ApiKeyRotation(hook, file_target, once=CreateOnce("f11ef11ef11ef11e", Store())).run()
    stored = file_target.read()
    assert stored is not None and works(platform, stored)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["credential.json", "credential.json.lock"]  # no temp file
    assert (tmp_path / "credential.json.lock").read_text() == ""  # the lease, released


def test_error_text_never_carries_a_secret(platform):
    """A secrets backend whose error repeats what it was given: the rotation's error replaces every secret."""
    hook = MessagingPlatformHook()
    old = fresh_key(hook)
    inner = InMemoryTarget(old)

    def leaky_write(credential: Credential) -> None:
        raise RuntimeError(f"backend refused {credential.key}:{credential.secret} (was {old.secret})")

    with pytest.raises(RotationError) as caught:
        ApiKeyRotation(
            hook, CallableTarget(inner.read, leaky_write), once=CreateOnce("1eaf1eaf1eaf1eaf", Store())
        ).run()
    text = str(caught.value)
    assert caught.value.step == "store" and "***" in text and old.secret not in text
    secrets = wire_secrets(platform.control)
    assert secrets and not [s for s in secrets if s in text]
    assert inner.read() == old and works(platform, old)
    assert [k["Label"] for k in hook.list_api_keys()] == ["Seeded key", "Workload"]  # ours revoked, never in use
    assert repr(old) == f"Credential(key={old.key!r}, secret='***')"


def test_the_airflow_api_client_shows_no_credentials_of_its_url():
    from messaging_platform_provider.rotation.airflow_api import AirflowRestApi

    api = AirflowRestApi("https://admin:s3cr3t@airflow.example.com:8443/", username="admin", password="s3cr3t")
    assert repr(api) == "AirflowRestApi(base_url='https://airflow.example.com:8443')"


def test_an_empty_or_unknown_target_is_refused_before_any_change(platform):
    hook = MessagingPlatformHook()
    with pytest.raises(RotationError, match="holds no credential"):
        ApiKeyRotation(hook, InMemoryTarget(), once=CreateOnce("0000000000000001", Store())).run()
    stranger = InMemoryTarget(Credential("0" * 32, "not-a-secret-of-this-account"))
    with pytest.raises(RotationError, match="not one of the account's API keys"):
        ApiKeyRotation(hook, stranger, once=CreateOnce("0000000000000002", Store())).run()
    assert [r["method"] for r in platform.control.requests()] == ["GET"]  # one list, no create


def test_operator_template_fields_and_xcom_carry_no_secret():
    op = MessagingPlatformRotateApiKeyOperator(task_id="rotate", target_conn_id="c")
    assert set(op.template_fields) == {
        "account_id",
        "messaging_platform_conn_id",
        "target_conn_id",
        "airflow_api_conn_id",
        "key_label",
        "valid_to",
    }
    with pytest.raises(ValueError):
        MessagingPlatformRotateApiKeyOperator(task_id="both", target_conn_id="c", target=InMemoryTarget())


def test_without_a_task_state_store_a_retry_after_the_store_stops_before_revoking(platform):
    """No store (outside Airflow 3.3): the retry cannot know the old key, so it revokes nothing and says so."""

    class Killed(BaseException):
        pass

    def kill_after_store(step: str) -> None:
        if step == "stored":
            raise Killed

    hook = MessagingPlatformHook()
    old = fresh_key(hook)
    target = InMemoryTarget(old)
    with pytest.raises(Killed):
        ApiKeyRotation(hook, target, once=CreateOnce("5707e5707e5707e5"), on_step=kill_after_store).run()
    with pytest.raises(RotationError, match="no task state store") as caught:
        ApiKeyRotation(MessagingPlatformHook(), target, once=CreateOnce("5707e5707e5707e5")).run()
    new = target.read()
    assert new is not None and new.key != old.key and works(platform, new) and works(platform, old)
    assert not any(r["method"] == "DELETE" for r in platform.control.requests())
    again = pickle.loads(pickle.dumps(caught.value))
    assert (again.step, str(again)) == (caught.value.step, str(caught.value))


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_airflow_api_errors_never_echo_the_request_body(airflow_api):
    """FastAPI's validation errors repeat the body, password included: the client keeps only place and message."""
    with pytest.raises(AirflowApiError) as caught:
        airflow_api.api().create_connection({"connection_id": "no_type", "password": "p4ss-w0rd-echo-probe"})
    assert caught.value.status == 422 and "conn_type" in str(caught.value)
    assert "p4ss-w0rd-echo-probe" not in str(caught.value)
