"""
Test DAG (not an example): the schedule sensor in reschedule mode and deferrable, one task per outcome.

The test that runs it creates one schedule per task, parked in Pending, and passes ``{task_id: {"action": ..,
"schedule": ..}}`` as the run's conf; while the DAG runs it moves each schedule on (complete, fail, abort, delete
the action) once the task has seen it waiting. Every task may retry once with no delay, so a task that ends
after one try shows a failure Airflow does not retry.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from airflow.sdk import DAG

from messaging_platform_provider.sensors import MessagingPlatformScheduleSensor

MODES = ("reschedule", "deferrable")
CASES = ("completed", "failed", "aborted", "deleted", "timeout", "transient")

with DAG(
    dag_id="messaging_platform_test_wait_sensor",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    default_args={"retries": 1, "retry_delay": timedelta(seconds=0)},
    tags=["test"],
):
    for mode in MODES:
        for case in CASES:
            MessagingPlatformScheduleSensor(
                task_id=f"{mode}_{case}",
                action_id="{{ dag_run.conf[task.task_id]['action'] }}",
                schedule_id="{{ dag_run.conf[task.task_id]['schedule'] }}",
                mode="reschedule" if mode == "reschedule" else "poke",
                deferrable=mode == "deferrable",
                # Reschedule: due again at once, so dag.test() never idles a second waiting for it.
                poke_interval=0.01 if mode == "reschedule" else 0.1,
                # Generous but for the timeout case: dag.test() runs one task at a time, and on a loaded machine a
                # reschedule task's pokes can be minutes apart in wall time.
                timeout=0.6 if case == "timeout" else 600.0,
                max_transient_errors=5,
            )
