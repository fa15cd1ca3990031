"""
System-test DAG (not an example): three push voice calls, each created and waited on by its own task, for the
scenario that kills two of the tasks (``make system-test``, scenario 7). ``deferred_call`` waits in the triggerer,
``running_call`` in the worker, ``kept_call`` in the triggerer too but is never killed; each calls its own number,
so the scenario can tell their actions apart on the platform.
"""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import MessagingPlatformCreatePushVoiceCallOperator

#: task id -> (the number it calls, whether it waits deferred)
CALLS = {
    "deferred_call": ("+15550400001", True),
    "running_call": ("+15550400002", False),
    "kept_call": ("+15550400003", True),
}

with DAG(
    dag_id="messaging_platform_system_killed_waits",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    default_args={"retries": 0},
    tags=["test"],
):
    for task_id, (number, deferrable) in CALLS.items():
        MessagingPlatformCreatePushVoiceCallOperator(
            task_id=task_id,
            channels=["+15125550100"],
            targets=[number],
            message="System test {{ run_id }}: a call that a kill stops.",
            schedules=[{"schedule_type": "OneTime", "run_at": "09:00:00", "start_from": "2026-12-01T00:00:00"}],
            wait_for_completion=True,
            deferrable=deferrable,
            poll_interval=2,
            wait_timeout=600,
        )
