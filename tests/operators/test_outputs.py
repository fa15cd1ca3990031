"""
What a DAG author wires between tasks: ``op.output["Id"]`` (and a voice call's ``ScheduleId``) keep the dependency
edge and deliver the id; mapped instances are named by what they addressed. Under ``dag.test()``
(tests/integration/dags/messaging_platform_test_outputs.py).
"""

from __future__ import annotations

import pytest

from tests.support.airflow_versions import dag_bag
from tests.support.paths import TEST_DAGS

DAG_ID = "messaging_platform_test_outputs"

pytestmark = pytest.mark.xdist_group("dag_runs")


@pytest.fixture
def outputs_dag(dag_runs):
    return dag_bag(str(TEST_DAGS)).get_dag(DAG_ID)


def test_an_output_key_makes_the_dependency_edge(outputs_dag):
    assert outputs_dag.get_task("read_campaign").upstream_task_ids == {"create_campaign"}
    assert outputs_dag.get_task("read_schedule").upstream_task_ids == {"create_call"}
    assert outputs_dag.get_task("delete_codes").upstream_task_ids == {"create_list"}


@pytest.mark.slow
def test_output_ids_feed_downstream_tasks_and_mapped_instances_are_named(platform, outputs_dag):
    run = outputs_dag.test()
    instances = run.get_task_instances()
    assert {(ti.task_id, ti.map_index): ti.state for ti in instances} == {
        ("create_campaign", -1): "success",
        ("read_campaign", -1): "success",
        ("create_call", -1): "success",
        ("read_schedule", -1): "success",
        ("create_list", -1): "success",
        ("delete_codes", 0): "success",
        ("delete_codes", 1): "success",
        ("delete_codes", 2): "success",
    }
    by_task = {(ti.task_id, ti.map_index): ti for ti in instances}
    # After a reset the emulator's first new campaign is 3001, its first new action 5002 with schedule 7001, its
    # first coupon list 2001 (docs/emulator.md).
    assert by_task["read_campaign", -1].xcom_pull(task_ids="read_campaign")["Id"] == 3001
    assert by_task["create_call", -1].xcom_pull(task_ids="create_call", key="ScheduleIds") == [7001]
    schedule = by_task["read_schedule", -1].xcom_pull(task_ids="read_schedule")
    assert (schedule["ActionId"], schedule["Id"]) == (5002, 7001)
    names = sorted(by_task["delete_codes", i].rendered_map_index for i in range(3))
    assert names == [
        "coupon_list_id=2001, coupon_code=A1",
        "coupon_list_id=2001, coupon_code=B 2",
        "coupon_list_id=2001, coupon_code=C/3",
    ]
    deletes = [r["path"] for r in platform.control.requests() if r["method"] == "DELETE"]
    assert sorted(deletes) == sorted(
        f"/api/v2.1/account/1001/external-couponlist/2001/code/{code}" for code in ("A1", "B%202", "C%2F3")
    )
