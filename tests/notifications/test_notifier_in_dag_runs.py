"""
``MessagingPlatformVoiceCallNotifier`` as Airflow runs it: the ``on_failure_callback`` of failing tasks, under
``dag.test()`` (tests/integration/dags/messaging_platform_test_notifier.py), against the emulator, which
records each call placed and what it says.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from messaging_platform_emulator.pytest_plugin import using_emulator
from tests.support.airflow_versions import AIRFLOW_VERSION, dag_bag
from tests.support.paths import TEST_DAGS

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("dag_runs")]

DAG_ID = "messaging_platform_test_notifier"
CALLS = "/api/v2.1/account/1001/action-pushvoicecall"
REFUSED_CONN_ENV = "AIRFLOW_CONN_MESSAGING_PLATFORM_REFUSED"
#: Airflow 3.0 gives a task instance its log URL as a worker starts it, which dag.test() skips.
LOG_URL_UNDER_DAG_TEST = AIRFLOW_VERSION.release[:2] >= (3, 1)


@pytest.fixture(scope="module")
def failed_run(emulator_server: Any, dag_runs: None) -> Iterator[tuple[Any, Any, list[dict[str, Any]]]]:
    """One run of the DAG (every task fails); the run, the emulator's handle and the requests it received."""
    with using_emulator(emulator_server) as platform, pytest.MonkeyPatch.context() as patch:
        patch.setenv(REFUSED_CONN_ENV, platform.connection_json(password="not-the-secret"))
        run = dag_bag(str(TEST_DAGS)).get_dag(DAG_ID).test()
        yield run, platform, platform.control.requests()


def calls_to(requests: list[dict[str, Any]], number: str) -> list[dict[str, Any]]:
    """The push voice call creates the emulator received for ``number``, in the order received."""
    return [
        r for r in requests if r["method"] == "POST" and r["path"] == CALLS and number in (r["json"] or {})["Targets"]
    ]


def test_a_failing_task_calls_the_number_from_its_param_and_says_what_failed(failed_run):
    run, platform, requests = failed_run
    (call,) = calls_to(requests, "+15550100007")
    (ti,) = [ti for ti in run.get_task_instances() if ti.task_id == "load_orders"]
    assert call["status"] == 201
    assert call["json"]["Channels"] == ["+15125550100"]
    assert call["json"]["Execute"] is True
    message = call["json"]["Message"]
    assert message.startswith(f"Airflow alert: DAG {DAG_ID}, task load_orders, try 1: failed.")
    assert f"Run {run.run_id}." in message
    if LOG_URL_UNDER_DAG_TEST:
        assert f"/dags/{DAG_ID}/runs/" in message and message.endswith("/tasks/load_orders?try_number=1")
    assert ti.state == "failed"


def test_the_rendered_message_never_speaks_the_connection_secret(failed_run):
    _, platform, requests = failed_run
    (call,) = calls_to(requests, "+15550100008")
    assert call["status"] == 201
    assert call["json"]["Message"] == "leaky_alert failed; key ***"
    assert all(platform.seed.api_secret not in str(r["json"]) for r in requests)


def test_a_call_that_fails_leaves_the_task_failed_and_the_other_alerts_go_out(failed_run):
    run, _, requests = failed_run
    refused = calls_to(requests, "+15550100009")
    assert refused and {r["status"] for r in refused} == {401}  # the wrong secret: nothing was placed
    states = {ti.task_id: ti.state for ti in run.get_task_instances()}
    assert states == {"load_orders": "failed", "leaky_alert": "failed", "broken_alert": "failed"}
    assert run.state == "failed"
    placed = [r for r in requests if r["method"] == "POST" and r["path"] == CALLS and r["status"] == 201]
    assert len(placed) == 2  # the failed call stopped neither the other tasks' alerts nor the run
