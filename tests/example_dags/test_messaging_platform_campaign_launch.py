"""
Offline tests of the example DAG ``messaging_platform_campaign_launch``, to copy into your project's tests.

Each test runs the whole DAG in this process with ``dag.test()``, against the emulator that the plugin's fixture
``messaging_platform`` resets and points the connection ``messaging_platform_default`` at. Your ``conftest.py``
enables the plugin: ``pytest_plugins = ["messaging_platform_emulator.pytest_plugin"]``. ``dag.test()`` needs a
migrated Airflow metadata database (``airflow db migrate``), and ``[core] dags_folder`` the folder of your DAGs.
"""

from __future__ import annotations

from typing import Any

import pytest
from airflow.models import DagBag

from messaging_platform_emulator.pytest_plugin import MessagingPlatform

DAG_ID = "messaging_platform_campaign_launch"
pytestmark = pytest.mark.xdist_group("dag_runs")  # the suite runs DAGs on two workers (tests/conftest.py)
CALLBACK_URL = "https://airflow.example.com/messaging-platform/callbacks"


@pytest.fixture(scope="module")
def dag() -> Any:
    """The DAG as Airflow reads it from ``[core] dags_folder``, where ``dag.test()`` looks for it too."""
    bag = DagBag()
    assert DAG_ID in bag.dag_ids, f"{DAG_ID} not found in {bag.dag_folder}; import errors: {bag.import_errors}"
    return bag.get_dag(DAG_ID)


def launch(dag: Any, platform: MessagingPlatform) -> Any:
    """One run of the DAG with the seeded channel and keyword as its params; answers the finished DAG run."""
    conf = {
        "channel": platform.seed.resources["channel_id"],
        "keyword_id": platform.seed.resources["keyword_id"],
        "callback_url": CALLBACK_URL,
    }
    return dag.test(run_conf=conf)


def task_states(run: Any) -> dict[str, str]:
    return {ti.task_id: ti.state for ti in run.get_task_instances()}


def xcom(run: Any, task_id: str) -> Any:
    (ti,) = [ti for ti in run.get_task_instances() if ti.task_id == task_id]
    return ti.xcom_pull(task_ids=task_id)


def received(platform: MessagingPlatform, method: str, path_end: str) -> list[dict[str, Any]]:
    """The requests the emulator received with this method and a path ending so, in the order received."""
    return [r for r in platform.control.requests() if r["method"] == method and r["path"].endswith(path_end)]


def test_launch_attaches_a_new_campaign_to_the_keyword_and_registers_the_callback(
    dag: Any, messaging_platform: MessagingPlatform
) -> None:
    run = launch(dag, messaging_platform)

    assert run.state == "success"
    assert set(task_states(run).values()) == {"success"}
    campaign = xcom(run, "create_campaign")  # the campaign as the platform answered its create
    assert campaign["Name"] == "Spring launch"
    # What the platform received: the keyword is attached to the new campaign (the body is its bare id) ...
    resources = messaging_platform.seed.resources
    keyword_path = f"/channel/{resources['channel_id']}/keyword/{resources['keyword_id']}/campaign"
    (attach,) = received(messaging_platform, "POST", keyword_path)
    assert attach["json"] == campaign["Id"]
    # ... and one Keyword callback record (CallbackType 1) is registered for the receiver.
    (callback,) = received(messaging_platform, "POST", "/callback")
    assert callback["json"]["CallbackType"] == 1 and callback["json"]["URL"] == CALLBACK_URL


def test_a_keyword_the_platform_does_not_know_fails_the_run_before_the_callback(
    dag: Any, messaging_platform: MessagingPlatform
) -> None:
    # The next POST to a keyword answers 404, as the platform does for a keyword the account does not have.
    messaging_platform.control.add_fault("status", status=404, method="POST", path="/keyword/")

    run = launch(dag, messaging_platform)

    assert run.state == "failed"
    states = task_states(run)
    assert states["attach_keyword"] == "failed"  # a 404 is not retried: another try would get the same answer
    assert states["register_keyword_callback"] == "upstream_failed"
    (attach,) = [r for r in messaging_platform.control.requests() if "/keyword/" in r["path"]]
    assert attach["status"] == 404 and attach["fault"] == "status"  # the answer came from the injected fault
    assert received(messaging_platform, "POST", "/callback") == []  # no callback was registered


def test_a_passing_server_error_on_a_read_is_retried_and_the_launch_succeeds(
    dag: Any, messaging_platform: MessagingPlatform
) -> None:
    # The first GET answers 503 Service Unavailable; the hook sends a read again after a short backoff.
    messaging_platform.control.add_fault("status", status=503, count=1, method="GET")

    run = launch(dag, messaging_platform)

    assert run.state == "success"
    first, second, *_ = [r for r in messaging_platform.control.requests() if r["method"] == "GET"]
    assert first["status"] == 503 and second["status"] < 300
    assert (second["path"], second["query"]) == (first["path"], first["query"])  # the same read, sent again
    assert messaging_platform.control.faults() == []  # the fault fired once and is used up
