"""
Offline tests of the example DAG ``messaging_platform_api_key_rotation``, to copy into your project's tests.

The rotation writes the new key into the connection ``messaging_platform_rotated`` through Airflow's REST API, so
besides the emulator (``messaging_platform``) these tests use the plugin's Airflow API server: ``airflow_api`` points
``airflow_api_default`` at it for the test, and puts the rotated connection into the metadata database, where the
rotation can rewrite it (an ``AIRFLOW_CONN_`` variable would shadow what it writes: it refuses to rotate one). The
server starts on first use, once per session; ``dag.test()`` then runs the DAG in this process in seconds. Your
``conftest.py`` enables the plugin: ``pytest_plugins = ["messaging_platform_emulator.pytest_plugin"]``.
``dag.test()`` and the API server need a migrated Airflow metadata database (``airflow db migrate``), and
``[core] dags_folder`` the folder of your DAGs.
"""

from __future__ import annotations

from typing import Any

import pytest
from airflow.models import DagBag

from messaging_platform_emulator.airflow_api import AirflowApiServer
from messaging_platform_emulator.pytest_plugin import MessagingPlatform
from messaging_platform_provider.client import MessagingPlatformApiError, MessagingPlatformClient
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

DAG_ID = "messaging_platform_api_key_rotation"
ROTATED_CONN_ID = "messaging_platform_rotated"
# The provider's suite: `slow` (set-up included, since the first test starts the API server), and on the worker that
# runs its API server (tests/conftest.py). Leave this line out in your project, or register `slow` there.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("airflow_api_server")]


@pytest.fixture(scope="module")
def dag() -> Any:
    """The DAG as Airflow reads it from ``[core] dags_folder``, where ``dag.test()`` looks for it too."""
    bag = DagBag()
    assert DAG_ID in bag.dag_ids, f"{DAG_ID} not found in {bag.dag_folder}; import errors: {bag.import_errors}"
    return bag.get_dag(DAG_ID)


@pytest.fixture
def workload_key(messaging_platform: MessagingPlatform, airflow_api: AirflowApiServer) -> dict[str, Any]:
    """A fresh key made on the emulator, put into the metadata database as the connection the DAG rotates."""
    key = messaging_platform.control.add_api_key(type_id=2, label="Workload key")  # type 2: Common
    airflow_api.put_connection(
        ROTATED_CONN_ID,
        "messagingplatform",
        login=key["Key"],
        password=key["Secret"],
        extra={"base_url": messaging_platform.base_url, "account_id": messaging_platform.seed.account_id},
    )
    return key


def works(platform: MessagingPlatform, key: str, secret: str) -> bool:
    """Whether the platform takes this key and secret: a real call, which a revoked key gets 401 for."""
    with MessagingPlatformClient(platform.base_url, key, secret, account_id=platform.seed.account_id) as client:
        try:
            client.list_campaigns(only_mine=True)
        except MessagingPlatformApiError as exc:
            if exc.status == 401:
                return False
            raise
    return True


def task_instances(run: Any) -> dict[str, Any]:
    return {ti.task_id: ti for ti in run.get_task_instances()}


def test_the_rotation_puts_a_working_key_in_the_connection_and_revokes_the_old_one(
    dag: Any, messaging_platform: MessagingPlatform, airflow_api: AirflowApiServer, workload_key: dict[str, Any]
) -> None:
    run = dag.test()

    assert run.state == "success"
    tis = task_instances(run)
    result = tis["rotate_api_key"].xcom_pull(task_ids="rotate_api_key")  # ids and labels, never a secret
    assert result["outcome"] == "rotated" and result["old_key_revoked"]
    assert result["old_key_id"] == workload_key["Id"] != result["new_key_id"]
    # The connection in the metadata database holds the new key (the REST API shows its login, not its password) ...
    new_key = MessagingPlatformHook().get_api_key(result["new_key_id"])  # messaging_platform_default: the emulator
    assert airflow_api.get_connection(ROTATED_CONN_ID)["login"] == new_key["Key"]
    assert works(messaging_platform, new_key["Key"], new_key["Secret"])
    # ... which the DAG's next task, reading the connection as every task does, used successfully.
    assert tis["use_rotated_connection"].xcom_pull(task_ids="use_rotated_connection")["works"] is True
    # The old key is revoked: the platform refuses it.
    assert not works(messaging_platform, workload_key["Key"], workload_key["Secret"])


def test_without_the_api_server_the_rotation_fails_at_once_without_retry(
    dag: Any, messaging_platform: MessagingPlatform
) -> None:
    # No `airflow_api` fixture: no connection `airflow_api_default`, a mistake no retry fixes. The task fails on its
    # first try, instead of waiting for the DAG's retries (two, a minute apart), and no key is made.
    run = dag.test()

    assert run.state == "failed"
    tis = task_instances(run)
    assert (tis["rotate_api_key"].state, tis["rotate_api_key"].try_number) == ("failed", 1)
    assert tis["use_rotated_connection"].state == "upstream_failed"
    assert [r for r in messaging_platform.control.requests() if r["path"].endswith("/api-key")] == []
