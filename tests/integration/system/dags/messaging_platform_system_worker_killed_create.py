"""
System-test DAG (not an example): one push voice call create, for the scenario that kills the Celery worker running
it while the platform holds the create's answer (``make system-test EXECUTOR=celery``, scenario 8). The call dials
a number no other DAG dials, so the scenario can count its actions on the platform.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import MessagingPlatformCreatePushVoiceCallOperator

NUMBER = "+15550800001"

with DAG(
    dag_id="messaging_platform_system_worker_killed_create",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    default_args={"retries": 2, "retry_delay": timedelta(seconds=2)},
    tags=["test"],
):
    MessagingPlatformCreatePushVoiceCallOperator(
        task_id="create_call",
        channels=["+15125550100"],
        targets=[NUMBER],
        message="System test {{ run_id }}: a call whose worker dies while it is created.",
        schedules=[{"schedule_type": "OneTime", "run_at": "09:00:00", "start_from": "2026-12-01T00:00:00"}],
        wait_for_completion=False,
    )
