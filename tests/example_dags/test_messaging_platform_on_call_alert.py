"""
Offline tests of the example DAG ``messaging_platform_on_call_alert``, to copy into your project's tests: the
report runs and calls nobody; a task that fails phones the on-call number, and the call says which task failed.

Each test runs the whole DAG in this process with ``dag.test()``, against the emulator that the plugin's fixture
``messaging_platform`` resets and points the connection ``messaging_platform_default`` at. The two Variables the
notifier reads are set for the test as environment variables (``AIRFLOW_VAR_...``), which Airflow reads first.
Your ``conftest.py`` enables the plugin: ``pytest_plugins = ["messaging_platform_emulator.pytest_plugin"]``.
"""

from __future__ import annotations

from typing import Any

import airflow
import pytest
from airflow.models import DagBag

from messaging_platform_emulator.pytest_plugin import MessagingPlatform

DAG_ID = "messaging_platform_on_call_alert"
pytestmark = pytest.mark.xdist_group("dag_runs")  # the suite runs DAGs on two workers (tests/conftest.py)
LONG_CODE = "+15125550100"
ON_CALL_PHONE = "+15550100007"


@pytest.fixture(scope="module")
def dag() -> Any:
    """The DAG as Airflow reads it from ``[core] dags_folder``, where ``dag.test()`` looks for it too."""
    bag = DagBag()
    assert DAG_ID in bag.dag_ids, f"{DAG_ID} not found in {bag.dag_folder}; import errors: {bag.import_errors}"
    return bag.get_dag(DAG_ID)


@pytest.fixture
def on_call_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AIRFLOW_VAR_MESSAGING_PLATFORM_ON_CALL_LONG_CODE", LONG_CODE)
    monkeypatch.setenv("AIRFLOW_VAR_MESSAGING_PLATFORM_ON_CALL_PHONE", ON_CALL_PHONE)


def voice_calls(platform: MessagingPlatform) -> list[dict[str, Any]]:
    """The push voice call creates the emulator received, in order."""
    return [
        r for r in platform.control.requests() if r["method"] == "POST" and r["path"].endswith("/action-pushvoicecall")
    ]


def test_a_run_that_succeeds_calls_nobody(dag: Any, messaging_platform: MessagingPlatform, on_call_variables) -> None:
    run = dag.test()

    assert run.state == "success"
    assert voice_calls(messaging_platform) == []


def test_a_failed_task_phones_the_on_call_number_and_names_the_task(
    dag: Any, messaging_platform: MessagingPlatform, on_call_variables
) -> None:
    # Listing campaigns answers 403, as the platform does for a key without the right: no retry can change that.
    messaging_platform.control.add_fault("status", status=403, method="GET", path="/campaign$")

    run = dag.test()

    assert run.state == "failed"
    states = {ti.task_id: ti.state for ti in run.get_task_instances()}
    assert states == {"list_campaigns": "failed", "count_by_type": "upstream_failed"}
    (call,) = voice_calls(messaging_platform)  # one call: a task that never ran has no failure to report
    assert call["status"] == 201
    assert (call["json"]["Channels"], call["json"]["Targets"]) == ([LONG_CODE], [ON_CALL_PHONE])
    assert call["json"]["Execute"] is True  # placed at once, not scheduled
    message = call["json"]["Message"]
    assert message.startswith(f"Airflow alert: DAG {DAG_ID}, task list_campaigns, try 1: failed. Run {run.run_id}.")
    # The log's URL; Airflow 3.0 sets it as a worker starts the task, which dag.test() skips.
    assert "/tasks/list_campaigns?try_number=1" in message or airflow.__version__.startswith("3.0.")
